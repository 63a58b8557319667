// The master's half of one-sided operations across nodes
// (docs/one-sided.md, "Across nodes"; the origin's half is
// src/slave/rma/remote.cpp). An origin on another node sends a RemoteOp to
// a rank of this node with tag rma::kTagRemoteOp; the point-to-point
// family hands it here instead of to the rank's mailbox. It is applied to
// the window's file of this node (MPI_Win_allocate's memory, with
// pread/pwrite) or, for program memory, to the rank's process with
// process_vm_readv/writev, holding the file's mutex as the node's ranks
// do; the rank never runs for it. The answer goes back to the origin with tag rma::kTagRemoteReply.
#pragma once

#include <cstddef>
#include <functional>

#include "common/spill_dir.h"

namespace bdmpi {

// Where the answer goes: a buffer of the given size, asked for once.
using AnswerBuffer = std::function<std::byte*(std::size_t)>;

// Applies the batch of RemoteOps that `packet` holds, in order, and writes
// the answer (a RemoteReply, then the bytes fetched, then room for the
// ranks an unlock granted the lock to, of which RemoteReply::granted are
// used) into the buffer `answer` gives: fetched bytes are read straight
// into it. Errors of the operations (bytes outside a region, a target
// gone) are in the answer, for the origin to raise.
void ApplyRemoteOp(const SpillDir& spill_dir, const std::byte* packet, std::size_t bytes,
                   const AnswerBuffer& answer);

// Where a batch that came in a file is read to: a buffer of at least
// `bytes` kept (resident) between batches, valid until the next call.
std::byte* PacketBuffer(std::size_t bytes);

}  // namespace bdmpi
