#include "slave/p2p/bsend_buffer.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "slave/p2p/p2p.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/request/generalized.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

struct BufferedMessage {
  std::uint64_t id = 0;
  std::uint64_t room = 0;  // its bytes and MPI_BSEND_OVERHEAD
};

struct AttachedBuffer {
  void* data = nullptr;
  MPI_Count size = 0;
  bool automatic = false;  // MPI_BUFFER_AUTOMATIC: no limit
  std::uint64_t used = 0;
  std::vector<BufferedMessage> in_flight;  // not yet received
};

using OwnerKey = std::pair<int, int>;  // BufferOwner's kind and handle

OwnerKey KeyOf(BufferOwner owner) { return {static_cast<int>(owner.kind), owner.handle}; }

// The attached buffers by owner.
std::map<OwnerKey, AttachedBuffer>& Attached() {
  static std::map<OwnerKey, AttachedBuffer> buffers;
  return buffers;
}

AttachedBuffer* Find(BufferOwner owner) {
  auto found = Attached().find(KeyOf(owner));
  return found == Attached().end() ? nullptr : &found->second;
}

const char* OwnerName(BufferOwner owner) {
  switch (owner.kind) {
    case BufferOwner::Kind::kComm: return "the communicator";
    case BufferOwner::Kind::kSession: return "the session";
    case BufferOwner::Kind::kProcess: break;
  }
  return "the process";
}

void Release(AttachedBuffer& buffer, std::uint64_t id) {
  auto it = std::find_if(buffer.in_flight.begin(), buffer.in_flight.end(),
                         [id](const BufferedMessage& message) { return message.id == id; });
  if (it == buffer.in_flight.end()) return;
  buffer.used -= it->room;
  buffer.in_flight.erase(it);
}

// Frees the room of the messages that have been received meanwhile; asks
// the master without yielding (PollAny), one completed id at a time.
void Reclaim(AttachedBuffer& buffer) {
  Runtime* runtime = Runtime::Instance();
  while (!buffer.in_flight.empty()) {
    std::vector<std::uint64_t> ids;
    for (const BufferedMessage& message : buffer.in_flight) ids.push_back(message.id);
    RequestMsg request;
    request.type = MsgType::kPollAny;
    runtime->StagePayload(ids.data(), ids.size() * sizeof(std::uint64_t), request);
    ReplyMsg reply = runtime->Call(request);
    if (reply.flag == 0) return;
    Release(buffer, ids[static_cast<std::size_t>(reply.flag - 1)]);
  }
}

// Waits until the messages `ids` (of those in flight) have been received.
void WaitReceived(AttachedBuffer& buffer, const std::vector<std::uint64_t>& ids) {
  for (std::uint64_t id : ids) {
    bool in_flight = std::any_of(buffer.in_flight.begin(), buffer.in_flight.end(),
                                 [id](const BufferedMessage& message) { return message.id == id; });
    if (!in_flight) continue;
    Runtime::Instance()->Call(IdRequest(MsgType::kWaitRecv, id));
    Release(buffer, id);
  }
}

std::vector<std::uint64_t> InFlightIds(const AttachedBuffer& buffer) {
  std::vector<std::uint64_t> ids;
  for (const BufferedMessage& message : buffer.in_flight) ids.push_back(message.id);
  return ids;
}

// The buffer a buffered send on `comm` uses: the communicator's, its
// session's, the process's; nullptr when none is attached.
AttachedBuffer* BufferFor(MPI_Comm comm, BufferOwner* owner) {
  const CommInfo& info = LookupComm(comm);
  const BufferOwner candidates[] = {
      {BufferOwner::Kind::kComm, comm},
      {BufferOwner::Kind::kSession, info.session},
      {BufferOwner::Kind::kProcess, 0},
  };
  for (const BufferOwner& candidate : candidates) {
    if (candidate.kind == BufferOwner::Kind::kSession && info.session == MPI_SESSION_NULL)
      continue;
    if (AttachedBuffer* buffer = Find(candidate)) {
      *owner = candidate;
      return buffer;
    }
  }
  return nullptr;
}

}  // namespace

void AttachBuffer(BufferOwner owner, void* buffer, MPI_Count size) {
  bool automatic = buffer == MPI_BUFFER_AUTOMATIC;
  if (size < 0 && !automatic) throw Error(kErrArg, "negative buffer size");
  if (Find(owner) != nullptr)
    throw Error(kErrBuffer, std::string("a buffer is attached to ") + OwnerName(owner) +
                                " already: detach it first");
  AttachedBuffer attached;
  attached.data = buffer;
  attached.size = automatic ? 0 : size;
  attached.automatic = automatic;
  Attached().emplace(KeyOf(owner), std::move(attached));
}

void DetachBuffer(BufferOwner owner, void** buffer, MPI_Count* size) {
  AttachedBuffer* attached = Find(owner);
  if (attached == nullptr)
    throw Error(kErrBuffer, std::string("no buffer is attached to ") + OwnerName(owner));
  // MPI: detaching waits until the buffered messages have been received.
  WaitReceived(*attached, InFlightIds(*attached));
  *buffer = attached->data;
  *size = attached->size;
  Attached().erase(KeyOf(owner));
}

void DropBuffer(BufferOwner owner) { Attached().erase(KeyOf(owner)); }

void AttachBuffer(void* buffer, int size) {
  AttachBuffer(BufferOwner{}, buffer, size);
}

void DetachBuffer(void** buffer, int* size) {
  MPI_Count wide = 0;
  DetachBuffer(BufferOwner{}, buffer, &wide);
  *size = static_cast<int>(wide);
}

BufferOwner ReserveBuffered(MPI_Comm comm, std::uint64_t bytes) {
  BufferOwner owner;
  AttachedBuffer* attached = BufferFor(comm, &owner);
  if (attached == nullptr)
    throw Error(kErrBuffer, "a buffered send (MPI_Bsend) needs a buffer attached first "
                            "(MPI_Buffer_attach, MPI_Comm_attach_buffer or "
                            "MPI_Session_attach_buffer)");
  if (attached->automatic) return owner;
  std::uint64_t room = bytes + MPI_BSEND_OVERHEAD;
  auto size = static_cast<std::uint64_t>(attached->size);
  if (attached->used + room > size) Reclaim(*attached);
  if (attached->used + room > size)
    throw Error(kErrBuffer, "a buffered send of " + std::to_string(bytes) +
                                " bytes does not fit in the buffer of " +
                                std::to_string(attached->size) + " bytes attached to " +
                                OwnerName(owner) + " (" + std::to_string(attached->used) +
                                " held by buffered messages not yet received, "
                                "MPI_BSEND_OVERHEAD " +
                                std::to_string(MPI_BSEND_OVERHEAD) + " per message)");
  return owner;
}

void RecordBuffered(BufferOwner owner, std::uint64_t id, std::uint64_t bytes) {
  AttachedBuffer* attached = Find(owner);
  BDMPI_ENFORCE(attached != nullptr, "a buffered message without its buffer");
  std::uint64_t room = bytes + MPI_BSEND_OVERHEAD;
  attached->used += room;
  attached->in_flight.push_back(BufferedMessage{id, room});
}

void ForgetBuffered(std::uint64_t id) {
  for (auto& [key, attached] : Attached()) Release(attached, id);
}

void FlushBuffered(BufferOwner owner) {
  AttachedBuffer* attached = Find(owner);
  if (attached != nullptr) WaitReceived(*attached, InFlightIds(*attached));
}

MPI_Request IflushBuffered(BufferOwner owner) {
  AttachedBuffer* attached = Find(owner);
  std::vector<std::uint64_t> ids;
  if (attached != nullptr) ids = InFlightIds(*attached);
  MPI_Comm comm = owner.kind == BufferOwner::Kind::kComm ? owner.handle : MPI_COMM_WORLD;
  if (ids.empty()) {
    MPI_Status empty;
    SetEmptyStatus(&empty);
    return NewDoneRequest(comm, empty);
  }
  // MPI_Test reclaims without waiting, MPI_Wait waits (a blocking point).
  // A buffer detached meanwhile had its messages received first.
  return NewPolledRequest(
      [ids, owner](bool wait) {
        AttachedBuffer* buffer = Find(owner);
        if (buffer == nullptr) return true;
        if (wait) {
          WaitReceived(*buffer, ids);
        } else {
          Reclaim(*buffer);
        }
        return std::none_of(ids.begin(), ids.end(), [&](std::uint64_t id) {
          return std::any_of(buffer->in_flight.begin(), buffer->in_flight.end(),
                             [id](const BufferedMessage& message) { return message.id == id; });
        });
      },
      comm);
}

}  // namespace bdmpi
