// The slave's half of the collectives (two phases, paper 5.4): deposit this
// rank's part with the master, then wait for the result. The master's half
// is in src/master/{collective,bcast,reduce}.cpp.
#pragma once

#include <mpi.h>

namespace bdmpi {

void Barrier(MPI_Comm comm);
void Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
void Reduce(const void* send, void* recv, int count, MPI_Datatype datatype,
            MPI_Op op, int root, MPI_Comm comm);
void Allreduce(const void* send, void* recv, int count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm);

// Built from point-to-point messages (coll_p2p.h).
void Gather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm);
void Gatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm);
void Scatter(const void* send, int sendcount, MPI_Datatype sendtype, void* recv, int recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm);
void Scatterv(const void* send, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Comm comm);
void Allgather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void Allgatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                MPI_Comm comm);
void Alltoall(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void Alltoallv(const void* send, const int sendcounts[], const int sdispls[],
               MPI_Datatype sendtype, void* recv, const int recvcounts[], const int rdispls[],
               MPI_Datatype recvtype, MPI_Comm comm);
void Alltoallw(const void* send, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recv, const int recvcounts[],
               const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
void Scan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
          MPI_Comm comm);
void Exscan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm);
void ReduceScatterBlock(const void* send, void* recv, int recvcount, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm);
void ReduceScatter(const void* send, void* recv, const int recvcounts[], MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm);

}  // namespace bdmpi
