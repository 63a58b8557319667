// Operations on targets of other nodes (docs/one-sided.md, "Across
// nodes"): the origin collects an epoch's operations to such a target in
// a batch (Window::batches) and sends it at a flush, at the epoch's end or
// when it grows large, to the target on the window's communicator, with
// the epoch's lock in front when it was not taken yet; the target's master
// applies the batch without the target running and answers. Waiting for
// the answer is a receive, a blocking point like any other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/rma_node_file.h"
#include "slave/rma/window.h"

namespace bdmpi::rma {

// Tags of the window's own communicator: a passive-target lock on
// `target` granted (releaser -> waiter), one tag per target, so that an
// origin waiting for several (its batches to several targets of other
// nodes in flight at once, remote.cpp) knows which lock each grant is for.
inline constexpr int kTagGrantBase = 16;
inline int GrantTag(int target) { return kTagGrantBase + target; }

bool OnOtherNode(const Window& win, int target);

// Fills the fields of `op` that name the target's file and process.
RemoteOp RemoteOpFor(const Window& win, RemoteKind kind, int target);

// Adds op, its runs and data (copied: the origin's buffer is free when
// this returns) to the batch of op.target; `fetch` says where its answer
// goes (fetch.bytes 0: it has none), by the batch's completion.
void Enqueue(Window& win, RemoteOp op, const std::vector<TargetRun>& runs, const std::byte* data,
             RemoteFetch fetch);

// MPI_Win_lock and lock_all on `target`: taken with its first batch.
void LockLater(Window& win, int target, int lock_type, bool lock_all);

// Sends the batch of `target` (every target of another node: -1, all sent
// before any answer is awaited) and waits for its answer: MPI_Win_flush,
// the end of a fence or access epoch.
// `local` (MPI_Win_flush_local): only a batch that fetches must go, the
// others' data is already copied out of the origin's buffers.
void FlushRemote(Window& win, int target, bool local);

// Sends every batch that holds an operation, as MPI_Win_flush_all would,
// at a flush or sync that yields: a program may poll its own memory with
// flushes of its own rank and MPI_Win_sync until another rank answers an
// operation it has not flushed (mpi4py's util.sync Mutex, an MCS lock,
// queues itself so); MPI requires such an operation to complete
// eventually, and no call of the poller names its target.
void SendPendingRemote(Window& win);

// MPI_Win_unlock, for each target in MPI_Win_unlock_all: the batch goes
// with the unlock (and the lock, when it was never taken: an epoch with no
// operation still takes and releases it, but lock_all's untouched targets
// are left alone). Throws the target master's error after releasing.
void EndRemote(Window& win, int target);
// MPI_Win_unlock_all: the same for every target of another node, their
// batches all sent before any answer is awaited.
void EndRemoteAll(Window& win);

// Tells the master in which one-sided call the rank's next waits on the
// window's communicator are made (RmaWaitIn), so that a deadlock report
// names that call. Sent only when it differs from the last one told:
// a loop of fences costs one message.
void TellWait(const Window& win, RmaWait wait, int rank, int detail);

}  // namespace bdmpi::rma
