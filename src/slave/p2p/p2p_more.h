// Point-to-point beyond sends and receives: cancellation, request status
// without completion, and matched probes (MPI_Mprobe & co.) with their
// MPI_Message handles. The master's half is in src/master/p2p.cpp.
#pragma once

#include <mpi.h>

#include "slave/runtime/objects.h"

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

// Generalized requests (MPI_Grequest_start): MPI_Test says complete once
// MPI_Grequest_complete was called; MPI_Wait waits for that, asleep
// (another thread of the program completes it; generalized_wait.h). On completion the
// status comes from the query function, then the free function runs.
MPI_Request GrequestStart(MPI_Grequest_query_function* query,
                          MPI_Grequest_free_function* free,
                          MPI_Grequest_cancel_function* cancel, void* extra_state);
void GrequestComplete(MPI_Request request);
// For p2p.cpp: whether generalized request `pending` is complete now.
bool PollGeneralized(PendingRequest& pending);
// For p2p.cpp: waits until `request` (generalized) is complete.
void WaitGeneralized(MPI_Request request);
// Hands out a complete generalized request's status and frees it; returns
// the error of its query (or free) function.
int RetireGeneralized(MPI_Request* request, MPI_Status* status);
// MPI_Request_free of a generalized request.
void FreeGeneralized(MPI_Request* request);

}  // namespace bdmpi
