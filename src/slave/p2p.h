// The slave's half of point-to-point; the master's half is
// src/master/p2p.cpp. Arguments are validated here; errors are thrown as
// bdmpi::Error with the MPI error class.
#pragma once

#include <mpi.h>

namespace bdmpi {

void Send(const void* buffer, int count, MPI_Datatype datatype, int dest,
          int tag, MPI_Comm comm);
void Recv(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
          MPI_Comm comm, MPI_Status* status);
MPI_Request Irecv(void* buffer, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm);
// MPI_Isend: sends are buffered, so the request is complete at once.
MPI_Request CompletedSendRequest(MPI_Comm comm);
void Probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
bool Iprobe(int source, int tag, MPI_Comm comm, MPI_Status* status);

// Complete (or test) a request; *request becomes MPI_REQUEST_NULL when it
// completes. Return the MPI error class found in the request's status.
int Wait(MPI_Request* request, MPI_Status* status);
int Test(MPI_Request* request, int* flag, MPI_Status* status);

// The communicator a request was made on, for its error handler.
MPI_Comm RequestComm(MPI_Request request);

}  // namespace bdmpi
