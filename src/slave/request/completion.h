// The calls that work on requests of any kind (request.h): completion as
// MPI_Wait, MPI_Test, ... do it, MPI_Start, MPI_Request_free, MPI_Cancel
// and MPI_Request_get_status.
#pragma once

#include <mpi.h>

namespace bdmpi {

// Complete (or test) requests as MPI_Wait, MPI_Test, ... do: a completed
// request becomes MPI_REQUEST_NULL (a persistent one inactive) and gets its
// status; null requests give empty statuses. They return the MPI error
// class of the operation (or kErrInStatus from the calls with one status
// per request, whose MPI_ERROR fields then tell which failed) and throw for
// invalid arguments.
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

// MPI_Start of a persistent request (MPI_Send_init, MPI_Bcast_init, ...).
void Start(MPI_Request* request);
// MPI_Request_free (also of persistent requests). A receive still in
// progress keeps its place in MPI's matching order; the message it takes
// is discarded (its buffer is never written: with the request gone nothing
// could tell when it would be).
void RequestFree(MPI_Request* request);
// MPI_Cancel: a receive still unmatched is withdrawn, and so is a send
// (MPI_Isend & co.) whose message waits unreceived on this node; anything
// else completes as usual (MPI_Test_cancelled then says false), such as a
// send whose message went to another node's master. An active collective's
// request is refused (kErrRequest), as Open MPI refuses it.
void Cancel(MPI_Request* request);
// MPI_Request_get_status: like MPI_Test, but the request stays.
int RequestGetStatus(MPI_Request request, int* flag, MPI_Status* status);

// The communicator a request (the first non-null of an array) was made on,
// for its error handler.
MPI_Comm RequestComm(MPI_Request request);
MPI_Comm RequestsComm(int count, const MPI_Request requests[]);

}  // namespace bdmpi
