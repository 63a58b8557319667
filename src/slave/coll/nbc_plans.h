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
CollectivePlan GathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm);
CollectivePlan ScatterPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
CollectivePlan ScattervPlan(const void* send, const int sendcounts[], const int displs[],
                            MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype,
                            int root, MPI_Comm comm);
CollectivePlan AllgatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
CollectivePlan AllgathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                              MPI_Comm comm);
CollectivePlan AlltoallPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
CollectivePlan AlltoallvPlan(const void* send, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recv, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
CollectivePlan AlltoallwPlan(const void* send, const int sendcounts[], const int sdispls[],
                             const MPI_Datatype sendtypes[], void* recv, const int recvcounts[],
                             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

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
