// The plans of the collectives built from point-to-point messages (nbc.h):
// each checks its arguments when called (so that the MPI call reports
// them) and returns the plan that posts one execution. The blocking call
// runs its plan to completion, the nonblocking one starts it once and the
// persistent one at every MPI_Start.
#pragma once

#include <mpi.h>

#include "slave/coll/nbc.h"

namespace bdmpi {

// Data movement (nbc_move.cpp).
CollectivePlan BarrierPlan(MPI_Comm comm);
CollectivePlan BcastPlan(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
CollectivePlan GatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
// The v and w forms take int counts and displacements (Count = Disp = int)
// or the large-count ones (MPI_Count, MPI_Aint): a count beyond INT_MAX
// becomes one element of a counted type (slave/datatype/large_count.h).
template <class Count, class Disp>
CollectivePlan GathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           const Count recvcounts[], const Disp displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm);
CollectivePlan ScatterPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
template <class Count, class Disp>
CollectivePlan ScattervPlan(const void* send, const Count sendcounts[], const Disp displs[],
                            MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype,
                            int root, MPI_Comm comm);
CollectivePlan AllgatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
template <class Count, class Disp>
CollectivePlan AllgathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                              const Count recvcounts[], const Disp displs[], MPI_Datatype recvtype,
                              MPI_Comm comm);
CollectivePlan AlltoallPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
template <class Count, class Disp>
CollectivePlan AlltoallvPlan(const void* send, const Count sendcounts[], const Disp sdispls[],
                             MPI_Datatype sendtype, void* recv, const Count recvcounts[],
                             const Disp rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
template <class Count, class Disp>
CollectivePlan AlltoallwPlan(const void* send, const Count sendcounts[], const Disp sdispls[],
                             const MPI_Datatype sendtypes[], void* recv, const Count recvcounts[],
                             const Disp rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

// Reductions (nbc_reduce.cpp), folded in rank order by the ranks that
// need the result.
CollectivePlan ReducePlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                          int root, MPI_Comm comm);
CollectivePlan AllreducePlan(const void* send, void* recv, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm);
CollectivePlan ReduceScatterPlan(const void* send, void* recv, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
CollectivePlan ReduceScatterBlockPlan(const void* send, void* recv, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
CollectivePlan ScanPlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm);
CollectivePlan ExscanPlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm);

// MPI_Reduce_local: inout = in op inout on buffers of any datatype.
void ReduceLocal(const void* in, void* inout, int count, MPI_Datatype datatype, MPI_Op op);

}  // namespace bdmpi
