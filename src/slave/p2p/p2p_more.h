// Point-to-point beyond sends and receives: matched probes (MPI_Mprobe &
// co.) with their MPI_Message handles, and the cancellation of a
// point-to-point request (P2pRequest::Cancel, p2p_internal.h). The master's
// half is in src/master/p2p/p2p.cpp.
#pragma once

#include <mpi.h>

#include "slave/runtime/objects.h"

namespace bdmpi {

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
