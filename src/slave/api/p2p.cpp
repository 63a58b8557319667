// The extern "C" entry points of point-to-point communication (MPI-3.1
// chapter 3, MPI-4's MPI_Isendrecv): sends of every mode, receives,
// probes and matched probes, the attached buffer. Request completion is in
// request.cpp.
#include <mpi.h>

#include "common/error.h"
#include "slave/p2p/bsend_buffer.h"
#include "slave/p2p/p2p.h"
#include "slave/p2p/p2p_more.h"
#include "slave/request/completion.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/request_guard.h"

using bdmpi::Error;
using bdmpi::Guard;
using bdmpi::SendMode;

namespace {

bdmpi::BufferOwner CommBuffer(MPI_Comm comm) {
  return bdmpi::BufferOwner{bdmpi::BufferOwner::Kind::kComm, comm};
}

void ThrowIfTruncated(int error_class) {
  if (error_class != MPI_SUCCESS) throw Error(error_class, "message truncated");
}

}  // namespace

extern "C" {

// Every send is copied out by the runtime: the ready mode is an ordinary
// send, a buffered one must fit in what the attached buffer has left
// (slave/p2p/bsend_buffer.h), and a non-blocking send is complete when it
// returns; a synchronous one when a receive has taken its message.
#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) {
  return Guard("MPI_Send", comm,
               [&] { bdmpi::Send(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return Guard("MPI_Bsend", comm,
               [&] {
                 bdmpi::Send(buf, count, datatype, dest, tag, comm, bdmpi::SendMode::kBuffered);
               });
}

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return Guard("MPI_Ssend", comm, [&] {
    bdmpi::Send(buf, count, datatype, dest, tag, comm, SendMode::kSynchronous);
  });
}

#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return Guard("MPI_Rsend", comm,
               [&] { bdmpi::Send(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Isend", comm,
               [&] { *request = bdmpi::Isend(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ibsend", comm,
               [&] {
                 *request = bdmpi::Isend(buf, count, datatype, dest, tag, comm,
                                         bdmpi::SendMode::kBuffered);
               });
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Issend", comm, [&] {
    *request = bdmpi::Isend(buf, count, datatype, dest, tag, comm, SendMode::kSynchronous);
  });
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Irsend", comm,
               [&] { *request = bdmpi::Isend(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Send_init", comm,
               [&] { *request = bdmpi::SendInit(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Bsend_init", comm,
               [&] {
                 *request = bdmpi::SendInit(buf, count, datatype, dest, tag, comm,
                                            bdmpi::SendMode::kBuffered);
               });
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ssend_init", comm, [&] {
    *request = bdmpi::SendInit(buf, count, datatype, dest, tag, comm, SendMode::kSynchronous);
  });
}

#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Rsend_init", comm,
               [&] { *request = bdmpi::SendInit(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Recv_init", comm,
               [&] { *request = bdmpi::RecvInit(buf, count, datatype, source, tag, comm); });
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request* request) {
  return bdmpi::GuardRequest(
      "MPI_Start", [&] { return bdmpi::RequestComm(*request); },
      [&] { bdmpi::Start(request); });
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request requests[]) {
  return bdmpi::GuardRequest(
      "MPI_Startall", [&] { return bdmpi::RequestsComm(count, requests); },
      [&] {
        if (count < 0)
          throw Error(bdmpi::kErrCount, "negative count");
        for (int i = 0; i < count; ++i)
          bdmpi::Start(&requests[i]);
      });
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void* buffer, int size) {
  return Guard("MPI_Buffer_attach", MPI_COMM_WORLD,
               [&] { bdmpi::AttachBuffer(buffer, size); });
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  return Guard("MPI_Buffer_detach", MPI_COMM_WORLD,
               [&] { bdmpi::DetachBuffer(static_cast<void**>(buffer_addr), size); });
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status* status) {
  return Guard("MPI_Recv", comm,
               [&] { bdmpi::Recv(buf, count, datatype, source, tag, comm, status); });
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Irecv", comm, [&] {
    *request = bdmpi::Irecv(buf, count, datatype, source, tag, comm);
  });
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return Guard("MPI_Sendrecv", comm, [&] {
    // Sends are buffered, so sending first cannot deadlock.
    bdmpi::Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    bdmpi::Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
  });
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                         int sendtag, int source, int recvtag, MPI_Comm comm,
                         MPI_Status* status) {
  return Guard("MPI_Sendrecv_replace", comm, [&] {
    // The send has copied the buffer (into the master, its window or a
    // file) when it returns, so the receive may overwrite it.
    bdmpi::Send(buf, count, datatype, dest, sendtag, comm);
    bdmpi::Recv(buf, count, datatype, source, recvtag, comm, status);
  });
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return Guard("MPI_Probe", comm, [&] { bdmpi::Probe(source, tag, comm, status); });
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return Guard("MPI_Iprobe", comm,
               [&] { *flag = bdmpi::Iprobe(source, tag, comm, status); });
}

// Sends are copied out when they are made, so the send half of these is
// complete at once and the request is the receive's.
#pragma weak MPI_Isendrecv = PMPI_Isendrecv
int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Isendrecv", comm, [&] {
    bdmpi::Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    *request = bdmpi::Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm);
  });
}

#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                           int sendtag, int source, int recvtag, MPI_Comm comm,
                           MPI_Request* request) {
  return Guard("MPI_Isendrecv_replace", comm, [&] {
    bdmpi::Send(buf, count, datatype, dest, sendtag, comm);
    *request = bdmpi::Irecv(buf, count, datatype, source, recvtag, comm);
  });
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message,
                MPI_Status* status) {
  return Guard("MPI_Mprobe", comm,
               [&] { *message = bdmpi::Mprobe(source, tag, comm, status); });
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                 MPI_Status* status) {
  return Guard("MPI_Improbe", comm, [&] {
    *message = bdmpi::Improbe(source, tag, comm, status);
    *flag = *message != MPI_MESSAGE_NULL;
  });
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
               MPI_Status* status) {
  return Guard("MPI_Mrecv", bdmpi::MessageComm(*message), [&] {
    ThrowIfTruncated(bdmpi::Mrecv(buf, count, datatype, message, status));
  });
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Request* request) {
  return Guard("MPI_Imrecv", bdmpi::MessageComm(*message),
               [&] { *request = bdmpi::Imrecv(buf, count, datatype, message); });
}

#pragma weak MPI_Message_c2f = PMPI_Message_c2f
MPI_Fint PMPI_Message_c2f(MPI_Message message) { return static_cast<MPI_Fint>(message); }

#pragma weak MPI_Message_f2c = PMPI_Message_f2c
MPI_Message PMPI_Message_f2c(MPI_Fint message) { return static_cast<MPI_Message>(message); }

// Wait for the buffered messages to be received (slave/p2p/bsend_buffer.h).
#pragma weak MPI_Buffer_flush = PMPI_Buffer_flush
int PMPI_Buffer_flush(void) {
  return Guard("MPI_Buffer_flush", MPI_COMM_WORLD, [] {
    bdmpi::RequireInitialized();
    bdmpi::FlushBuffered(bdmpi::BufferOwner{});
  });
}

#pragma weak MPI_Buffer_iflush = PMPI_Buffer_iflush
int PMPI_Buffer_iflush(MPI_Request* request) {
  return Guard("MPI_Buffer_iflush", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    *request = bdmpi::IflushBuffered(bdmpi::BufferOwner{});
  });
}

// MPI-4.1: the buffers attached to a communicator.
#pragma weak MPI_Comm_attach_buffer = PMPI_Comm_attach_buffer
int PMPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
  return PMPI_Comm_attach_buffer_c(comm, buffer, size);
}

#pragma weak MPI_Comm_attach_buffer_c = PMPI_Comm_attach_buffer_c
int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
  return Guard("MPI_Comm_attach_buffer", comm, [&] {
    bdmpi::RequireInitialized();
    bdmpi::LookupComm(comm);
    bdmpi::AttachBuffer(CommBuffer(comm), buffer, size);
  });
}

#pragma weak MPI_Comm_detach_buffer = PMPI_Comm_detach_buffer
int PMPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
  MPI_Count wide = 0;
  int error = PMPI_Comm_detach_buffer_c(comm, buffer_addr, &wide);
  if (error == MPI_SUCCESS) *size = static_cast<int>(wide);
  return error;
}

#pragma weak MPI_Comm_detach_buffer_c = PMPI_Comm_detach_buffer_c
int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  return Guard("MPI_Comm_detach_buffer", comm, [&] {
    bdmpi::RequireInitialized();
    bdmpi::LookupComm(comm);
    bdmpi::DetachBuffer(CommBuffer(comm), static_cast<void**>(buffer_addr), size);
  });
}

#pragma weak MPI_Comm_flush_buffer = PMPI_Comm_flush_buffer
int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  return Guard("MPI_Comm_flush_buffer", comm, [&] {
    bdmpi::RequireInitialized();
    bdmpi::LookupComm(comm);
    bdmpi::FlushBuffered(CommBuffer(comm));
  });
}

#pragma weak MPI_Comm_iflush_buffer = PMPI_Comm_iflush_buffer
int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Comm_iflush_buffer", comm, [&] {
    bdmpi::RequireInitialized();
    bdmpi::LookupComm(comm);
    *request = bdmpi::IflushBuffered(CommBuffer(comm));
  });
}

}  // extern "C"
