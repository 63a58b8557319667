// MPI entry points of the neighbourhood collectives (neighbor.h), blocking,
// nonblocking (MPI_Ineighbor_*) and persistent (MPI_Neighbor_*_init): all
// run the same plan.
#include "slave/coll/neighbor.h"

#include <mpi.h>

#include <type_traits>

#include "slave/coll/nbc.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/cross_job_coll.h"
#include "slave/runtime/errors.h"

using bdmpi::Guard;
using Within = bdmpi::NeighborPlans<bdmpi::CollectivePlan>;
using Across = bdmpi::NeighborPlans<bdmpi::CrossPlan>;

namespace {

// A collective on a communicator between two jobs runs over the jobs'
// sockets (slave/comm/cross_job_coll.h), as no master knows it.
template <class... Args>
void RunNeighbor(MPI_Comm comm, bdmpi::CollectivePlan (*plan)(Args...),
                 bdmpi::CrossPlan (*cross)(Args...), std::type_identity_t<Args>... args) {
  if (bdmpi::CrossJob(comm) != nullptr) return bdmpi::RunCross(cross(args...));
  bdmpi::RunBlocking(plan(args...));
}

}  // namespace

extern "C" {

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Neighbor_allgather", comm, [&] {
    RunNeighbor(comm, &Within::Allgather, &Across::Allgather, sendbuf,
                sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ineighbor_allgather", comm, [&] {
    *request = bdmpi::PlannedRequest(false, comm, &Within::Allgather, &Across::Allgather, sendbuf, sendcount, sendtype,
                               recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Neighbor_allgatherv", comm, [&] {
    RunNeighbor(comm, &Within::Allgatherv, &Across::Allgatherv, sendbuf,
                sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  });
}

#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ineighbor_allgatherv", comm, [&] {
    *request = bdmpi::PlannedRequest(false, comm, &Within::Allgatherv, &Across::Allgatherv, sendbuf, sendcount, sendtype,
                               recvbuf, recvcounts, displs, recvtype, comm);
  });
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Neighbor_alltoall", comm, [&] {
    RunNeighbor(comm, &Within::Alltoall, &Across::Alltoall, sendbuf,
                sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ineighbor_alltoall", comm, [&] {
    *request = bdmpi::PlannedRequest(false, comm, &Within::Alltoall, &Across::Alltoall, sendbuf, sendcount, sendtype,
                               recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Neighbor_alltoallv", comm, [&] {
    RunNeighbor(comm, &Within::Alltoallv, &Across::Alltoallv, sendbuf,
                sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  });
}

#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ineighbor_alltoallv", comm, [&] {
    *request = bdmpi::PlannedRequest(false, comm, &Within::Alltoallv, &Across::Alltoallv, sendbuf, sendcounts, sdispls,
                               sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  });
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return Guard("MPI_Neighbor_alltoallw", comm, [&] {
    RunNeighbor(comm, &Within::Alltoallw, &Across::Alltoallw, sendbuf,
                sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  });
}

#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ineighbor_alltoallw", comm, [&] {
    *request = bdmpi::PlannedRequest(false, comm, &Within::Alltoallw, &Across::Alltoallw, sendbuf, sendcounts, sdispls,
                               sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  });
}

// Persistent (MPI-4.0): the plan is made once, each MPI_Start runs it.
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Neighbor_allgather_init", comm, [&] {
    *request = bdmpi::PlannedRequest(true, comm, &Within::Allgather, &Across::Allgather, sendbuf, sendcount, sendtype,
                               recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Neighbor_allgatherv_init", comm, [&] {
    *request = bdmpi::PlannedRequest(true, comm, &Within::Allgatherv, &Across::Allgatherv, sendbuf, sendcount, sendtype,
                               recvbuf, recvcounts, displs, recvtype, comm);
  });
}

#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Neighbor_alltoall_init", comm, [&] {
    *request =
        bdmpi::PlannedRequest(true, comm, &Within::Alltoall, &Across::Alltoall,
                        sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Neighbor_alltoallv_init", comm, [&] {
    *request = bdmpi::PlannedRequest(true, comm, &Within::Alltoallv, &Across::Alltoallv, sendbuf, sendcounts, sdispls,
                               sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  });
}

#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Neighbor_alltoallw_init", comm, [&] {
    *request = bdmpi::PlannedRequest(true, comm, &Within::Alltoallw, &Across::Alltoallw, sendbuf, sendcounts, sdispls,
                               sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  });
}

}  // extern "C"
