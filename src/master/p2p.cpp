// The master's half of point-to-point: buffering sends, matching receives,
// probes. The slave's half is src/slave/p2p.cpp.
#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "common/file_io.h"
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
  RecordSend(slave, request, message.payload, dest == nullptr);
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
    ++remote_sent_;
    return;
  }
  if (dest->state == SlaveState::kExited) return;  // nobody will receive it
  dest->mailbox.Deliver(std::move(message));
  WakeIfReady(*dest);
}

void Master::DeliverRemoteMessage(IncomingMessage incoming) {
  ++remote_received_;
  const WireHeader& header = incoming.header;
  if (incoming.on_disk) recorder_.Spilled(header.bytes);
  Message message;
  message.envelope = Envelope{header.comm, header.source, header.tag};
  if (incoming.on_disk) {
    message.payload = Payload::OnDisk(
        std::make_shared<OwnedFile>(SpillPath(incoming.file_id), incoming.file_inode),
        incoming.file_id,
        header.bytes);
  } else {
    message.payload = StorePayload(std::move(incoming.memory));
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

std::vector<std::uint64_t> Master::TakeIds(Slave& slave, const RequestMsg& request) {
  std::vector<std::uint64_t> ids(request.bytes / sizeof(std::uint64_t));
  std::size_t bytes = ids.size() * sizeof(std::uint64_t);
  switch (request.where) {
    case Where::kNone:
      break;
    case Where::kInline:
      BDMPI_ENFORCE(inline_payload_ != nullptr, "inline payload outside a request message");
      std::memcpy(ids.data(), inline_payload_, bytes);
      break;
    case Where::kWindow:
      BDMPI_ENFORCE(bytes <= window_size_, "window payload larger than window");
      std::memcpy(ids.data(), io_->Window(slave.index), bytes);
      break;
    case Where::kFile: {
      OwnedFile file(SpillPath(request.file_id));  // unlinked when read
      spill_dir_.ReadPrefix(request.file_id, 0, ids.data(), bytes);
      break;
    }
  }
  return ids;
}

int Master::FirstCompleteRecv(const Slave& slave) const {
  for (std::size_t i = 0; i < slave.wait_ids.size(); ++i) {
    if (slave.mailbox.IsComplete(slave.wait_ids[i])) return static_cast<int>(i);
  }
  return -1;
}

void Master::HandleAnyRecv(Slave& slave, const RequestMsg& request) {
  slave.wait_ids = TakeIds(slave, request);
  bool ready = false;
  if (request.type == MsgType::kTestAll) {
    ready = std::all_of(slave.wait_ids.begin(), slave.wait_ids.end(),
                        [&](std::uint64_t id) { return slave.mailbox.IsComplete(id); });
  } else {
    ready = FirstCompleteRecv(slave) >= 0;
  }
  if (!ready && request.type == MsgType::kWaitAny) {
    Block(slave, SlaveState::kRBlocked, request);
    return;
  }
  // As in HandleTestRecv: a test that finds nothing lets others run first.
  if (!ready && request.type != MsgType::kPollAny && !scheduler_.idle()) {
    Yield(slave, request);
    return;
  }
  Reply(slave, CompleteAnyRecv(slave, request));
}

void Master::HandleFreeRecv(Slave& slave, const RequestMsg& request) {
  slave.mailbox.Discard(request.id);
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

bool Master::RecvReady(const Slave& slave, const RequestMsg& request) const {
  return slave.mailbox.IsComplete(request.id);
}

bool Master::ProbeReady(const Slave& slave, const RequestMsg& request) const {
  return slave.mailbox.Probe(request.comm, request.peer, request.tag) != nullptr;
}

bool Master::AnyRecvReady(const Slave& slave, const RequestMsg&) const {
  return FirstCompleteRecv(slave) >= 0;
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

ReplyMsg Master::CompleteAnyRecv(Slave& slave, const RequestMsg& request) {
  if (request.type == MsgType::kTestAll) {
    ReplyMsg reply;
    reply.type = request.type;
    reply.flag = std::all_of(slave.wait_ids.begin(), slave.wait_ids.end(),
                             [&](std::uint64_t id) { return slave.mailbox.IsComplete(id); });
    return reply;
  }
  int position = FirstCompleteRecv(slave);
  if (position < 0) {
    ReplyMsg reply;  // flag 0: none complete
    reply.type = request.type;
    return reply;
  }
  RequestMsg one = request;
  one.id = slave.wait_ids[position];
  ReplyMsg reply = CompleteRecv(slave, one);
  reply.flag = 1 + position;
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
