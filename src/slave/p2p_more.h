// Point-to-point beyond sends and receives: cancellation, request status
// without completion, and matched probes (MPI_Mprobe & co.) with their
// MPI_Message handles. The master's half is in src/master/p2p.cpp.
#pragma once

#include <mpi.h>

namespace bdmpi {

// MPI_Cancel: a receive still unmatched is withdrawn, and so is a send
// (MPI_Isend & co.) whose message waits unreceived on this node; anything
// else completes as usual (MPI_Test_cancelled then says false), such as a
// send whose message went to another node's master.
void Cancel(MPI_Request* request);
// MPI_Request_get_status: like MPI_Test, but the request stays.
int RequestGetStatus(MPI_Request request, int* flag, MPI_Status* status);

// Matched probes: the message found leaves matching (no other receive can
// take it) and is received only through its MPI_Message.
MPI_Message Mprobe(int source, int tag, MPI_Comm comm, MPI_Status* status);
// MPI_MESSAGE_NULL when there is none.
MPI_Message Improbe(int source, int tag, MPI_Comm comm, MPI_Status* status);
// Returns the message's error class (MPI_ERR_TRUNCATE); *message becomes
// MPI_MESSAGE_NULL.
int Mrecv(void* buffer, int count, MPI_Datatype datatype, MPI_Message* message,
          MPI_Status* status);
// The message is at hand already, so the request is complete at once.
MPI_Request Imrecv(void* buffer, int count, MPI_Datatype datatype, MPI_Message* message);
// The communicator a message was probed on, for its error handler.
MPI_Comm MessageComm(MPI_Message message);

}  // namespace bdmpi
