#include "slave/p2p/p2p_more.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "slave/comm/cross_job.h"
#include "slave/p2p/bsend_buffer.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void P2pRequest::Cancel() {
  if (!active || status.bdmpi_cancelled) return;
  // A receive that has its data is complete; a send's message may still
  // wait unreceived (in the master) even when its request is complete.
  if (is_recv ? done : id == 0) return;
  if (is_recv && direct && !direct->told && !direct->collected) {
    // The master must hear of it first: a message waiting there (probed,
    // say) takes it, and then it is not cancelled. Unless a sender has
    // taken it meanwhile: then it completes as usual.
    Runtime::Instance()->TellDeferredReceives();
    if (!direct->told) {
      ProgressAlone(/*wait=*/true);
      return;
    }
  }
  if (!is_recv && queued.dest >= 0) {
    // Its message never went to the master: withdrawn from the inbox, or
    // a receive has it.
    bool withdrawn = Direct().Withdraw(queued);
    queued = DirectQueued{};
    if (!withdrawn) return;
    done = true;
    SetStatus(&status, peer, MPI_ANY_TAG, MPI_SUCCESS, 0);
    status.bdmpi_cancelled = 1;
    return;
  }
  RequestMsg cancel = IdRequest(is_recv ? MsgType::kCancel : MsgType::kCancelSend, id);
  if (!is_recv) {
    cancel.comm = LookupComm(comm).id;
    cancel.peer = peer;
  }
  ReplyMsg reply = Runtime::Instance()->Call(cancel);
  if (reply.flag == 0) return;  // matched already: it completes as usual
  if (direct) Direct().Collect(*direct);
  if (!is_recv && mode == SendMode::kBuffered) ForgetBuffered(id);
  done = true;
  SetStatus(&status, is_recv ? MPI_ANY_SOURCE : peer, MPI_ANY_TAG, MPI_SUCCESS, 0);
  status.bdmpi_cancelled = 1;
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
  // Where the message waits: at the master (`id` is its completed
  // receive), between two jobs (`id` is CrossMprobe's key), or taken from
  // this rank's inbox (id 0; `status` and `data` are the message itself).
  enum class Held { kMaster, kCrossJob, kInbox } held = Held::kMaster;
  DirectStatus status;
  std::vector<std::byte> data;
};

std::vector<MatchedMessage>& Messages() {
  static std::vector<MatchedMessage> messages(1);  // index 0: MPI_MESSAGE_NULL
  return messages;
}

MPI_Message NewMessage(std::uint64_t id, MPI_Comm comm,
                       MatchedMessage::Held held = MatchedMessage::Held::kMaster) {
  std::vector<MatchedMessage>& messages = Messages();
  std::size_t index = 1;
  while (index < messages.size() && messages[index].in_use) ++index;
  if (index == messages.size()) messages.emplace_back();
  if (index >= static_cast<std::size_t>(kMessageIndexMask))
    throw Error(kErrOther, "too many matched messages not yet received");
  messages[index] = MatchedMessage{id, comm, true, held, {}, {}};
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

// Mrecv of a message that a matched probe took from the inbox.
int FinishLocalMessage(const MatchedMessage& taken, void* buffer, int count,
                       MPI_Datatype datatype, std::uint64_t capacity, MPI_Status* status) {
  const TypeInfo& type = LookupType(datatype);
  std::uint64_t fits = std::min<std::uint64_t>(taken.data.size(), capacity);
  if (fits > 0) {
    if (type.Dense()) {
      std::memcpy(buffer, taken.data.data(), fits);
    } else {
      UnpackElements(taken.data.data(), fits, buffer, count, type);
    }
  }
  int error = taken.status.bytes > capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  const CommInfo* comm = FindComm(taken.comm);
  int source = comm != nullptr ? comm->UserSource(taken.status.source) : taken.status.source;
  MPI_Status received;
  SetStatus(&received, source, taken.status.tag, error, fits);
  CopyResult(status, received);
  return error;
}

// Asks the master for a matched probe; MPI_MESSAGE_NULL when none.
MPI_Message MatchedProbe(MsgType type, int source, int tag, MPI_Comm comm_handle,
                         MPI_Status* status) {
  if (!ProbeNeedsMaster(source, tag, comm_handle, status)) return MPI_MESSAGE_NO_PROC;
  if (const CommInfo* cross = CrossJob(comm_handle)) {
    std::uint64_t key = CrossMprobe(*cross, source, tag, type == MsgType::kMprobe, status);
    return key == 0 ? MPI_MESSAGE_NULL
                    : NewMessage(key, comm_handle, MatchedMessage::Held::kCrossJob);
  }
  Runtime* runtime = Runtime::Instance();
  std::uint64_t id = runtime->NewRecvId();
  const CommInfo& comm = LookupComm(comm_handle);
  RequestMsg request = RecvRequest(type, comm, source, tag, 0, id);
  // The inbox first, as for MPI_Probe (p2p.cpp's Probe).
  DirectStatus queued;
  std::vector<std::byte> data;
  if (Direct().ProbeInbox(request.comm, request.peer, request.tag, /*close=*/true, &queued,
                          &data)) {
    SetResult(status, comm.UserSource(queued.source), queued.tag, queued.bytes);
    MPI_Message message = NewMessage(0, comm_handle, MatchedMessage::Held::kInbox);
    MatchedMessage& matched = LookupMessage(message);
    matched.status = queued;
    matched.data = std::move(data);
    return message;
  }
  ReplyMsg reply = runtime->Call(request);
  Direct().OpenInbox();
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
  if (matched.held == MatchedMessage::Held::kCrossJob) {
    matched.in_use = false;
    *message = MPI_MESSAGE_NULL;
    CrossMrecv(matched.id, buffer, count, datatype, status);
    return MPI_SUCCESS;
  }
  if (matched.held == MatchedMessage::Held::kInbox) {
    MatchedMessage taken = std::move(matched);
    matched = MatchedMessage{};
    *message = MPI_MESSAGE_NULL;
    return FinishLocalMessage(taken, buffer, count, datatype, capacity, status);
  }
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
  MPI_Status status;
  SetEmptyStatus(&status);
  int error = Mrecv(buffer, count, datatype, message, &status);
  status.MPI_ERROR = error;  // for MPI_Wait's return
  return NewDoneRequest(comm, status);
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
