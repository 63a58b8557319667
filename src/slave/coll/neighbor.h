// Neighbourhood collectives (MPI-3.1 7.6) on communicators with a
// topology, as one-round schedules (nbc.h) on the communicator's collective
// twin, serving the blocking and the nonblocking (MPI_Ineighbor_*) forms:
// each rank sends to its out-neighbours and receives from its
// in-neighbours; MPI_PROC_NULL neighbours of a Cartesian grid are skipped
// (their blocks untouched). Blocks travel as wire bytes, so datatypes with
// gaps work.
#pragma once

#include <mpi.h>

#include "slave/coll/nbc.h"
#include "slave/comm/cross_job_coll.h"

namespace bdmpi {

// Plan: CollectivePlan within a job (nbc.h), CrossPlan on a communicator
// between two jobs (cross_job_coll.h), which runs over the jobs' sockets.
template <class Plan>
struct NeighborPlans {
  static Plan Allgather(const void* send, int sendcount, MPI_Datatype sendtype,
                                       void* recv, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm);
  static Plan Allgatherv(const void* send, int sendcount, MPI_Datatype sendtype,
                                        void* recv, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm);
  static Plan Alltoall(const void* send, int sendcount, MPI_Datatype sendtype,
                                      void* recv, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm);
  static Plan Alltoallv(const void* send, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recv, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
  // Displacements in bytes, a datatype per block.
  static Plan Alltoallw(const void* send, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void* recv, const int recvcounts[], const MPI_Aint rdispls[],
                                       const MPI_Datatype recvtypes[], MPI_Comm comm);
};
extern template struct NeighborPlans<CollectivePlan>;
extern template struct NeighborPlans<CrossPlan>;

}  // namespace bdmpi
