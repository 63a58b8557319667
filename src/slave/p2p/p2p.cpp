// The slave's half of point-to-point. A send stages its payload (window or
// spill file) and returns; only a synchronous one then waits for its
// match. A receive is posted to the master, which matches it in MPI order;
// waiting for it is the point where the slave may be descheduled.
#include "slave/p2p/p2p.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/coll/nbc.h"
#include "slave/p2p/bsend_buffer.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/p2p/p2p_more.h"
#include "slave/p2p/wire_data.h"
#include "slave/request/generalized_wait.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

constexpr int kTagUpperBound = std::numeric_limits<int>::max();

void CheckDest(const CommInfo& comm, int dest) {
  if (dest == MPI_PROC_NULL) return;
  if (dest < 0 || dest >= comm.PeerGroupSize())
    throw Error(kErrRank, "destination rank " + std::to_string(dest) +
                              " is not in [0, " + std::to_string(comm.PeerGroupSize()) + ")");
}

void CheckSendTag(int tag) {
  if (tag < 0 || tag > kTagUpperBound)
    throw Error(kErrTag, "tag " + std::to_string(tag) + " is negative");
}

}  // namespace

void CheckSource(const CommInfo& comm, int source) {
  if (source == MPI_PROC_NULL || source == MPI_ANY_SOURCE) return;
  if (source < 0 || source >= comm.PeerGroupSize())
    throw Error(kErrRank, "source rank " + std::to_string(source) +
                              " is not in [0, " + std::to_string(comm.PeerGroupSize()) + ")");
}

void CheckRecvTag(int tag) {
  if (tag != MPI_ANY_TAG && tag < 0)
    throw Error(kErrTag, "tag " + std::to_string(tag) + " is negative");
}

// Copies a completed receive's data and status out of the master's reply
// (unpacking it when `scattered`, see wire_data.h).
// `comm`: for the source's number (an intercommunicator's remote rank).
int FinishRecv(const ReplyMsg& reply, void* buffer, int count, const TypeInfo* scattered,
               std::uint64_t capacity, MPI_Status* status, const CommInfo* comm) {
  FetchInto(reply, buffer, count, scattered, capacity);
  std::uint64_t received = reply.bytes < capacity ? reply.bytes : capacity;
  int source = comm != nullptr ? comm->UserSource(reply.source) : reply.source;
  SetStatus(status, source, reply.tag, reply.error, received);
  return reply.error;
}

void SetResult(MPI_Status* status, int source, int tag, std::uint64_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  int error = status->MPI_ERROR;
  SetStatus(status, source, tag, MPI_SUCCESS, bytes);
  status->MPI_ERROR = error;
}

void CopyResult(MPI_Status* to, const MPI_Status& from) {
  if (to == MPI_STATUS_IGNORE) return;
  int error = to->MPI_ERROR;
  *to = from;
  to->MPI_ERROR = error;
}

RequestMsg RecvRequest(MsgType type, const CommInfo& comm, int source, int tag,
                       std::uint64_t capacity, std::uint64_t id) {
  RequestMsg request;
  request.type = type;
  request.comm = comm.id;
  request.rank = comm.WireRank();
  request.peer = comm.WirePeer(source);
  request.tag = tag;
  request.bytes = capacity;
  request.id = id;
  return request;
}

// A null buffer with data to move: MPI_ERR_BUFFER, as Open MPI returns
// (its OMPI_CHECK_USER_BUFFER), instead of a crash in memcpy. Only for
// dense types: a type with gaps may hold absolute addresses (MPI_BOTTOM).
void CheckBuffer(const void* buffer, std::uint64_t bytes, MPI_Datatype datatype) {
  if (buffer == nullptr && bytes > 0 && LookupType(datatype).Dense())
    throw Error(kErrBuffer, "a null buffer for " + std::to_string(bytes) + " bytes");
}

void ThrowIfError(int error_class, const char* what) {
  if (error_class != MPI_SUCCESS) throw Error(error_class, what);
}

RequestMsg IdRequest(MsgType type, std::uint64_t id) {
  RequestMsg request;
  request.type = type;
  request.id = id;
  return request;
}

namespace {

// Stages a message for the master. A send with a request (`named`), a
// synchronous or a buffered one gets an id: MPI_Cancel names the send by
// it, and the master completes a synchronous or buffered one's id when a
// receive takes it. Returns the id (0: none).
std::uint64_t PostSend(const void* buffer, int count, MPI_Datatype datatype, int dest,
                       int tag, MPI_Comm comm_handle, SendMode mode, bool named) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t bytes = WireBytes(count, datatype);
  CheckSendTag(tag);
  CheckDest(comm, dest);
  CheckBuffer(buffer, bytes, datatype);
  if (mode == SendMode::kBuffered) ReserveBuffered(bytes);
  if (dest == MPI_PROC_NULL) return 0;
  WireData wire = ToWire(buffer, count, datatype);
  Runtime* runtime = Runtime::Instance();
  RequestMsg request;
  request.type = MsgType::kSend;
  request.comm = comm.id;
  request.rank = comm.WireRank();
  request.peer = comm.WirePeer(dest);
  request.tag = tag;
  if (named || mode != SendMode::kStandard) request.id = runtime->NewRecvId();
  // A buffered message also wants to know when it is matched: until then
  // it holds its room in the attached buffer.
  if (mode != SendMode::kStandard) request.code = kSynchronousSend;
  // Straight into the receive buffer when the receive is posted on this
  // node (runtime_placed.cpp); a synchronous or buffered send waits for
  // its match's notice, which the usual path gives.
  int dest_world = comm.inter ? comm.remote_world_ranks[dest] : comm.WorldRank(dest);
  if (mode == SendMode::kStandard &&
      runtime->TryPlace(wire.data, wire.bytes, request, dest_world))
    return request.id;
  runtime->StagePayload(wire.data, wire.bytes, request);
  runtime->PostStaged(request);
  if (mode == SendMode::kBuffered) RecordBuffered(request.id, wire.bytes);
  return request.id;
}

}  // namespace

void Send(const void* buffer, int count, MPI_Datatype datatype, int dest,
          int tag, MPI_Comm comm_handle, SendMode mode) {
  std::uint64_t id = PostSend(buffer, count, datatype, dest, tag, comm_handle, mode,
                              /*named=*/false);
  // A synchronous send is a blocking point: the rank waits, like a
  // receive, until the destination takes the message.
  if (mode == SendMode::kSynchronous && id != 0)
    Runtime::Instance()->Call(IdRequest(MsgType::kWaitSsend, id));
}

void Recv(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
          MPI_Comm comm_handle, MPI_Status* status) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t capacity = WireBytes(count, datatype);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  CheckBuffer(buffer, capacity, datatype);
  if (source == MPI_PROC_NULL) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return;
  }
  Runtime* runtime = Runtime::Instance();
  const TypeInfo& type = LookupType(datatype);
  // Post and wait in one request (the master treats wants_reply as wait).
  RequestMsg request =
      RecvRequest(MsgType::kPostRecv, comm, source, tag, capacity, runtime->NewRecvId());
  request.file_id = runtime->PlaceableAddress(buffer, capacity, type.Dense());
  ReplyMsg reply = runtime->Call(request);
  MPI_Status received;
  int error = FinishRecv(reply, buffer, count, type.Dense() ? nullptr : &type, capacity,
                         &received, &comm);
  CopyResult(status, received);
  ThrowIfError(error, "message longer than the receive buffer");
}

namespace {

// A receive request for these arguments, checked, not started.
PendingRequest RecvRequestFor(void* buffer, int count, MPI_Datatype datatype, int source,
                              int tag, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  PendingRequest pending;
  pending.is_recv = true;
  pending.comm = comm_handle;
  pending.buffer = buffer;
  pending.capacity = WireBytes(count, datatype);
  pending.count = count;
  pending.layout = ScatteredLayout(datatype);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  CheckBuffer(buffer, pending.capacity, datatype);
  pending.peer = source;
  pending.tag = tag;
  return pending;
}

// A send request for these arguments, checked, not started.
PendingRequest SendRequestFor(const void* buffer, int count, MPI_Datatype datatype,
                              int dest, int tag, MPI_Comm comm_handle, SendMode mode) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t bytes = WireBytes(count, datatype);
  CheckSendTag(tag);
  CheckDest(comm, dest);
  CheckBuffer(buffer, bytes, datatype);
  PendingRequest pending;
  pending.comm = comm_handle;
  pending.send_buffer = buffer;
  pending.count = count;
  pending.datatype = datatype;
  pending.peer = dest;
  pending.tag = tag;
  pending.mode = mode;
  return pending;
}

// Posts the receive to the master (or completes one from MPI_PROC_NULL).
void StartRecv(PendingRequest& pending) {
  pending.active = true;
  if (pending.peer == MPI_PROC_NULL) {
    pending.done = true;
    SetStatus(&pending.status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return;
  }
  pending.done = false;
  const CommInfo& comm = LookupComm(pending.comm);
  Runtime* runtime = Runtime::Instance();
  pending.id = runtime->NewRecvId();
  RequestMsg request = RecvRequest(MsgType::kPostRecv, comm, pending.peer, pending.tag,
                                   pending.capacity, pending.id);
  request.file_id =
      runtime->PlaceableAddress(pending.buffer, pending.capacity, pending.layout == nullptr);
  runtime->Post(request);
}

// Sends are buffered: the request is complete as soon as it is started,
// unless it is synchronous; then the master completes its id when the
// message is matched.
void StartSend(PendingRequest& pending) {
  pending.id = PostSend(pending.send_buffer, pending.count, pending.datatype, pending.peer,
                        pending.tag, pending.comm, pending.mode, /*named=*/true);
  pending.active = true;
  pending.done = pending.mode != SendMode::kSynchronous || pending.id == 0;
  SetEmptyStatus(&pending.status);
}

}  // namespace

MPI_Request Irecv(void* buffer, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm_handle) {
  PendingRequest pending = RecvRequestFor(buffer, count, datatype, source, tag, comm_handle);
  StartRecv(pending);
  return NewRequest(pending);
}

MPI_Request Isend(const void* buffer, int count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm, SendMode mode) {
  PendingRequest pending = SendRequestFor(buffer, count, datatype, dest, tag, comm, mode);
  StartSend(pending);
  return NewRequest(pending);
}

MPI_Request SendInit(const void* buffer, int count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm, SendMode mode) {
  PendingRequest pending = SendRequestFor(buffer, count, datatype, dest, tag, comm, mode);
  // MPI lets the program free a derived type while a persistent request
  // still uses it: the request keeps a duplicate of its own, freed with it.
  if (LookupType(datatype).envelope.combiner != MPI_COMBINER_NAMED)
    pending.datatype = DupType(datatype);
  pending.persistent = true;
  pending.active = false;
  pending.done = true;
  return NewRequest(pending);
}

MPI_Request RecvInit(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm) {
  PendingRequest pending = RecvRequestFor(buffer, count, datatype, source, tag, comm);
  pending.persistent = true;
  pending.active = false;
  pending.done = true;
  return NewRequest(pending);
}

void Start(MPI_Request* request) {
  RequireInitialized();
  PendingRequest& pending = LookupRequest(*request);
  if (!pending.persistent) throw Error(kErrRequest, "MPI_Start of a non-persistent request");
  if (pending.active) throw Error(kErrRequest, "MPI_Start of an active request");
  if (pending.collective) {
    StartCollective(pending);
  } else if (pending.is_recv) {
    StartRecv(pending);
  } else {
    StartSend(pending);
  }
}

bool ProbeNeedsMaster(int source, int tag, MPI_Comm comm_handle, MPI_Status* status) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  if (source != MPI_PROC_NULL) return true;
  SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
  return false;
}

void Probe(int source, int tag, MPI_Comm comm_handle, MPI_Status* status) {
  if (!ProbeNeedsMaster(source, tag, comm_handle, status)) return;
  const CommInfo& comm = LookupComm(comm_handle);
  ReplyMsg reply = Runtime::Instance()->Call(
      RecvRequest(MsgType::kProbe, comm, source, tag, 0, 0));
  SetResult(status, comm.UserSource(reply.source), reply.tag, reply.bytes);
}

bool Iprobe(int source, int tag, MPI_Comm comm_handle, MPI_Status* status) {
  if (!ProbeNeedsMaster(source, tag, comm_handle, status)) return true;
  const CommInfo& comm = LookupComm(comm_handle);
  ReplyMsg reply = Runtime::Instance()->Call(
      RecvRequest(MsgType::kIprobe, comm, source, tag, 0, 0));
  if (reply.flag) SetResult(status, comm.UserSource(reply.source), reply.tag, reply.bytes);
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

MPI_Comm RequestsComm(int count, const MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    if (requests[i] != MPI_REQUEST_NULL) return RequestComm(requests[i]);
  }
  return MPI_COMM_WORLD;
}

// ------------------------------------------------------------- completion
//
// A request is complete on the slave's side (`done`) when it is a send
// (sends are buffered) or a receive whose data has been copied; other
// receives are completed by asking the master, which holds the messages.

// Copies the master's completion of a receive into its request; for a
// synchronous send it only says that the message was matched. A collective
// request takes it as one step of its schedule: it is done only after its
// last one.
void Absorb(PendingRequest& pending, const ReplyMsg& reply) {
  if (pending.collective) {
    AbsorbCollective(pending, reply);
    return;
  }
  if (pending.is_recv) {
    const CommInfo* comm = FindComm(pending.comm);  // the program may have freed it
    FinishRecv(reply, pending.buffer, pending.count, pending.layout.get(), pending.capacity,
               &pending.status, comm);
  } else {
    SetEmptyStatus(&pending.status);
  }
  pending.done = true;
}

namespace {

// Hands out a done request's status, frees it and nulls the handle;
// returns the error class of the operation.
int Retire(MPI_Request* request, MPI_Status* status) {
  PendingRequest& pending = LookupRequest(*request);
  if (pending.generalized) return RetireGeneralized(request, status);
  if (pending.persistent && !pending.active) {  // MPI: like a null request
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  int error = pending.status.MPI_ERROR;
  CopyResult(status, pending.status);
  if (pending.persistent) {
    pending.active = false;  // the handle stays for the next MPI_Start
    return error;
  }
  FreeRequest(*request);
  *request = MPI_REQUEST_NULL;
  return error;
}

// Asks the master about several receives at once (WaitAny, TestAny,
// PollAny, TestAll); the ids travel as the request's payload.
ReplyMsg CallWithIds(MsgType type, const std::vector<std::uint64_t>& ids) {
  Runtime* runtime = Runtime::Instance();
  RequestMsg request;
  request.type = type;
  runtime->StagePayload(ids.data(), ids.size() * sizeof(std::uint64_t), request);
  return runtime->Call(request);
}

// The requests of an array as the multiple-completion calls see them.
struct RequestSet {
  std::vector<int> done;            // positions complete on our side
  std::vector<int> waiting;         // positions of receives the master holds
  std::vector<std::uint64_t> ids;   // their receive ids, in the same order
  // Generalized requests the program has not completed yet.
  bool program_pending = false;
  bool empty() const { return done.empty() && waiting.empty() && !program_pending; }
};

RequestSet Classify(int count, const MPI_Request requests[]) {
  if (count < 0) throw Error(kErrCount, "negative count " + std::to_string(count));
  RequestSet set;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    PendingRequest& pending = LookupRequest(requests[i]);
    if (!pending.active) continue;  // an inactive persistent request
    if (pending.generalized && !pending.done && !PollGeneralized(pending)) {
      set.program_pending = true;
    } else if (pending.done) {
      set.done.push_back(i);
    } else {
      set.waiting.push_back(i);
      set.ids.push_back(pending.id);
    }
  }
  return set;
}

// MPI_Waitany / MPI_Testany: completes one request if one is complete
// (blocking until one is when `wait`).
int Any(bool wait, int count, MPI_Request requests[], int* index, int* flag,
        MPI_Status* status) {
  for (;;) {
    RequestSet set = Classify(count, requests);
    if (wait && set.program_pending && set.done.empty()) {
      // A generalized request is completed by the program itself: poll.
      int error = MPI_SUCCESS;
      PollUntilGeneralized([&] {
        error = Any(/*wait=*/false, count, requests, index, flag, status);
        return *flag != 0;
      });
      return error;
    }
    *flag = 1;
    if (!set.done.empty()) {
      *index = set.done.front();
      return Retire(&requests[*index], status);
    }
    *index = MPI_UNDEFINED;
    if (set.waiting.empty() && set.program_pending) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    if (set.waiting.empty()) {  // only null requests
      SetEmptyStatus(status);
      return MPI_SUCCESS;
    }
    ReplyMsg reply = CallWithIds(wait ? MsgType::kWaitAny : MsgType::kTestAny, set.ids);
    if (reply.flag == 0) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    *index = set.waiting[static_cast<std::size_t>(reply.flag - 1)];
    PendingRequest& pending = LookupRequest(requests[*index]);
    Absorb(pending, reply);
    // A collective with steps left: ask again (with its next receive).
    if (pending.done) return Retire(&requests[*index], status);
  }
}

// MPI_Waitsome / MPI_Testsome: completes what is complete (at least one
// when `wait`), in increasing index order.
int Some(bool wait, int incount, MPI_Request requests[], int* outcount,
         int indices[], MPI_Status statuses[]) {
  RequestSet set = Classify(incount, requests);
  if (set.empty()) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  if (wait && set.program_pending && set.done.empty()) {
    // A generalized request is completed by the program itself: poll.
    int error = MPI_SUCCESS;
    PollUntilGeneralized([&] {
      error = Some(/*wait=*/false, incount, requests, outcount, indices, statuses);
      return *outcount > 0;
    });
    return error;
  }
  std::vector<int> completed = set.done;
  // The first question may block (or yield) only when nothing is complete
  // yet; the ones after it just collect what else the master has.
  MsgType ask = !completed.empty() ? MsgType::kPollAny
                                   : (wait ? MsgType::kWaitAny : MsgType::kTestAny);
  while (!set.ids.empty()) {
    ReplyMsg reply = CallWithIds(ask, set.ids);
    if (reply.flag == 0) break;
    std::size_t k = static_cast<std::size_t>(reply.flag - 1);
    PendingRequest& pending = LookupRequest(requests[set.waiting[k]]);
    Absorb(pending, reply);
    if (!pending.done) {  // a collective with steps left: its next receive
      set.ids[k] = pending.id;
      continue;
    }
    completed.push_back(set.waiting[k]);
    set.waiting.erase(set.waiting.begin() + static_cast<std::ptrdiff_t>(k));
    set.ids.erase(set.ids.begin() + static_cast<std::ptrdiff_t>(k));
    ask = MsgType::kPollAny;
  }
  std::sort(completed.begin(), completed.end());
  bool failed = false;
  for (std::size_t j = 0; j < completed.size(); ++j) {
    indices[j] = completed[j];
    MPI_Status ignored;
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? &ignored : &statuses[j];
    int error = Retire(&requests[completed[j]], status);
    status->MPI_ERROR = error;
    failed = failed || error != MPI_SUCCESS;
  }
  *outcount = static_cast<int>(completed.size());
  return failed ? kErrInStatus : MPI_SUCCESS;
}

}  // namespace

int Test(MPI_Request* request, int* flag, MPI_Status* status) {
  RequireInitialized();
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  PendingRequest& pending = LookupRequest(*request);
  if (!pending.done && pending.generalized && !PollGeneralized(pending)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  while (!pending.done) {
    ReplyMsg reply = Runtime::Instance()->Call(IdRequest(MsgType::kTestRecv, pending.id));
    if (!reply.flag) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    Absorb(pending, reply);
  }
  *flag = 1;
  return Retire(request, status);
}

int Wait(MPI_Request* request, MPI_Status* status) {
  RequireInitialized();
  if (*request == MPI_REQUEST_NULL) {
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  PendingRequest& pending = LookupRequest(*request);
  if (!pending.done && pending.generalized) {
    WaitGeneralized(*request);
  } else {
    while (!pending.done)
      Absorb(pending, Runtime::Instance()->Call(IdRequest(MsgType::kWaitRecv, pending.id)));
  }
  return Retire(request, status);
}

int Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  RequireInitialized();
  if (count < 0) throw Error(kErrCount, "negative count " + std::to_string(count));
  bool failed = false;
  for (int i = 0; i < count; ++i) {
    MPI_Status ignored;
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? &ignored : &statuses[i];
    int error = Wait(&requests[i], status);
    status->MPI_ERROR = error;
    failed = failed || error != MPI_SUCCESS;
  }
  return failed ? kErrInStatus : MPI_SUCCESS;
}

int Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  RequireInitialized();
  int flag = 0;
  return Any(/*wait=*/true, count, requests, index, &flag, status);
}

int Testany(int count, MPI_Request requests[], int* index, int* flag,
            MPI_Status* status) {
  RequireInitialized();
  return Any(/*wait=*/false, count, requests, index, flag, status);
}

int Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]) {
  RequireInitialized();
  return Some(/*wait=*/true, incount, requests, outcount, indices, statuses);
}

int Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]) {
  RequireInitialized();
  return Some(/*wait=*/false, incount, requests, outcount, indices, statuses);
}

int Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  RequireInitialized();
  // MPI: unless every request is complete, none may be completed. A
  // collective may need several rounds (one per step of its schedule);
  // what a round absorbs stays done on our side for the next call.
  for (RequestSet set = Classify(count, requests); !set.waiting.empty() || set.program_pending;
       set = Classify(count, requests)) {
    if (set.program_pending) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    if (!CallWithIds(MsgType::kTestAll, set.ids).flag) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    Runtime* runtime = Runtime::Instance();
    for (int position : set.waiting) {
      PendingRequest& pending = LookupRequest(requests[position]);
      Absorb(pending, runtime->Call(IdRequest(MsgType::kWaitRecv, pending.id)));
    }
  }
  *flag = 1;
  bool failed = false;
  for (int i = 0; i < count; ++i) {
    MPI_Status ignored;
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? &ignored : &statuses[i];
    int error = MPI_SUCCESS;
    if (requests[i] == MPI_REQUEST_NULL) {
      SetEmptyStatus(status);
    } else {
      error = Retire(&requests[i], status);
    }
    status->MPI_ERROR = error;
    failed = failed || error != MPI_SUCCESS;
  }
  return failed ? kErrInStatus : MPI_SUCCESS;
}

void RequestFree(MPI_Request* request) {
  RequireInitialized();
  if (*request == MPI_REQUEST_NULL)
    throw Error(kErrRequest, "MPI_Request_free of MPI_REQUEST_NULL");
  PendingRequest& pending = LookupRequest(*request);
  if (pending.generalized) {
    FreeGeneralized(request);
    return;
  }
  if (pending.collective && pending.collective->makes_comm && pending.active && !pending.done)
    throw Error(kErrRequest,
                "MPI_Request_free of an active MPI_Comm_idup request: the new communicator "
                "exists only once the request completes; complete it (MPI_Wait, MPI_Test) "
                "and free the communicator instead");
  // The master keeps the receive posted so that it still takes its message
  // in MPI order, and drops that message (see MsgType::kFreeRecv).
  if (pending.collective) {
    AbandonCollective(pending);
  } else if (pending.active && !pending.done) {
    Runtime::Instance()->Post(IdRequest(MsgType::kFreeRecv, pending.id));
  }
  if (pending.persistent && !pending.is_recv && !pending.collective &&
      LookupType(pending.datatype).envelope.combiner != MPI_COMBINER_NAMED)
    FreeType(&pending.datatype);  // SendInit's duplicate
  FreeRequest(*request);
  *request = MPI_REQUEST_NULL;
}

}  // namespace bdmpi
