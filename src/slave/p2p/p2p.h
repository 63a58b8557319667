// The slave's half of point-to-point; the master's half is
// src/master/p2p/p2p.cpp. Arguments are validated here; errors are thrown as
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
// made and complete at once, a receive posted). Completing, starting and
// freeing requests: request/completion.h.
MPI_Request SendInit(const void* buffer, int count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm, SendMode mode = SendMode::kStandard);
MPI_Request RecvInit(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm);
// MPI_Buffer_attach / detach (slave/p2p/bsend_buffer.cpp): detaching waits
// until the buffered messages have been received.
void AttachBuffer(void* buffer, int size);
void DetachBuffer(void** buffer, int* size);
void Probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
bool Iprobe(int source, int tag, MPI_Comm comm, MPI_Status* status);

}  // namespace bdmpi
