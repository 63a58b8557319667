// The master's half of point-to-point: buffering sends, matching receives,
// probes. The slave's half is src/slave/p2p.cpp.
#include "common/error.h"
#include "common/log.h"
#include "master/master.h"

namespace bdmpi {

void Master::HandleSend(Slave& slave, const RequestMsg& request) {
  const MasterComm& comm = Comm(request.comm);
  BDMPI_ENFORCE(request.peer >= 0 &&
                    request.peer < static_cast<int>(comm.world_ranks.size()),
                "send to rank " + std::to_string(request.peer));
  Message message;
  message.envelope = Envelope{request.comm, request.rank, request.tag};
  message.payload = TakePayload(slave, request);
  if (request.wants_reply) {
    // The payload has left the window: the sender may reuse it.
    ReplyMsg ack;
    ack.type = request.type;
    Reply(slave, ack);
  }
  int dest_rank = comm.world_ranks[request.peer];
  Slave* dest = LocalSlave(dest_rank);
  if (dest == nullptr) {
    // Another node's: its master buffers it (paper 5.3).
    OutgoingMessage outgoing;
    outgoing.dest_node = NodeOf(dest_rank);
    outgoing.header.dest_world_rank = dest_rank;
    outgoing.header.comm = request.comm;
    outgoing.header.source = request.rank;
    outgoing.header.tag = request.tag;
    outgoing.payload = std::move(message.payload);
    network_->Send(std::move(outgoing));
    return;
  }
  if (dest->state == SlaveState::kExited) return;  // nobody will receive it
  dest->mailbox.Deliver(std::move(message));
  WakeIfReady(*dest);
}

void Master::DeliverRemoteMessage(IncomingMessage incoming) {
  const WireHeader& header = incoming.header;
  Message message;
  message.envelope = Envelope{header.comm, header.source, header.tag};
  if (incoming.on_disk) {
    message.payload = Payload::OnDisk(
        std::make_shared<OwnedFile>(SpillPath(incoming.file_id)), incoming.file_id,
        header.bytes);
  } else if (budget_.TryReserve(incoming.memory.size())) {
    message.payload = Payload::InMemory(std::move(incoming.memory), &budget_);
  } else {
    std::uint64_t file_id = NewMasterFileId();
    WriteNewFile(SpillPath(file_id), incoming.memory.data(), incoming.memory.size());
    message.payload = Payload::OnDisk(std::make_shared<OwnedFile>(SpillPath(file_id)),
                                      file_id, header.bytes);
  }
  Slave* dest = LocalSlave(header.dest_world_rank);
  BDMPI_ENFORCE(dest != nullptr, "a message for rank " +
                                     std::to_string(header.dest_world_rank) +
                                     " reached the wrong node");
  if (dest->state == SlaveState::kExited) return;
  dest->mailbox.Deliver(std::move(message));
  WakeIfReady(*dest);
}

void Master::HandlePostRecv(Slave& slave, const RequestMsg& request) {
  slave.mailbox.Post(PostedRecv{request.id, request.comm, request.peer,
                                request.tag, request.bytes});
  // MPI_Recv posts and waits in one request.
  if (request.wants_reply) HandleWaitRecv(slave, request);
}

void Master::HandleWaitRecv(Slave& slave, const RequestMsg& request) {
  if (slave.mailbox.IsComplete(request.id)) {
    Reply(slave, CompleteRecv(slave, request));
  } else {
    Block(slave, SlaveState::kRBlocked, request);
  }
}

void Master::HandleTestRecv(Slave& slave, const RequestMsg& request) {
  // A test that finds nothing lets others run first, so that a polling
  // loop cannot hold a running slot forever.
  if (!slave.mailbox.IsComplete(request.id) && !scheduler_.idle()) {
    Yield(slave, request);
    return;
  }
  Reply(slave, CompleteRecv(slave, request));
}

void Master::HandleProbe(Slave& slave, const RequestMsg& request) {
  if (slave.mailbox.Probe(request.comm, request.peer, request.tag) == nullptr) {
    if (request.type == MsgType::kProbe) {
      Block(slave, SlaveState::kRBlocked, request);
      return;
    }
    if (!scheduler_.idle()) {
      Yield(slave, request);
      return;
    }
  }
  Reply(slave, CompleteProbe(slave, request));
}

ReplyMsg Master::CompleteRecv(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  std::optional<CompletedRecv> done = slave.mailbox.TakeCompleted(request.id);
  if (!done) return reply;  // a test that found nothing: flag 0
  reply.flag = 1;
  reply.source = done->message.envelope.source;
  reply.tag = done->message.envelope.tag;
  GivePayload(slave, done->message.payload, done->recv.capacity, reply);
  if (reply.bytes > done->recv.capacity) reply.error = kErrTruncate;
  return reply;
}

ReplyMsg Master::CompleteProbe(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  const Message* message =
      slave.mailbox.Probe(request.comm, request.peer, request.tag);
  if (message == nullptr) return reply;
  reply.flag = 1;
  reply.source = message->envelope.source;
  reply.tag = message->envelope.tag;
  reply.bytes = message->payload.bytes();
  return reply;
}

}  // namespace bdmpi
