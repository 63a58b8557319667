// Operations on targets of other nodes (docs/one-sided.md, "Across
// nodes"): the origin sends a RemoteOp (common/rma_node_file.h) to the
// target on the window's communicator; the target's master applies it
// without the target running and answers. Waiting for the answer is a
// receive, a blocking point like any other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/rma_node_file.h"
#include "slave/rma/window.h"

namespace bdmpi::rma {

struct RemoteResult {
  RemoteReply reply;
  std::vector<std::byte> data;  // fetched bytes, or granted ranks
};

// Fills the fields of `op` that name the target's file and process.
RemoteOp RemoteOpFor(const Window& win, RemoteKind kind, int target);

// Sends op, its runs and data to the target's master and waits for the
// answer (which holds at most `reply_capacity` bytes after the
// RemoteReply). Throws the target master's error.
RemoteResult CallRemote(const Window& win, RemoteOp op, const std::vector<TargetRun>& runs,
                        const std::byte* data, std::uint64_t reply_capacity);

// Tells the master in which one-sided call the rank's next waits on the
// window's communicator are made (RmaWaitIn), so that a deadlock report
// names that call. Sent only when it differs from the last one told:
// a loop of fences costs one message.
void TellWait(const Window& win, RmaWait wait, int rank, int detail);

}  // namespace bdmpi::rma
