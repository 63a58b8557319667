// The slave's half of point-to-point. A send stages its payload (window or
// spill file) and returns: it never blocks. A receive is posted to the
// master, which matches it in MPI order; waiting for it is the point where
// the slave may be descheduled.
#include "slave/p2p.h"

#include <limits>
#include <string>

#include "common/error.h"
#include "slave/errors.h"
#include "slave/objects.h"
#include "slave/runtime.h"

namespace bdmpi {
namespace {

constexpr int kTagUpperBound = std::numeric_limits<int>::max();

void CheckDest(const CommInfo& comm, int dest) {
  if (dest == MPI_PROC_NULL) return;
  if (dest < 0 || dest >= comm.size)
    throw Error(kErrRank, "destination rank " + std::to_string(dest) +
                              " is not in [0, " + std::to_string(comm.size) + ")");
}

void CheckSource(const CommInfo& comm, int source) {
  if (source == MPI_PROC_NULL || source == MPI_ANY_SOURCE) return;
  if (source < 0 || source >= comm.size)
    throw Error(kErrRank, "source rank " + std::to_string(source) +
                              " is not in [0, " + std::to_string(comm.size) + ")");
}

void CheckSendTag(int tag) {
  if (tag < 0 || tag > kTagUpperBound)
    throw Error(kErrTag, "tag " + std::to_string(tag) + " is negative");
}

void CheckRecvTag(int tag) {
  if (tag != MPI_ANY_TAG && tag < 0)
    throw Error(kErrTag, "tag " + std::to_string(tag) + " is negative");
}

// Copies a completed receive's data and status out of the master's reply.
int FinishRecv(const ReplyMsg& reply, void* buffer, std::uint64_t capacity,
               MPI_Status* status) {
  Runtime::Instance()->FetchPayload(reply, buffer, capacity);
  std::uint64_t received = reply.bytes < capacity ? reply.bytes : capacity;
  SetStatus(status, reply.source, reply.tag, reply.error, received);
  return reply.error;
}

RequestMsg RecvRequest(MsgType type, const CommInfo& comm, int source, int tag,
                       std::uint64_t capacity, std::uint64_t id) {
  RequestMsg request;
  request.type = type;
  request.comm = comm.id;
  request.rank = comm.rank;
  request.peer = source;
  request.tag = tag;
  request.bytes = capacity;
  request.id = id;
  return request;
}

void ThrowIfError(int error_class, const char* what) {
  if (error_class != MPI_SUCCESS) throw Error(error_class, what);
}

}  // namespace

void Send(const void* buffer, int count, MPI_Datatype datatype, int dest,
          int tag, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t bytes = BufferBytes(count, datatype);
  CheckSendTag(tag);
  CheckDest(comm, dest);
  if (dest == MPI_PROC_NULL) return;
  Runtime* runtime = Runtime::Instance();
  RequestMsg request;
  request.type = MsgType::kSend;
  request.comm = comm.id;
  request.rank = comm.rank;
  request.peer = dest;
  request.tag = tag;
  runtime->StagePayload(buffer, bytes, request);
  runtime->PostStaged(request);
}

void Recv(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
          MPI_Comm comm_handle, MPI_Status* status) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t capacity = BufferBytes(count, datatype);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  if (source == MPI_PROC_NULL) {
    SetStatus(status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return;
  }
  Runtime* runtime = Runtime::Instance();
  // Post and wait in one request (the master treats wants_reply as wait).
  ReplyMsg reply = runtime->Call(RecvRequest(MsgType::kPostRecv, comm, source,
                                             tag, capacity, runtime->NewRecvId()));
  ThrowIfError(FinishRecv(reply, buffer, capacity, status),
               "message longer than the receive buffer");
}

MPI_Request Irecv(void* buffer, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t capacity = BufferBytes(count, datatype);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  PendingRequest pending;
  pending.is_recv = true;
  pending.comm = comm_handle;
  pending.buffer = buffer;
  pending.capacity = capacity;
  if (source == MPI_PROC_NULL) {
    pending.done = true;
    SetStatus(&pending.status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return NewRequest(pending);
  }
  Runtime* runtime = Runtime::Instance();
  pending.id = runtime->NewRecvId();
  runtime->Post(RecvRequest(MsgType::kPostRecv, comm, source, tag, capacity, pending.id));
  return NewRequest(pending);
}

MPI_Request CompletedSendRequest(MPI_Comm comm) {
  PendingRequest pending;
  pending.comm = comm;
  pending.done = true;
  SetEmptyStatus(&pending.status);
  return NewRequest(pending);
}

void Probe(int source, int tag, MPI_Comm comm_handle, MPI_Status* status) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  if (source == MPI_PROC_NULL) {
    SetStatus(status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return;
  }
  ReplyMsg reply = Runtime::Instance()->Call(
      RecvRequest(MsgType::kProbe, comm, source, tag, 0, 0));
  SetStatus(status, reply.source, reply.tag, MPI_SUCCESS, reply.bytes);
}

bool Iprobe(int source, int tag, MPI_Comm comm_handle, MPI_Status* status) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  if (source == MPI_PROC_NULL) {
    SetStatus(status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return true;
  }
  ReplyMsg reply = Runtime::Instance()->Call(
      RecvRequest(MsgType::kIprobe, comm, source, tag, 0, 0));
  if (reply.flag) SetStatus(status, reply.source, reply.tag, MPI_SUCCESS, reply.bytes);
  return reply.flag != 0;
}

MPI_Comm RequestComm(MPI_Request request) {
  if (request == MPI_REQUEST_NULL) return MPI_COMM_WORLD;
  try {
    return LookupRequest(request).comm;
  } catch (const Error&) {
    return MPI_COMM_WORLD;
  }
}

int Test(MPI_Request* request, int* flag, MPI_Status* status) {
  RequireInitialized();
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  PendingRequest& pending = LookupRequest(*request);
  if (!pending.done) {
    const CommInfo& comm = LookupComm(pending.comm);
    ReplyMsg reply = Runtime::Instance()->Call(RecvRequest(
        MsgType::kTestRecv, comm, 0, 0, pending.capacity, pending.id));
    if (!reply.flag) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    FinishRecv(reply, pending.buffer, pending.capacity, &pending.status);
    pending.done = true;
  }
  *flag = 1;
  int error = pending.status.MPI_ERROR;
  if (status != MPI_STATUS_IGNORE) *status = pending.status;
  FreeRequest(*request);
  *request = MPI_REQUEST_NULL;
  return error;
}

int Wait(MPI_Request* request, MPI_Status* status) {
  RequireInitialized();
  if (*request == MPI_REQUEST_NULL) {
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  PendingRequest& pending = LookupRequest(*request);
  if (!pending.done) {
    const CommInfo& comm = LookupComm(pending.comm);
    ReplyMsg reply = Runtime::Instance()->Call(RecvRequest(
        MsgType::kWaitRecv, comm, 0, 0, pending.capacity, pending.id));
    FinishRecv(reply, pending.buffer, pending.capacity, &pending.status);
    pending.done = true;
  }
  int error = pending.status.MPI_ERROR;
  if (status != MPI_STATUS_IGNORE) *status = pending.status;
  FreeRequest(*request);
  *request = MPI_REQUEST_NULL;
  return error;
}

}  // namespace bdmpi
