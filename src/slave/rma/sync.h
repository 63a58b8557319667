// RMA synchronization (MPI-3.1 section 11.5). Operations are complete when
// their calls return (operations.h), so an epoch's end only has to order
// memory and tell the other side; every wait is a receive on the window's
// own communicator or a barrier on it, and so a blocking point at which the
// master runs other ranks. Passive-target locks live in the node's control
// block; a rank that cannot have one queues there and receives a grant
// from the rank that releases it.
#pragma once

#include <mpi.h>

#include "slave/rma/window.h"

namespace bdmpi::rma {

void Fence(Window& win, int assert);
void Post(Window& win, MPI_Group group, int assert);
void Start(Window& win, MPI_Group group, int assert);
void Complete(Window& win);
void Wait(Window& win);
bool Test(Window& win);
void Lock(Window& win, int lock_type, int target, int assert);
void Unlock(Window& win, int target);
void LockAll(Window& win, int assert);
void UnlockAll(Window& win);
// flush, flush_local (all when target < 0): MPI_ERR_RMA_SYNC outside a
// passive-target epoch, else a memory barrier, after the batches to other
// nodes' targets went (`local`: only those that fetch; the others' data
// is already out of the origin's buffers).
void Flush(Window& win, int target, bool local);
void Sync(Window& win);

}  // namespace bdmpi::rma
