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

}  // namespace bdmpi
