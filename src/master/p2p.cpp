// The master's half of point-to-point: buffering sends, matching receives,
// probes. The slave's half is src/slave/p2p/p2p.cpp.
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
  if (request.where == Where::kPutOffer) return HandlePutOffer(slave, request);
  if (request.where == Where::kPlaced) return HandlePutDone(slave, request);
  int dest_rank = comm.world_ranks[request.peer];
  Slave* dest = slaves_.ByWorldRank(dest_rank);
  if (request.where == Where::kWindow && PlaceFromWindow(slave, request, dest)) return;
  Message message;
  message.envelope = Envelope{request.comm, request.rank, request.tag};
  message.payload = request.where == Where::kLent
                        ? LentPayload(slave, request, dest == nullptr)
                        : payloads_.Take(request, io_->Window(slave.index), inline_payload_);
  // A lent block's id is what its sender waits for, not a send MPI_Cancel
  // may withdraw (collectives cannot be cancelled).
  message.sent_by = SentBy{slave.world_rank, request.where == Where::kLent ? 0 : request.id,
                           false};
  if (request.id != 0 && request.code == kSynchronousSend) {
    // Complete when its message is matched.
    message.sent_by.synchronous = true;
    slave.mailbox.AwaitMatch(AwaitedMatch{request.id, request.comm, request.peer, request.tag});
  }
  if (request.wants_reply) {
    // The payload has left the window: the sender may reuse it.
    ReplyMsg ack;
    ack.type = request.type;
    Reply(slave, ack);
  }
  RecordSend(slave, request, message.payload, dest == nullptr);
  if (dest == nullptr) {
    // Another node's: its master buffers it (paper 5.3).
    OutgoingMessage outgoing;
    outgoing.dest_node = NodeOf(dest_rank);
    outgoing.header.dest_world_rank = dest_rank;
    outgoing.header.comm = request.comm;
    outgoing.header.source = request.rank;
    outgoing.header.tag = request.tag;
    if (message.sent_by.synchronous) {
      outgoing.header.sync_sender = message.sent_by.world_rank;
      outgoing.header.sync_id = message.sent_by.id;
    }
    outgoing.payload = std::move(message.payload);
    network_->Send(std::move(outgoing));
    ++remote_sent_;
    return;
  }
  if (dest->state == SlaveState::kExited) return;  // nobody will receive it
  dest->mailbox.Deliver(std::move(message));
  TellMatchedSenders(*dest);
  WakeIfReady(*dest);
}

void Master::TellMatchedSenders(Slave& receiver) {
  for (const SentBy& sender : receiver.mailbox.TakeMatchedSenders()) {
    Slave* local = slaves_.ByWorldRank(sender.world_rank);
    if (local != nullptr) {
      if (local->mailbox.Matched(sender.id)) WakeIfReady(*local);
      continue;
    }
    // The sender's master completes it; the news travels behind this
    // node's earlier messages to that node, like any message.
    OutgoingMessage news;
    news.dest_node = NodeOf(sender.world_rank);
    news.header.kind = WireKind::kSyncMatched;
    news.header.dest_world_rank = sender.world_rank;
    news.header.sync_id = sender.id;
    network_->Send(std::move(news));
    ++remote_sent_;
  }
}

void Master::DeliverRemoteMessage(IncomingMessage incoming) {
  ++remote_received_;
  const WireHeader& header = incoming.header;
  Slave* dest = slaves_.ByWorldRank(header.dest_world_rank);
  BDMPI_ENFORCE(dest != nullptr, "a message for rank " +
                                     std::to_string(header.dest_world_rank) +
                                     " reached the wrong node");
  if (header.kind == WireKind::kSyncMatched) {
    if (dest->mailbox.Matched(header.sync_id)) WakeIfReady(*dest);
    return;
  }
  Message message;
  message.envelope = Envelope{header.comm, header.source, header.tag};
  message.sent_by = SentBy{header.sync_sender, header.sync_id, header.sync_id != 0};
  if (incoming.on_disk && incoming.in_memory) {
    message.payload = payloads_.AdoptIncoming(incoming.file_id, incoming.file_inode, header.bytes);
  } else if (incoming.on_disk) {
    recorder_.Spilled(header.bytes);
    message.payload = payloads_.Adopt(incoming.file_id, incoming.file_inode, header.bytes);
  } else {
    message.payload = payloads_.Store(std::move(incoming.memory));
  }
  if (dest->state == SlaveState::kExited) return;
  dest->mailbox.Deliver(std::move(message));
  TellMatchedSenders(*dest);
  WakeIfReady(*dest);
}

void Master::HandlePostRecv(Slave& slave, const RequestMsg& request) {
  PostedRecv recv{request.id, request.comm, request.peer, request.tag, request.bytes};
  recv.address = request.file_id;
  slave.mailbox.Post(recv);
  TellMatchedSenders(slave);
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
  if (!slave.mailbox.IsComplete(request.id) && !slaves_.idle()) {
    Yield(slave, request);
    return;
  }
  Reply(slave, CompleteRecv(slave, request));
}

std::vector<std::uint64_t> Master::TakeIds(Slave& slave, const RequestMsg& request) {
  std::vector<std::uint64_t> ids(request.bytes / sizeof(std::uint64_t));
  payloads_.Read(request, io_->Window(slave.index), inline_payload_, ids.data(),
                 ids.size() * sizeof(std::uint64_t));
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
  if (!ready && request.type != MsgType::kPollAny && !slaves_.idle()) {
    Yield(slave, request);
    return;
  }
  Reply(slave, CompleteAnyRecv(slave, request));
}

void Master::HandleFreeRecv(Slave& slave, const RequestMsg& request) {
  slave.mailbox.Discard(request.id);
}

// MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe: the row's completion
// says whether the message found leaves matching.
void Master::HandleProbe(Slave& slave, const RequestMsg& request) {
  if (!ProbeReady(slave, request)) {
    if (FindMessageRow(request.type)->blocks == Blocks::kRBlocked) {
      Block(slave, SlaveState::kRBlocked, request);
      return;
    }
    if (!slaves_.idle()) {
      Yield(slave, request);
      return;
    }
  }
  Reply(slave, Complete(slave, request));
}

void Master::HandleMrecv(Slave& slave, const RequestMsg& request) {
  slave.mailbox.SetCapacity(request.id, request.bytes);
  Reply(slave, CompleteRecv(slave, request));
}

void Master::HandleCancel(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  reply.flag = request.code == kCancelSend ? WithdrawSend(slave, request)
                                           : slave.mailbox.CancelRecv(request.id);
  Reply(slave, reply);
}

bool Master::WithdrawSend(Slave& slave, const RequestMsg& request) {
  const MasterComm* comm = comms_.Find(request.comm);
  if (comm == nullptr || request.peer < 0 ||
      request.peer >= static_cast<int>(comm->world_ranks.size()))
    return false;
  Slave* dest = slaves_.ByWorldRank(comm->world_ranks[request.peer]);
  // On another node the message is that master's: it may be matched
  // there at any moment, so the send is not cancelled (MPI allows that).
  if (dest == nullptr || !dest->mailbox.WithdrawMessage(slave.world_rank, request.id))
    return false;
  slave.mailbox.ForgetAwaited(request.id);  // a synchronous one waits no more
  return true;
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
  if (done->message.payload.lent() && done->recv.capacity > 0) {
    payloads_.GiveLent(done->message.payload, reply, slave.held_lent);
  } else {
    payloads_.Give(done->message.payload, done->recv.capacity, io_->Window(slave.index), reply,
                   slave.held_files);
  }
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

ReplyMsg Master::CompleteMprobe(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply = CompleteProbe(slave, request);
  if (reply.flag) {
    slave.mailbox.MatchProbe(request.id, request.comm, request.peer, request.tag);
    TellMatchedSenders(slave);
  }
  return reply;
}

}  // namespace bdmpi
