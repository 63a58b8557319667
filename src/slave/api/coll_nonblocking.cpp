// The extern "C" entry points of the nonblocking and persistent
// collectives (MPI-3 MPI_I*, MPI-4 MPI_*_init): each builds the plan of its
// collective (coll/nbc_plans.h) and starts it once, or keeps it for
// MPI_Start.
#include <mpi.h>

#include <type_traits>

#include "slave/coll/coll_p2p.h"
#include "slave/coll/collectives.h"
#include "slave/coll/nbc.h"
#include "slave/coll/nbc_plans.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/cross_job_coll.h"
#include "slave/runtime/errors.h"

using bdmpi::Guard;
using bdmpi::PlannedRequest;

extern "C" {

// --------------------------------------------- nonblocking collectives

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ibarrier", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::BarrierPlan, &bdmpi::CrossBarrierPlan, comm);
  });
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request* request) {
  return Guard("MPI_Ibcast", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::BcastPlan, &bdmpi::CrossBcastPlan, buffer, count,
                              datatype, root, comm);
  });
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ireduce", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::ReducePlan, &bdmpi::CrossReducePlan, sendbuf,
                              recvbuf, count, datatype, op, root, comm);
  });
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Iallreduce", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::AllreducePlan, &bdmpi::CrossAllreducePlan,
                              sendbuf, recvbuf, count, datatype, op, comm);
  });
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  return Guard("MPI_Igather", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::GatherPlan, &bdmpi::CrossGatherPlan, sendbuf,
                              sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Igatherv", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::GathervPlan<int, int>, &bdmpi::CrossGathervPlan,
                              sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              root, comm);
  });
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return Guard("MPI_Iscatter", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::ScatterPlan, &bdmpi::CrossScatterPlan, sendbuf,
                              sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Iscatterv", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::ScattervPlan<int, int>,
                              &bdmpi::CrossScattervPlan, sendbuf, sendcounts, displs, sendtype,
                              recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Iallgather", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::AllgatherPlan, &bdmpi::CrossAllgatherPlan,
                              sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Iallgatherv", comm, [&] {
    *request =
        PlannedRequest(false, comm, &bdmpi::AllgathervPlan<int, int>, &bdmpi::CrossAllgathervPlan,
                       sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  });
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ialltoall", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::AlltoallPlan, &bdmpi::CrossAlltoallPlan, sendbuf,
                              sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  return Guard("MPI_Ialltoallv", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::AlltoallvPlan<int, int>,
                              &bdmpi::CrossAlltoallvPlan, sendbuf, sendcounts, sdispls, sendtype,
                              recvbuf, recvcounts, rdispls, recvtype, comm);
  });
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request* request) {
  return Guard("MPI_Ialltoallw", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::AlltoallwPlan<int, int>,
                              &bdmpi::CrossAlltoallwPlan, sendbuf, sendcounts, sdispls, sendtypes,
                              recvbuf, recvcounts, rdispls, recvtypes, comm);
  });
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ireduce_scatter", comm, [&] {
    *request =
        PlannedRequest(false, comm, &bdmpi::ReduceScatterPlan, &bdmpi::CrossReduceScatterPlan,
                       sendbuf, recvbuf, recvcounts, datatype, op, comm);
  });
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request* request) {
  return Guard("MPI_Ireduce_scatter_block", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::ReduceScatterBlockPlan,
                              &bdmpi::CrossReduceScatterBlockPlan, sendbuf, recvbuf, recvcount,
                              datatype, op, comm);
  });
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Iscan", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::ScanPlan, &bdmpi::CrossScanPlan, sendbuf,
                              recvbuf, count, datatype, op, comm);
  });
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Iexscan", comm, [&] {
    *request = PlannedRequest(false, comm, &bdmpi::ExscanPlan, &bdmpi::CrossExscanPlan, sendbuf,
                              recvbuf, count, datatype, op, comm);
  });
}

// -------------------------------------- persistent collectives (MPI-4)

#pragma weak MPI_Barrier_init = PMPI_Barrier_init
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Barrier_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::BarrierPlan, &bdmpi::CrossBarrierPlan, comm);
  });
}

#pragma weak MPI_Bcast_init = PMPI_Bcast_init
int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info, MPI_Request* request) {
  return Guard("MPI_Bcast_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::BcastPlan, &bdmpi::CrossBcastPlan, buffer, count,
                              datatype, root, comm);
  });
}

#pragma weak MPI_Reduce_init = PMPI_Reduce_init
int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Reduce_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::ReducePlan, &bdmpi::CrossReducePlan, sendbuf,
                              recvbuf, count, datatype, op, root, comm);
  });
}

#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Allreduce_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::AllreducePlan, &bdmpi::CrossAllreducePlan,
                              sendbuf, recvbuf, count, datatype, op, comm);
  });
}

#pragma weak MPI_Gather_init = PMPI_Gather_init
int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                     MPI_Request* request) {
  return Guard("MPI_Gather_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::GatherPlan, &bdmpi::CrossGatherPlan, sendbuf,
                              sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Gatherv_init", comm, [&] {
    *request =
        PlannedRequest(true, comm, &bdmpi::GathervPlan<int, int>, &bdmpi::CrossGathervPlan, sendbuf,
                       sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  });
}

#pragma weak MPI_Scatter_init = PMPI_Scatter_init
int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                      MPI_Request* request) {
  return Guard("MPI_Scatter_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::ScatterPlan, &bdmpi::CrossScatterPlan, sendbuf,
                              sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Scatterv_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::ScattervPlan<int, int>, &bdmpi::CrossScattervPlan,
                              sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                              root, comm);
  });
}

#pragma weak MPI_Allgather_init = PMPI_Allgather_init
int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return Guard("MPI_Allgather_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::AllgatherPlan, &bdmpi::CrossAllgatherPlan,
                              sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Allgatherv_init", comm, [&] {
    *request =
        PlannedRequest(true, comm, &bdmpi::AllgathervPlan<int, int>, &bdmpi::CrossAllgathervPlan,
                       sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  });
}

#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                       MPI_Request* request) {
  return Guard("MPI_Alltoall_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::AlltoallPlan, &bdmpi::CrossAlltoallPlan, sendbuf,
                              sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return Guard("MPI_Alltoallv_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::AlltoallvPlan<int, int>,
                              &bdmpi::CrossAlltoallvPlan, sendbuf, sendcounts, sdispls, sendtype,
                              recvbuf, recvcounts, rdispls, recvtype, comm);
  });
}

#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info, MPI_Request* request) {
  return Guard("MPI_Alltoallw_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::AlltoallwPlan<int, int>,
                              &bdmpi::CrossAlltoallwPlan, sendbuf, sendcounts, sdispls, sendtypes,
                              recvbuf, recvcounts, rdispls, recvtypes, comm);
  });
}

#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                             MPI_Request* request) {
  return Guard("MPI_Reduce_scatter_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::ReduceScatterPlan, &bdmpi::CrossReduceScatterPlan,
                              sendbuf, recvbuf, recvcounts, datatype, op, comm);
  });
}

#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                                   MPI_Request* request) {
  return Guard("MPI_Reduce_scatter_block_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::ReduceScatterBlockPlan,
                              &bdmpi::CrossReduceScatterBlockPlan, sendbuf, recvbuf, recvcount,
                              datatype, op, comm);
  });
}

#pragma weak MPI_Scan_init = PMPI_Scan_init
int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Scan_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::ScanPlan, &bdmpi::CrossScanPlan, sendbuf, recvbuf,
                              count, datatype, op, comm);
  });
}

#pragma weak MPI_Exscan_init = PMPI_Exscan_init
int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return Guard("MPI_Exscan_init", comm, [&] {
    *request = PlannedRequest(true, comm, &bdmpi::ExscanPlan, &bdmpi::CrossExscanPlan, sendbuf,
                              recvbuf, count, datatype, op, comm);
  });
}

}  // extern "C"
