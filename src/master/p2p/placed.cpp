#include "master/p2p/placed.h"

#include <cstring>

#include "common/log.h"
#include "common/process_memory.h"
#include "master/p2p/p2p.h"

namespace bdmpi {

bool PlacedMessages::MayPlaceInto(const Slave& sender, const Slave* dest) {
  // A switched-out receiver's memory is on disk: writing into it would
  // bring pages back behind the budget's back (and race the write-back of
  // one being switched out, or the read-back of one resumed, which maps
  // fresh memory and reads the file into it). Such a message waits in
  // memory as usual.
  return dest != nullptr && dest != &sender && dest->pid > 0 &&
         dest->state != SlaveState::kExited && !dest->storage_released &&
         !dest->storage_releasing && !dest->reading_back;
}

bool PlacedMessages::FromWindow(Slave& slave, const RequestMsg& request, Slave* dest) {
  // Only a standard send comes here (Send): a synchronous or buffered one
  // (SyncSend) needs the usual match notice.
  if (!MayPlaceInto(slave, dest)) return false;
  Envelope envelope{request.comm, request.rank, request.tag, MatchOrdinal::Of(request).ordinal};
  std::optional<PostedRecv> recv = p2p_.mailbox(*dest).ReserveForPlacing(envelope, request.bytes);
  if (!recv) return false;
  int error =
      WriteProcessMemory(dest->pid, recv->address, master_.Window(slave.index), request.bytes);
  if (error != 0) {
    // Refused or a bad receive buffer: the usual way, which reports it.
    BDMPI_DEBUG("p2p", "could not place a message for rank %d (%s)", dest->world_rank,
                std::strerror(error));
    p2p_.mailbox(*dest).Unreserve(recv->id);
    return false;
  }
  if (request.wants_reply) {
    ReplyMsg ack;  // the window is free again
    ack.type = request.type;
    master_.Reply(slave, ack);
  }
  Complete(slave, request, *dest, recv->id, envelope);
  return true;
}

void PlacedMessages::Complete(const Slave& sender, const RequestMsg& request, Slave& dest,
                              std::uint64_t recv_id, const Envelope& envelope) {
  Message message;
  message.envelope = envelope;
  message.payload = Payload::Placed(request.bytes);
  message.sent_by = SentBy{sender.world_rank, request.id, false};
  master_.RecordSend(sender, request, message.payload, false);
  if (dest.state == SlaveState::kExited) return;
  p2p_.mailbox(dest).CompleteReserved(recv_id, std::move(message));
  master_.WakeIfReady(dest);
}

void PlacedMessages::HandleOffer(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  PlaceGrant grant;  // refused
  Slave* dest = master_.slaves().ByWorldRank(master_.Comm(request.comm).world_ranks[request.peer]);
  if (granted_.contains(slave.index) || !MayPlaceInto(slave, dest)) dest = nullptr;
  Envelope envelope{request.comm, request.rank, request.tag, MatchOrdinal::Of(request).ordinal};
  std::optional<PostedRecv> recv;
  if (dest != nullptr) recv = p2p_.mailbox(*dest).ReserveForPlacing(envelope, request.bytes);
  // Refused for now (no receive posted yet, or the receiver is switched
  // out): the sender takes it as a hint to ask less often; not so when a
  // posted receive cannot take it.
  grant.retry_later =
      !recv && (dest == nullptr || !p2p_.mailbox(*dest).HasPostedMatch(envelope));
  if (recv) {
    grant.granted = true;
    grant.address = recv->address;
    grant.receiver_pid = static_cast<std::uint64_t>(dest->pid);
    reply.bytes = request.bytes;
    granted_[slave.index] = Granted{dest->world_rank, recv->id, envelope};
    ++incoming_[dest->index];
  }
  grant.Into(reply);
  master_.Reply(slave, reply);
}

void PlacedMessages::HandleDone(Slave& slave, const RequestMsg& request) {
  auto granted = granted_.find(slave.index);
  if (granted == granted_.end()) {
    master_.Fail(1, "rank " + std::to_string(slave.world_rank) +
                        " reported a placed message it was not offered");
    return;
  }
  Granted put = granted->second;
  granted_.erase(granted);
  Slave* dest = master_.slaves().ByWorldRank(put.dest_world_rank);
  if (--incoming_[dest->index] == 0) incoming_.erase(dest->index);
  if (int error = PlacedArgs::Of(request).error; error != 0) {
    // The write failed (the kernel refused it, or a buffer fault): the
    // message comes next as an ordinary send and takes this receive.
    BDMPI_DEBUG("p2p", "rank %d could not place a message for rank %d (errno %d)",
                slave.world_rank, dest->world_rank, error);
    p2p_.mailbox(*dest).Unreserve(put.recv_id);
    return;
  }
  Complete(slave, request, *dest, put.recv_id, put.envelope);
}

}  // namespace bdmpi
