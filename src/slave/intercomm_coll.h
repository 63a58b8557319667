// Collectives on intercommunicators (MPI-3.1 5.2.2), built from
// point-to-point messages on the collective twin of the hidden
// communicator of both groups (intercomm.h), like those of coll_p2p.h.
// Rooted ones: the root passes MPI_ROOT, the rest of its group
// MPI_PROC_NULL, the other group the root's rank in the remote group.
// Data travels as wire bytes (wire_data.h), so any datatype works.
#pragma once

#include <mpi.h>

#include "slave/objects.h"

namespace bdmpi {

void InterBcast(void* buffer, int count, MPI_Datatype datatype, int root, const CommInfo& comm);
void InterReduce(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, const CommInfo& comm);
// Each group gets the reduction of the other group's data.
void InterAllreduce(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                    const CommInfo& comm);
// counts/displs null: the regular layout of `count` per block.
void InterGather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                 const int recvcounts[], const int displs[], int recvcount, MPI_Datatype recvtype,
                 int root, const CommInfo& comm);
void InterScatter(const void* send, const int sendcounts[], const int displs[], int sendcount,
                  MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype, int root,
                  const CommInfo& comm);
void InterAllgather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                    const int recvcounts[], const int displs[], int recvcount,
                    MPI_Datatype recvtype, const CommInfo& comm);
void InterAlltoall(const void* send, const int sendcounts[], const int sdispls[], int sendcount,
                   MPI_Datatype sendtype, void* recv, const int recvcounts[], const int rdispls[],
                   int recvcount, MPI_Datatype recvtype, const CommInfo& comm);

}  // namespace bdmpi
