// One collective operation in progress on this node's master.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/file_io.h"
#include "common/protocol.h"
#include "master/payload.h"

namespace bdmpi {

struct Collective {
  MsgType type = MsgType::kBarrier;
  int comm = 0;
  std::uint64_t seq = 0;  // the n-th collective on comm
  int root = 0;
  std::uint16_t datatype = 0;
  std::uint16_t op = 0;
  std::uint64_t bytes = 0;  // root's / contributors' payload size
  int arrived = 0;  // local members so far
  bool root_arrived = false;
  bool local_complete = false;  // every local member has done its part
  bool done = false;            // the result is ready (after the inter-node step)
  // Replies still to be given out; the collective is dropped at zero.
  int replies_due = 0;

  // Reductions: contributions by comm rank, folded into `result` strictly
  // in rank order so that results do not depend on the schedule; `folded`
  // counts the local ranks folded so far.
  std::vector<std::optional<Payload>> contributions;
  int folded = 0;
  // `result` mapped, when it is on disk, while it is being folded into or
  // moved between nodes.
  std::optional<MappedFile> accumulator_map;

  // Bcast: the root's data; reductions: the result.
  Payload result;
};

}  // namespace bdmpi
