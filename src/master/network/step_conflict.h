// Node 0's check, at each complete wave of the deadlock watch (network_control.h),
// that the masters of a collective step agree on what their ranks called.
// A receiving master compares each message's signature with its own
// (mpi_transport.h), but a master that only sends never does: with a root
// mismatch every node may take itself, or a node of its own view, for the
// root, so that nobody receives a message of the other view. Such a step
// never completes (or completes wrongly), yet every master has started it,
// which the watch would take for progress: the job would wait for the time
// limit. The steps the masters report in their kState, with signatures,
// show it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "master/coll/step_signature.h"
#include "master/network/wire.h"

namespace bdmpi {

// Two masters whose steps of one collective (comm, seq) differ.
struct StepConflict {
  int comm = 0;
  std::uint64_t seq = 0;
  int first_node = 0;  // the lower node
  StepSignature first;
  int second_node = 0;
  StepSignature second;
};

// `states`: every node's latest kState, by node.
std::optional<StepConflict> FindStepConflict(std::span<const ControlMsg> states);

}  // namespace bdmpi
