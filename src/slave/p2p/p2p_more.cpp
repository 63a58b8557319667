#include "slave/p2p/p2p_more.h"

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/p2p/bsend_buffer.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/request/generalized_wait.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void Cancel(MPI_Request* request) {
  RequireInitialized();
  if (*request == MPI_REQUEST_NULL) throw Error(kErrRequest, "MPI_Cancel of MPI_REQUEST_NULL");
  PendingRequest& pending = LookupRequest(*request);
  if (pending.generalized) {
    const GeneralizedRequest& generalized = *pending.generalized;
    if (generalized.cancel == nullptr) return;  // the runtime's own
    int error = generalized.cancel(generalized.extra_state, PollGeneralized(pending) ? 1 : 0);
    if (error != MPI_SUCCESS) throw Error(error, "the generalized request's cancel function failed");
    return;
  }
  if (!pending.active || pending.status.bdmpi_cancelled) return;
  // A receive that has its data is complete; a send's message may still
  // wait unreceived (in the master) even when its request is complete.
  if (pending.is_recv ? pending.done : pending.id == 0) return;
  RequestMsg cancel = IdRequest(MsgType::kCancel, pending.id);
  if (!pending.is_recv) {
    cancel.code = kCancelSend;
    cancel.comm = LookupComm(pending.comm).id;
    cancel.peer = pending.peer;
  }
  ReplyMsg reply = Runtime::Instance()->Call(cancel);
  if (reply.flag == 0) return;  // matched already: it completes as usual
  if (!pending.is_recv && pending.mode == SendMode::kBuffered) ForgetBuffered(pending.id);
  pending.done = true;
  SetStatus(&pending.status, pending.is_recv ? MPI_ANY_SOURCE : pending.peer, MPI_ANY_TAG,
            MPI_SUCCESS, 0);
  pending.status.bdmpi_cancelled = 1;
}

int RequestGetStatus(MPI_Request request, int* flag, MPI_Status* status) {
  RequireInitialized();
  *flag = 1;
  if (request == MPI_REQUEST_NULL) {
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  PendingRequest& pending = LookupRequest(request);
  if (!pending.active) {  // an inactive persistent request, like a null one
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  if (!pending.done && pending.generalized && !PollGeneralized(pending)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  if (!pending.done) {
    // The master hands the completion over once; the request keeps it
    // until MPI_Wait/MPI_Test retire it.
    ReplyMsg reply = Runtime::Instance()->Call(IdRequest(MsgType::kTestRecv, pending.id));
    if (reply.flag == 0) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    Absorb(pending, reply);
  }
  if (pending.generalized && pending.generalized->query != nullptr) {
    MPI_Status queried = pending.status;
    int error = pending.generalized->query(pending.generalized->extra_state, &queried);
    if (status != MPI_STATUS_IGNORE) *status = queried;
    return error;
  }
  CopyResult(status, pending.status);
  return pending.status.MPI_ERROR;
}

// --------------------------------------------------- generalized requests

MPI_Request GrequestStart(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free,
                          MPI_Grequest_cancel_function* cancel, void* extra_state) {
  RequireInitialized();
  PendingRequest pending;
  pending.comm = MPI_COMM_WORLD;
  pending.done = false;
  auto generalized = std::make_shared<GeneralizedRequest>();
  generalized->query = query;
  generalized->free = free;
  generalized->cancel = cancel;
  generalized->extra_state = extra_state;
  pending.generalized = generalized;
  SetEmptyStatus(&pending.status);
  MPI_Request request = NewRequest(pending);
  RegisterGeneralized(request, generalized);
  return request;
}

void GrequestComplete(MPI_Request request) {
  // Possibly on another thread: nothing here touches the request table
  // (generalized_wait.h). Freed by the program already: its free function
  // runs now, and the main thread releases the slot.
  if (std::shared_ptr<GeneralizedRequest> freed = CompleteGeneralized(request))
    freed->free(freed->extra_state);
}

bool PollGeneralized(PendingRequest& pending) {
  if (pending.done) return true;
  const GeneralizedRequest& generalized = *pending.generalized;
  pending.done = generalized.progress ? generalized.progress(false)
                                      : GeneralizedComplete(generalized);
  return pending.done;
}

void WaitGeneralized(MPI_Request request) {
  PendingRequest& pending = LookupRequest(request);
  if (pending.generalized->progress) {
    pending.done = pending.generalized->progress(true);
    return;
  }
  AwaitGeneralized(*pending.generalized);
  pending.done = true;
}

int RetireGeneralized(MPI_Request* request, MPI_Status* status) {
  std::shared_ptr<GeneralizedRequest> generalized = LookupRequest(*request).generalized;
  MPI_Status queried;
  SetEmptyStatus(&queried);
  ForgetGeneralized(*request);
  FreeRequest(*request);
  *request = MPI_REQUEST_NULL;
  if (generalized->query == nullptr) {  // the runtime's own: no callbacks
    CopyResult(status, queried);
    return MPI_SUCCESS;
  }
  int error = generalized->query(generalized->extra_state, &queried);
  if (status != MPI_STATUS_IGNORE) *status = queried;
  int free_error = generalized->free(generalized->extra_state);
  return error != MPI_SUCCESS ? error : free_error;
}

void FreeGeneralized(MPI_Request* request) {
  PendingRequest& pending = LookupRequest(*request);
  std::shared_ptr<GeneralizedRequest> generalized = pending.generalized;
  // The runtime's own (no free function) are not completed by the program.
  if (generalized->free == nullptr || FreeGeneralizedLater(*request)) {
    FreeRequest(*request);
    if (generalized->free != nullptr) generalized->free(generalized->extra_state);
  }
  // Else MPI_Grequest_complete frees it.
  *request = MPI_REQUEST_NULL;
}

// ---------------------------------------------------------- matched probes

namespace {

// MPI_Message handles: MPI_MESSAGE_NULL's bits with the table index in the
// low bits; MPI_MESSAGE_NO_PROC is the last index.
constexpr int kMessageIndexMask = 0x7fffff;

struct MatchedMessage {
  std::uint64_t id = 0;  // the master's completed receive holding it
  MPI_Comm comm = MPI_COMM_NULL;
  bool in_use = false;
};

std::vector<MatchedMessage>& Messages() {
  static std::vector<MatchedMessage> messages(1);  // index 0: MPI_MESSAGE_NULL
  return messages;
}

MPI_Message NewMessage(std::uint64_t id, MPI_Comm comm) {
  std::vector<MatchedMessage>& messages = Messages();
  std::size_t index = 1;
  while (index < messages.size() && messages[index].in_use) ++index;
  if (index == messages.size()) messages.emplace_back();
  if (index >= static_cast<std::size_t>(kMessageIndexMask))
    throw Error(kErrOther, "too many matched messages not yet received");
  messages[index] = MatchedMessage{id, comm, true};
  return MPI_MESSAGE_NULL | static_cast<int>(index);
}

MatchedMessage& LookupMessage(MPI_Message message) {
  std::size_t index = static_cast<std::size_t>(message & kMessageIndexMask);
  std::vector<MatchedMessage>& messages = Messages();
  if ((message & ~kMessageIndexMask) != MPI_MESSAGE_NULL || index == 0 ||
      index >= messages.size() || !messages[index].in_use)
    throw Error(kErrRequest, message == MPI_MESSAGE_NULL
                                 ? "MPI_MESSAGE_NULL is not a message to receive"
                                 : "invalid message handle (not from MPI_Mprobe/MPI_Improbe, "
                                   "or received already)");
  return messages[index];
}

// Asks the master for a matched probe; MPI_MESSAGE_NULL when none.
MPI_Message MatchedProbe(MsgType type, int source, int tag, MPI_Comm comm_handle,
                         MPI_Status* status) {
  if (!ProbeNeedsMaster(source, tag, comm_handle, status)) return MPI_MESSAGE_NO_PROC;
  Runtime* runtime = Runtime::Instance();
  std::uint64_t id = runtime->NewRecvId();
  const CommInfo& comm = LookupComm(comm_handle);
  ReplyMsg reply = runtime->Call(RecvRequest(type, comm, source, tag, 0, id));
  if (reply.flag == 0) return MPI_MESSAGE_NULL;
  SetResult(status, comm.UserSource(reply.source), reply.tag, reply.bytes);
  return NewMessage(id, comm_handle);
}

}  // namespace

MPI_Message Mprobe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return MatchedProbe(MsgType::kMprobe, source, tag, comm, status);
}

MPI_Message Improbe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return MatchedProbe(MsgType::kImprobe, source, tag, comm, status);
}

int Mrecv(void* buffer, int count, MPI_Datatype datatype, MPI_Message* message,
          MPI_Status* status) {
  RequireInitialized();
  std::uint64_t capacity = WireBytes(count, datatype);
  if (*message == MPI_MESSAGE_NO_PROC) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  MatchedMessage& matched = LookupMessage(*message);
  CheckBuffer(buffer, capacity, datatype);
  RequestMsg request = IdRequest(MsgType::kMrecv, matched.id);
  request.bytes = capacity;
  ReplyMsg reply = Runtime::Instance()->Call(request);
  matched.in_use = false;
  *message = MPI_MESSAGE_NULL;
  if (reply.flag == 0) throw Error(kErrOther, "the master no longer holds this matched message");
  const TypeInfo& type = LookupType(datatype);
  MPI_Status received;
  int error = FinishRecv(reply, buffer, count, type.Dense() ? nullptr : &type, capacity,
                         &received, FindComm(matched.comm));
  CopyResult(status, received);
  return error;
}

MPI_Request Imrecv(void* buffer, int count, MPI_Datatype datatype, MPI_Message* message) {
  MPI_Comm comm = MessageComm(*message);
  PendingRequest pending;
  pending.is_recv = true;
  pending.done = true;
  pending.comm = comm;
  SetEmptyStatus(&pending.status);
  int error = Mrecv(buffer, count, datatype, message, &pending.status);
  pending.status.MPI_ERROR = error;  // for MPI_Wait's return
  return NewRequest(pending);
}

MPI_Comm MessageComm(MPI_Message message) {
  if (message == MPI_MESSAGE_NO_PROC) return MPI_COMM_WORLD;
  try {
    return LookupMessage(message).comm;
  } catch (const Error&) {
    return MPI_COMM_WORLD;
  }
}

}  // namespace bdmpi
