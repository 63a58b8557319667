// The extern "C" entry points of the blocking collectives (MPI-3.1
// chapter 5) and of reduction operations. Their nonblocking and persistent
// forms are in coll_nonblocking.cpp.
#include <mpi.h>

#include "slave/coll/coll_p2p.h"
#include "slave/coll/collectives.h"
#include "slave/coll/nbc.h"
#include "slave/coll/nbc_plans.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/cross_job_coll.h"
#include "slave/runtime/errors.h"

using bdmpi::Guard;

extern "C" {

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm) {
  return Guard("MPI_Barrier", comm, [&] { bdmpi::Barrier(comm); });
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return Guard("MPI_Bcast", comm,
               [&] { bdmpi::Bcast(buffer, count, datatype, root, comm); });
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
               MPI_Op op, int root, MPI_Comm comm) {
  return Guard("MPI_Reduce", comm, [&] {
    bdmpi::Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  });
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  return Guard("MPI_Allreduce", comm, [&] {
    bdmpi::Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  });
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Guard("MPI_Gather", comm, [&] {
    bdmpi::Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  return Guard("MPI_Gatherv", comm, [&] {
    bdmpi::Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                   comm);
  });
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Guard("MPI_Scatter", comm, [&] {
    bdmpi::Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  return Guard("MPI_Scatterv", comm, [&] {
    bdmpi::Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm);
  });
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Allgather", comm, [&] {
    bdmpi::Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  return Guard("MPI_Allgatherv", comm, [&] {
    bdmpi::Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                      comm);
  });
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Alltoall", comm, [&] {
    bdmpi::Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Alltoallv", comm, [&] {
    bdmpi::Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm);
  });
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return Guard("MPI_Alltoallw", comm, [&] {
    if (bdmpi::CrossJob(comm) != nullptr)
      return bdmpi::RunCross(bdmpi::CrossAlltoallwPlan(
          sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm));
    bdmpi::Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm);
  });
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
  return Guard("MPI_Scan", comm,
               [&] { bdmpi::Scan(sendbuf, recvbuf, count, datatype, op, comm); });
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm) {
  return Guard("MPI_Exscan", comm,
               [&] { bdmpi::Exscan(sendbuf, recvbuf, count, datatype, op, comm); });
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Guard("MPI_Reduce_scatter_block", comm, [&] {
    if (bdmpi::CrossJob(comm) != nullptr)
      return bdmpi::RunCross(
          bdmpi::CrossReduceScatterBlockPlan(sendbuf, recvbuf, recvcount, datatype, op, comm));
    bdmpi::ReduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, comm);
  });
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Guard("MPI_Reduce_scatter", comm, [&] {
    if (bdmpi::CrossJob(comm) != nullptr)
      return bdmpi::RunCross(
          bdmpi::CrossReduceScatterPlan(sendbuf, recvbuf, recvcounts, datatype, op, comm));
    bdmpi::ReduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  });
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return Guard("MPI_Op_create", MPI_COMM_WORLD,
               [&] { *op = bdmpi::OpCreate(user_fn, commute); });
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op* op) {
  return Guard("MPI_Op_free", MPI_COMM_WORLD, [&] { bdmpi::OpFree(op); });
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op) {
  return Guard("MPI_Reduce_local", MPI_COMM_WORLD,
               [&] { bdmpi::ReduceLocal(inbuf, inoutbuf, count, datatype, op); });
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int* commute) {
  return Guard("MPI_Op_commutative", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    *commute = bdmpi::OpCommutative(op) ? 1 : 0;
  });
}

}  // extern "C"
