// The slave's half of point-to-point; the master's half is
// src/master/p2p.cpp. Arguments are validated here; errors are thrown as
// bdmpi::Error with the MPI error class.
#pragma once

#include <mpi.h>

#include "slave/runtime/objects.h"

namespace bdmpi {

// Sends of every SendMode (slave/runtime/objects.h); MPI_Ssend blocks until a
// receive on the destination has taken its message.
void Send(const void* buffer, int count, MPI_Datatype datatype, int dest,
          int tag, MPI_Comm comm, SendMode mode = SendMode::kStandard);
void Recv(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
          MPI_Comm comm, MPI_Status* status);
MPI_Request Irecv(void* buffer, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm);
// MPI_Isend: sends are buffered, so the request is complete at once
// (unless synchronous).
MPI_Request Isend(const void* buffer, int count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm, SendMode mode = SendMode::kStandard);
// Persistent requests: made inactive; MPI_Start starts one (a send is then
// made and complete at once, a receive posted).
MPI_Request SendInit(const void* buffer, int count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm, SendMode mode = SendMode::kStandard);
MPI_Request RecvInit(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm);
void Start(MPI_Request* request);
// MPI_Buffer_attach / detach (slave/p2p/bsend_buffer.cpp): detaching waits
// until the buffered messages have been received.
void AttachBuffer(void* buffer, int size);
void DetachBuffer(void** buffer, int* size);
void Probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
bool Iprobe(int source, int tag, MPI_Comm comm, MPI_Status* status);

// Complete (or test) requests as MPI_Wait, MPI_Test, ... do: a completed
// request becomes MPI_REQUEST_NULL and gets its status; null requests give
// empty statuses. They return the MPI error class of the operation (or
// kErrInStatus from the calls with one status per request, whose MPI_ERROR
// fields then tell which failed) and throw for invalid arguments.
int Wait(MPI_Request* request, MPI_Status* status);
int Test(MPI_Request* request, int* flag, MPI_Status* status);
int Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status);
int Testany(int count, MPI_Request requests[], int* index, int* flag,
            MPI_Status* status);
int Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]);
int Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]);
int Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]);
// MPI_Request_free (also of persistent requests). A receive still in progress keeps its place in MPI's
// matching order; the message it takes is discarded (its buffer is never
// written: with the request gone nothing could tell when it would be).
void RequestFree(MPI_Request* request);

// The communicator a request (the first non-null of an array) was made on,
// for its error handler.
MPI_Comm RequestComm(MPI_Request request);
MPI_Comm RequestsComm(int count, const MPI_Request requests[]);

}  // namespace bdmpi
