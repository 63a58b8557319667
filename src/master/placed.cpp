// Placed messages: a send whose receive is already posted on this node is
// written straight into the receive buffer (process_vm_writev) and held by
// nobody. One larger than the window by the sender itself: one copy
// instead of two (into a payload segment, out of it). The sender asks first
// (Where::kPutOffer); the master reserves the receive that MPI order gives
// the message, or refuses, and the sender then sends it as usual, so a
// send still never waits for its receiver. One that came through the
// sender's window by the master, from the window: two copies instead of
// four (into the window, into master memory, into the receiver's window,
// out of it). docs/data-path.md, "Placed messages"; the slave's half is
// Runtime::TryPlace.
#include <cstring>

#include "common/log.h"
#include "common/process_memory.h"
#include "master/master.h"

namespace bdmpi {

bool Master::MayPlaceInto(const Slave& sender, const Slave* dest) const {
  // A switched-out receiver's memory is on disk: writing into it would
  // bring pages back behind the budget's back (and race the write-back of
  // one being switched out). Such a message waits in memory as usual.
  return dest != nullptr && dest != &sender && dest->pid > 0 &&
         dest->state != SlaveState::kExited && !dest->storage_released &&
         !dest->storage_releasing;
}

bool Master::PlaceFromWindow(Slave& slave, const RequestMsg& request, Slave* dest) {
  // A synchronous or buffered send needs the usual match notice.
  if (request.code != 0 || !MayPlaceInto(slave, dest)) return false;
  Envelope envelope{request.comm, request.rank, request.tag};
  std::optional<PostedRecv> recv = dest->mailbox.ReserveForPlacing(envelope, request.bytes);
  if (!recv) return false;
  int error =
      WriteProcessMemory(dest->pid, recv->address, io_->Window(slave.index), request.bytes);
  if (error != 0) {
    // Refused or a bad receive buffer: the usual way, which reports it.
    BDMPI_DEBUG("p2p", "could not place a message for rank %d (%s)", dest->world_rank,
                std::strerror(error));
    dest->mailbox.Unreserve(recv->id);
    return false;
  }
  if (request.wants_reply) {
    ReplyMsg ack;  // the window is free again
    ack.type = request.type;
    Reply(slave, ack);
  }
  RequestMsg placed = request;
  placed.where = Where::kPlaced;
  CompletePlaced(slave, placed, *dest, recv->id, envelope);
  return true;
}

void Master::CompletePlaced(const Slave& sender, const RequestMsg& request, Slave& dest,
                            std::uint64_t recv_id, const Envelope& envelope) {
  Message message;
  message.envelope = envelope;
  message.payload = Payload::Placed(request.bytes);
  message.sent_by = SentBy{sender.world_rank, request.id, false};
  RecordSend(sender, request, message.payload, false);
  if (dest.state == SlaveState::kExited) return;
  dest.mailbox.CompleteReserved(recv_id, std::move(message));
  WakeIfReady(dest);
}

void Master::HandlePutOffer(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;  // where kNone: refused
  Slave* dest = slaves_.ByWorldRank(Comm(request.comm).world_ranks[request.peer]);
  if (slave.granted_put || !MayPlaceInto(slave, dest)) dest = nullptr;
  Envelope envelope{request.comm, request.rank, request.tag};
  std::optional<PostedRecv> recv;
  if (dest != nullptr) recv = dest->mailbox.ReserveForPlacing(envelope, request.bytes);
  // flag 1: refused for now (no receive posted yet, or the receiver is
  // switched out), which the sender takes as a hint to ask less often;
  // flag 0: a posted receive that cannot take it.
  if (!recv && (dest == nullptr || !dest->mailbox.HasPostedMatch(envelope))) reply.flag = 1;
  if (recv) {
    reply.where = Where::kPutOffer;
    reply.bytes = request.bytes;
    reply.file_id = recv->address;
    reply.file_ino = static_cast<std::uint64_t>(dest->pid);
    slave.granted_put = Slave::GrantedPut{dest->world_rank, recv->id, envelope};
    ++dest->incoming_puts;
  }
  Reply(slave, reply);
}

void Master::HandlePutDone(Slave& slave, const RequestMsg& request) {
  if (!slave.granted_put) {
    Fail(1, "rank " + std::to_string(slave.world_rank) +
                " reported a placed message it was not offered");
    return;
  }
  Slave::GrantedPut put = *slave.granted_put;
  slave.granted_put.reset();
  Slave* dest = slaves_.ByWorldRank(put.dest_world_rank);
  --dest->incoming_puts;
  if (request.code != 0) {
    // The write failed (the kernel refused it, or a buffer fault): the
    // message comes next as an ordinary send and takes this receive.
    BDMPI_DEBUG("p2p", "rank %d could not place a message for rank %d (errno %d)",
                slave.world_rank, dest->world_rank, request.code);
    dest->mailbox.Unreserve(put.recv_id);
    return;
  }
  CompletePlaced(slave, request, *dest, put.recv_id, put.envelope);
}

}  // namespace bdmpi
