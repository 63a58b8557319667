// The extern "C" entry points of partitioned communication (MPI 4.1
// chapter 4); see p2p/partitioned.h. MPI_Start(all), MPI_Wait, MPI_Test and
// MPI_Request_free serve these requests as any other (request/completion.h).
#include <mpi.h>

#include "common/error.h"
#include "slave/p2p/partitioned.h"
#include "slave/request/completion.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/request_guard.h"

using bdmpi::Guard;

extern "C" {

#pragma weak MPI_Psend_init = PMPI_Psend_init
int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return Guard("MPI_Psend_init", comm, [&] {
    *request = bdmpi::PsendInit(buf, partitions, count, datatype, dest, tag, comm, info);
  });
}

#pragma weak MPI_Precv_init = PMPI_Precv_init
int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return Guard("MPI_Precv_init", comm, [&] {
    *request = bdmpi::PrecvInit(buf, partitions, count, datatype, source, tag, comm, info);
  });
}

#pragma weak MPI_Pready = PMPI_Pready
int PMPI_Pready(int partition, MPI_Request request) {
  return bdmpi::GuardRequest(
      "MPI_Pready", [&] { return bdmpi::RequestComm(request); },
      [&] { bdmpi::Pready(partition, partition, request); });
}

#pragma weak MPI_Pready_range = PMPI_Pready_range
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  return bdmpi::GuardRequest(
      "MPI_Pready_range", [&] { return bdmpi::RequestComm(request); },
      [&] { bdmpi::Pready(partition_low, partition_high, request); });
}

#pragma weak MPI_Pready_list = PMPI_Pready_list
int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  return bdmpi::GuardRequest(
      "MPI_Pready_list", [&] { return bdmpi::RequestComm(request); },
      [&] { bdmpi::PreadyList(length, array_of_partitions, request); });
}

#pragma weak MPI_Parrived = PMPI_Parrived
int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  return bdmpi::GuardRequest(
      "MPI_Parrived", [&] { return bdmpi::RequestComm(request); },
      [&] { *flag = bdmpi::Parrived(request, partition) ? 1 : 0; });
}

}  // extern "C"
