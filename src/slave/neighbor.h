// Neighbourhood collectives (MPI-3.1 7.6) on communicators with a
// topology, built from point-to-point messages on the communicator's
// collective twin as the collectives of coll_p2p.h are: each rank sends to
// its out-neighbours, then receives from its in-neighbours; MPI_PROC_NULL
// neighbours of a Cartesian grid are skipped (their blocks untouched).
#pragma once

#include <mpi.h>

namespace bdmpi {

void NeighborAllgather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void NeighborAllgatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm);
void NeighborAlltoall(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void NeighborAlltoallv(const void* send, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recv, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
// Displacements in bytes, a datatype per block.
void NeighborAlltoallw(const void* send, const int sendcounts[], const MPI_Aint sdispls[],
                       const MPI_Datatype sendtypes[], void* recv, const int recvcounts[],
                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

}  // namespace bdmpi
