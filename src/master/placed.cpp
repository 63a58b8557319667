// Placed messages: a large send whose receive is already posted on this
// node is written by the sender straight into the receive buffer
// (process_vm_writev), one copy instead of two (into a payload segment,
// out of it), and nothing held by the master. The sender asks first
// (Where::kPutOffer); the master reserves the receive that MPI order gives
// the message, or refuses, and the sender then sends it as usual, so a
// send still never waits for its receiver. docs/architecture.md, "Placed
// messages"; the slave's half is Runtime::TryPlace.
#include "common/log.h"
#include "master/master.h"

namespace bdmpi {

void Master::HandlePutOffer(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;  // where kNone: refused
  const MasterComm& comm = Comm(request.comm);
  Slave* dest = slaves_.ByWorldRank(comm.world_ranks[request.peer]);
  // A switched-out receiver's memory is on disk: writing into it would
  // bring pages back behind the budget's back (and race the write-back of
  // one being switched out). Such a message waits in memory as usual.
  bool may_write = dest != nullptr && dest != &slave && dest->pid > 0 &&
                   dest->state != SlaveState::kExited && !dest->storage_released &&
                   !dest->storage_releasing && !slave.granted_put;
  Envelope envelope{request.comm, request.rank, request.tag};
  std::optional<PostedRecv> recv;
  if (may_write) recv = dest->mailbox.ReserveForPlacing(envelope, request.bytes);
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
    Fail(1, "rank " + std::to_string(slave.world_rank) + " reported a placed message it was not offered");
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
  Message message;
  message.envelope = put.envelope;
  message.payload = Payload::Placed(request.bytes);
  message.sent_by = SentBy{slave.world_rank, request.id, false};
  RecordSend(slave, request, message.payload, false);
  if (dest->state == SlaveState::kExited) return;
  dest->mailbox.CompleteReserved(put.recv_id, std::move(message));
  WakeIfReady(*dest);
}

}  // namespace bdmpi
