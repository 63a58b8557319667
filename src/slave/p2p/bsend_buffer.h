// The buffers of buffered sends: the process's (MPI_Buffer_attach) and,
// since MPI-4.1, one per communicator (MPI_Comm_attach_buffer) and per
// session (MPI_Session_attach_buffer). A buffered send on a communicator
// uses the communicator's buffer, else that of the session it derives
// from, else the process's. The runtime copies every message out when it
// is sent, but a buffered message counts against its buffer, as MPI says,
// until a receive on its destination has taken it (the master tells, as
// for a synchronous send): a buffered send that does not fit fails with
// MPI_ERR_BUFFER, and detaching and flushing wait until every one is
// received. A buffer attached as MPI_BUFFER_AUTOMATIC has no limit (the
// runtime's copies are its automatic buffer).
#pragma once

#include <mpi.h>

#include <cstdint>

namespace bdmpi {

// Whose buffer: the process's, a communicator's or a session's.
struct BufferOwner {
  enum class Kind { kProcess, kComm, kSession };
  Kind kind = Kind::kProcess;
  int handle = 0;  // the communicator or session
  bool operator==(const BufferOwner&) const = default;
};

void AttachBuffer(BufferOwner owner, void* buffer, MPI_Count size);
// Waits until the buffer's messages have been received.
void DetachBuffer(BufferOwner owner, void** buffer, MPI_Count* size);
// Blocks until every message buffered in the owner's buffer has been
// received (MPI_Buffer_flush, MPI_Comm_flush_buffer, ...).
void FlushBuffered(BufferOwner owner);
// The nonblocking form: a request complete when the messages buffered now
// have been received.
MPI_Request IflushBuffered(BufferOwner owner);
// A communicator is freed or a session finalized: its buffer, if any,
// goes without waiting (the runtime holds the messages' copies).
void DropBuffer(BufferOwner owner);

// Room for a buffered message of `bytes` wire bytes sent on `comm`, or
// MPI_ERR_BUFFER; returns the buffer that holds it.
BufferOwner ReserveBuffered(MPI_Comm comm, std::uint64_t bytes);
// The message was posted as send `id`: it holds its room until matched.
void RecordBuffered(BufferOwner owner, std::uint64_t id, std::uint64_t bytes);
// Send `id` was cancelled: its room is free.
void ForgetBuffered(std::uint64_t id);

}  // namespace bdmpi
