// What a communicator split makes of its members' entries, the same on
// every master that has them all (src/master/comm/comm.cpp applies it).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/protocol.h"

namespace bdmpi {

struct PlannedComm {
  std::int32_t id = 0;                      // CommId of its leader
  int color = 0;
  std::vector<const SplitEntry*> members;   // by rank in the new communicator
};

// One communicator per color other than kUndefinedColor, in increasing
// color order; members ordered by key, ties by their rank in the parent
// (MPI_Comm_split). Throws Error(kErrIntern) when an id does not fit.
std::vector<PlannedComm> PlanSplit(std::span<const SplitEntry> entries, int world_size);

}  // namespace bdmpi
