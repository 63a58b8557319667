// The buffer of MPI_Buffer_attach and the buffered messages it holds.
// The runtime copies every message out when it is sent, but a buffered
// message counts against the attached buffer, as MPI says, until a receive
// on its destination has taken it (the master tells, as for a synchronous
// send): a buffered send that does not fit fails with MPI_ERR_BUFFER, and
// MPI_Buffer_detach and MPI_Buffer_flush wait until every one is received.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace bdmpi {

// Room for a buffered message of `bytes` wire bytes, or MPI_ERR_BUFFER.
void ReserveBuffered(std::uint64_t bytes);
// The message was posted as send `id`: it holds its room until matched.
void RecordBuffered(std::uint64_t id, std::uint64_t bytes);
// Send `id` was cancelled: its room is free.
void ForgetBuffered(std::uint64_t id);
// Blocks until every buffered message has been received (MPI_Buffer_flush).
void FlushBuffered();
// MPI_Buffer_iflush: a request complete when the messages buffered now
// have been received.
MPI_Request IflushBuffered();

}  // namespace bdmpi
