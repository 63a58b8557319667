#include "slave/p2p/bsend_buffer.h"

#include <algorithm>
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
  int size = 0;
  bool attached = false;
  std::uint64_t used = 0;
  std::vector<BufferedMessage> in_flight;  // not yet received
};

AttachedBuffer& Attached() {
  static AttachedBuffer buffer;
  return buffer;
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

}  // namespace

void AttachBuffer(void* buffer, int size) {
  if (size < 0) throw Error(kErrArg, "negative buffer size");
  AttachedBuffer& attached = Attached();
  if (attached.attached) throw Error(kErrBuffer, "a buffer is attached already");
  attached.data = buffer;
  attached.size = size;
  attached.attached = true;
}

void DetachBuffer(void** buffer, int* size) {
  AttachedBuffer& attached = Attached();
  if (!attached.attached) throw Error(kErrBuffer, "no buffer is attached");
  // MPI: detaching waits until the buffered messages have been received.
  WaitReceived(attached, InFlightIds(attached));
  *buffer = attached.data;
  *size = attached.size;
  attached.data = nullptr;
  attached.size = 0;
  attached.attached = false;
}

void ReserveBuffered(std::uint64_t bytes) {
  AttachedBuffer& attached = Attached();
  if (!attached.attached)
    throw Error(kErrBuffer, "a buffered send (MPI_Bsend) needs a buffer attached with "
                            "MPI_Buffer_attach first");
  std::uint64_t room = bytes + MPI_BSEND_OVERHEAD;
  auto size = static_cast<std::uint64_t>(attached.size);
  if (attached.used + room > size) Reclaim(attached);
  if (attached.used + room > size)
    throw Error(kErrBuffer, "a buffered send of " + std::to_string(bytes) +
                                " bytes does not fit in the attached buffer of " +
                                std::to_string(attached.size) + " bytes (" +
                                std::to_string(attached.used) +
                                " held by buffered messages not yet received, MPI_BSEND_OVERHEAD " +
                                std::to_string(MPI_BSEND_OVERHEAD) + " per message)");
}

void RecordBuffered(std::uint64_t id, std::uint64_t bytes) {
  AttachedBuffer& attached = Attached();
  std::uint64_t room = bytes + MPI_BSEND_OVERHEAD;
  attached.used += room;
  attached.in_flight.push_back(BufferedMessage{id, room});
}

void ForgetBuffered(std::uint64_t id) { Release(Attached(), id); }

void FlushBuffered() {
  AttachedBuffer& attached = Attached();
  WaitReceived(attached, InFlightIds(attached));
}

MPI_Request IflushBuffered() {
  std::vector<std::uint64_t> ids = InFlightIds(Attached());
  if (ids.empty()) {
    MPI_Status empty;
    SetEmptyStatus(&empty);
    return NewDoneRequest(MPI_COMM_WORLD, empty);
  }
  // MPI_Test reclaims without waiting, MPI_Wait waits (a blocking point).
  return NewPolledRequest(
      [ids](bool wait) {
        AttachedBuffer& attached = Attached();
        if (wait) {
          WaitReceived(attached, ids);
        } else {
          Reclaim(attached);
        }
        return std::none_of(ids.begin(), ids.end(), [&](std::uint64_t id) {
          return std::any_of(attached.in_flight.begin(), attached.in_flight.end(),
                             [id](const BufferedMessage& message) { return message.id == id; });
        });
      },
      MPI_COMM_WORLD);
}

}  // namespace bdmpi
