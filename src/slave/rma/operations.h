// RMA communication calls (MPI-3.1 section 11.3). On the origin's node
// applied by the origin at once: when a call returns, the operation is
// complete at the target as well (see docs/one-sided.md), so flushes and
// epoch ends only order memory. On another node's target batched
// (remote.h): complete at the flush or epoch end that sends the batch.
#pragma once

#include <mpi.h>

#include "slave/rma/window.h"

namespace bdmpi::rma {

// MPI_ERR_RMA_SYNC unless an access epoch to `target` is open.
void CheckEpoch(const Window& win, int target);

void Put(Window& win, const void* origin, int origin_count, MPI_Datatype origin_type, int target,
         MPI_Aint disp, int target_count, MPI_Datatype target_type);
void Get(Window& win, void* origin, int origin_count, MPI_Datatype origin_type, int target,
         MPI_Aint disp, int target_count, MPI_Datatype target_type);
// Get_accumulate with result == nullptr is Accumulate.
void GetAccumulate(Window& win, const void* origin, int origin_count, MPI_Datatype origin_type,
                   void* result, int result_count, MPI_Datatype result_type, int target,
                   MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Op op);
void CompareAndSwap(Window& win, const void* origin, const void* compare, void* result,
                    MPI_Datatype type, int target, MPI_Aint disp);

}  // namespace bdmpi::rma
