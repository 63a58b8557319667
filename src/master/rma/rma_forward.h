// The master's half of one-sided operations across nodes
// (docs/one-sided.md, "Across nodes"; the origin's half is
// src/slave/rma/remote.cpp). An origin on another node sends a RemoteOp to
// a rank of this node with tag rma::kTagRemoteOp; the point-to-point
// family hands it here instead of to the rank's mailbox. It is applied to
// the window's file of this node (mapped for the operation) or, for
// program memory, to the rank's process with process_vm_readv/writev,
// holding the file's mutex as the node's ranks do; the rank never runs
// for it. The answer goes back to the origin with tag rma::kTagRemoteReply.
#pragma once

#include <cstddef>
#include <vector>

#include "common/spill_dir.h"

namespace bdmpi {

// Applies the RemoteOp that `packet` holds; returns the answer (a
// RemoteReply, then the bytes fetched or the ranks granted a lock). Errors
// of the operation (bytes outside a region, a target gone) are in the
// answer, for the origin to raise.
std::vector<std::byte> ApplyRemoteOp(const SpillDir& spill_dir, const std::byte* packet,
                                     std::size_t bytes);

}  // namespace bdmpi
