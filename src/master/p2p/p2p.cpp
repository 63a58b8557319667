// The master's half of point-to-point (p2p.h): buffering sends, matching
// receives, probes. The slave's half is src/slave/p2p/p2p.cpp.
#include "master/p2p/p2p.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "common/error.h"
#include "common/file_io.h"
#include "common/log.h"
#include "common/rma_node_file.h"
#include "master/message_table.h"
#include "master/rma/rma_forward.h"

namespace bdmpi {

PointToPoint::PointToPoint(MasterServices& master, PayloadStore& payloads, JobRecorder& recorder,
                           bool single_copy)
    : master_(master),
      payloads_(payloads),
      recorder_(recorder),
      single_copy_(single_copy),
      placed_(master, *this),
      direct_(master, *this) {}

void PointToPoint::HandleSend(Slave& slave, const RequestMsg& request,
                              const std::byte* inline_payload) {
  Slave* dest = DestOf(request);
  // A standard send's window payload goes straight into its posted receive.
  if (request.where == Where::kWindow && placed_.FromWindow(slave, request, dest)) {
    // Matched already: its sender's count of unmatched sends goes down.
    if (auto* pending = dest != nullptr ? direct_.PendingOf(slave, *dest, request) : nullptr) {
      pending->fetch_sub(1, std::memory_order_seq_cst);
    }
    return;
  }
  Message message;
  message.payload = payloads_.Take(request, master_.Window(slave.index), inline_payload);
  message.sent_by = SentBy{slave.world_rank, request.id, false};
  Deliver(slave, request, std::move(message), dest);
}

void PointToPoint::HandleSyncSend(Slave& slave, const RequestMsg& request,
                                  const std::byte* inline_payload) {
  if (request.id == 0) {
    master_.Fail(1, "rank " + std::to_string(slave.world_rank) +
                        " sent a synchronous message without the id that waits for its match");
    return;
  }
  Slave* dest = DestOf(request);
  Message message;
  message.payload = payloads_.Take(request, master_.Window(slave.index), inline_payload);
  // Complete when its message is matched.
  message.sent_by = SentBy{slave.world_rank, request.id, true};
  mailbox(slave).AwaitMatch(AwaitedMatch{request.id, request.comm, request.peer, request.tag});
  Deliver(slave, request, std::move(message), dest);
}

void PointToPoint::HandleLentSend(Slave& slave, const RequestMsg& request) {
  Slave* dest = DestOf(request);
  Message message;
  message.payload = LentPayload(slave, LentSendArgs::Of(request), request, dest == nullptr);
  // Its id is what its sender waits for, not a send MPI_Cancel may
  // withdraw (collectives cannot be cancelled).
  message.sent_by = SentBy{slave.world_rank, 0, false};
  Deliver(slave, request, std::move(message), dest);
}

void PointToPoint::HandlePlaceOffer(Slave& slave, const RequestMsg& request) {
  placed_.HandleOffer(slave, request);
}

void PointToPoint::HandlePlaced(Slave& slave, const RequestMsg& request) {
  placed_.HandleDone(slave, request);
}

Slave* PointToPoint::DestOf(const RequestMsg& request) {
  const MasterComm& comm = master_.Comm(request.comm);
  BDMPI_ENFORCE(request.peer >= 0 &&
                    request.peer < static_cast<int>(comm.world_ranks.size()),
                "send to rank " + std::to_string(request.peer));
  return master_.slaves().ByWorldRank(comm.world_ranks[request.peer]);
}

void PointToPoint::Deliver(Slave& slave, const RequestMsg& request, Message message,
                           Slave* dest) {
  // A send its sender counted in the direct table's pending count for
  // `dest` holds that count until it is matched (direct_receives.h).
  if (dest != nullptr) message.pending = direct_.PendingOf(slave, *dest, request);
  message.envelope = Envelope{request.comm, request.rank, request.tag,
                              MatchOrdinal::Of(request).ordinal};
  if (request.wants_reply) {
    // The payload has left the window: the sender may reuse it.
    ReplyMsg ack;
    ack.type = request.type;
    master_.Reply(slave, ack);
  }
  master_.RecordSend(slave, request, message.payload, dest == nullptr);
  if (dest == nullptr) {
    // Another node's: its master buffers it (paper 5.3).
    int dest_rank = master_.Comm(request.comm).world_ranks[request.peer];
    OutgoingMessage outgoing;
    outgoing.dest_node = master_.NodeOf(dest_rank);
    outgoing.header.dest_world_rank = dest_rank;
    outgoing.header.comm = request.comm;
    outgoing.header.source = request.rank;
    outgoing.header.tag = request.tag;
    outgoing.header.ordinal = message.envelope.ordinal;
    if (message.sent_by.synchronous) {
      outgoing.header.sync_sender = message.sent_by.world_rank;
      outgoing.header.sync_id = message.sent_by.id;
    }
    outgoing.payload = std::move(message.payload);
    master_.network()->Send(std::move(outgoing));
    ++remote_sent_;
    return;
  }
  if (dest->state == SlaveState::kExited) return;  // nobody will receive it
  mailbox(*dest).Deliver(std::move(message));
  TellMatchedSenders(*dest);
  master_.WakeIfReady(*dest);
}

void PointToPoint::TellMatchedSenders(Slave& receiver) {
  for (const SentBy& sender : mailbox(receiver).TakeMatchedSenders()) {
    Slave* local = master_.slaves().ByWorldRank(sender.world_rank);
    if (local != nullptr) {
      if (mailbox(*local).Matched(sender.id)) master_.WakeIfReady(*local);
      continue;
    }
    // The sender's master completes it; the news travels behind this
    // node's earlier messages to that node, like any message.
    OutgoingMessage news;
    news.dest_node = master_.NodeOf(sender.world_rank);
    news.header.kind = WireKind::kSyncMatched;
    news.header.dest_world_rank = sender.world_rank;
    news.header.sync_id = sender.id;
    master_.network()->Send(std::move(news));
    ++remote_sent_;
  }
}

void PointToPoint::DeliverRemote(IncomingMessage incoming) {
  ++remote_received_;
  const WireHeader& header = incoming.header;
  Slave* dest = master_.slaves().ByWorldRank(header.dest_world_rank);
  BDMPI_ENFORCE(dest != nullptr, "a message for rank " +
                                     std::to_string(header.dest_world_rank) +
                                     " reached the wrong node");
  if (header.kind == WireKind::kSyncMatched) {
    if (mailbox(*dest).Matched(header.sync_id)) master_.WakeIfReady(*dest);
    return;
  }
  Message message;
  message.envelope = Envelope{header.comm, header.source, header.tag, header.ordinal};
  message.sent_by = SentBy{header.sync_sender, header.sync_id, header.sync_id != 0};
  if (incoming.on_disk && incoming.in_memory) {
    message.payload = payloads_.AdoptIncoming(incoming.file_id, incoming.file_inode, header.bytes);
  } else if (incoming.on_disk) {
    recorder_.Spilled(header.bytes);
    message.payload = payloads_.Adopt(incoming.file_id, incoming.file_inode, header.bytes);
  } else {
    message.payload = payloads_.Store(std::move(incoming.memory));
  }
  if (header.tag == rma::kTagRemoteOp) {
    ApplyRemote(*dest, header, message.payload);
    return;
  }
  if (dest->state == SlaveState::kExited) return;
  mailbox(*dest).Deliver(std::move(message));
  TellMatchedSenders(*dest);
  master_.WakeIfReady(*dest);
}

void PointToPoint::ApplyRemote(const Slave& target, const WireHeader& header,
                               const Payload& payload) {
  const std::byte* packet = payload.memory().data();
  if (payload.on_disk()) {
    std::byte* read = PacketBuffer(payload.bytes());
    UniqueFd fd = payload.Open(O_RDONLY);
    ReadExactlyAt(fd.get(), read, payload.bytes(), 0, "a one-sided operation's file");
    packet = read;
  }
  // A large answer (a get's bytes) is written where it is sent from,
  // straight into a memory file with no copy in between; a smaller one
  // costs fewer system calls stored afterwards.
  constexpr std::size_t kAnswerInPlace = std::size_t{512} << 10;
  Payload answer;
  std::vector<std::byte> small;
  std::optional<MappedFile> map;
  ApplyRemoteOp(payloads_.spill_dir(), packet, payload.bytes(), [&](std::size_t bytes) {
    if (bytes < kAnswerInPlace) {
      small.resize(bytes);
      return small.data();
    }
    answer = payloads_.Allocate(bytes, map);
    if (!map) return answer.memory().data();
    // Its pages at once: one call where process_vm_readv would fault them
    // in one by one (a third of a 1 MiB get's time). Only a hint.
    madvise(map->data(), bytes, MADV_POPULATE_WRITE);
    return map->data();
  });
  map.reset();
  if (!small.empty()) answer = payloads_.Store(std::move(small));
  // Back to the origin on the window's communicator, from the target.
  const MasterComm& comm = master_.Comm(header.comm);
  int origin = comm.world_ranks[static_cast<std::size_t>(header.source)];
  OutgoingMessage outgoing;
  outgoing.dest_node = master_.NodeOf(origin);
  outgoing.header.dest_world_rank = origin;
  outgoing.header.comm = header.comm;
  outgoing.header.source = static_cast<std::int32_t>(
      std::find(comm.world_ranks.begin(), comm.world_ranks.end(), target.world_rank) -
      comm.world_ranks.begin());
  outgoing.header.tag = rma::kTagRemoteReply;
  outgoing.payload = std::move(answer);
  master_.network()->Send(std::move(outgoing));
  ++remote_sent_;
}

void PointToPoint::AwaitUnposted(const Slave& slave, std::uint64_t id) {
  mailbox(slave).AwaitUnposted(id);
}

void PointToPoint::CompleteUnposted(const Slave& slave, std::uint64_t id, Message outcome) {
  mailbox(slave).CompleteUnposted(id, std::move(outcome));
}

void PointToPoint::HandlePostRecv(Slave& slave, const RequestMsg& request) {
  PostedRecv recv{request.id, request.comm, request.peer, request.tag, request.bytes,
                  MatchOrdinal::Of(request).ordinal};
  recv.address = PostRecvArgs::Of(request).address;
  // Over already: written by a sender while the slave polled for it, and
  // its slot collected (its DirectTaken follows).
  if (!direct_.Attach(slave, request, recv)) return;
  mailbox(slave).Post(recv);
  if (recv.slot != nullptr) direct_.CompleteIfWritten(slave, recv.id);
  TellMatchedSenders(slave);
  // MPI_Recv posts and waits in one request.
  if (request.wants_reply) HandleWaitRecv(slave, request);
}

void PointToPoint::SlavesCreated(int count) {
  peers_ = std::vector<Peer>(static_cast<std::size_t>(count));
  for (int index = 0; index < count; ++index) ResetPeer(index);
}

void PointToPoint::ClearPeer(const Slave& slave) { ResetPeer(slave.index); }

void PointToPoint::ResetPeer(int index) {
  Peer& fresh = peers_[static_cast<std::size_t>(index)];
  fresh = Peer{};
  DirectTable table = master_.Direct();
  if (table.valid() && index < table.size())
    fresh.mailbox.PublishCompletedTo(&table.rank(index).completions);
}

void PointToPoint::HandleWaitRecv(Slave& slave, const RequestMsg& request) {
  if (mailbox(slave).IsComplete(request.id)) {
    master_.Reply(slave, CompleteRecv(slave, request));
  } else {
    master_.Block(slave, SlaveState::kRBlocked, request);
  }
}

void PointToPoint::HandleTestRecv(Slave& slave, const RequestMsg& request) {
  // A test that finds nothing lets others run first, so that a polling
  // loop cannot hold a running slot forever.
  if (!mailbox(slave).IsComplete(request.id) && master_.TestYields(slave, request)) {
    master_.Yield(slave, request);
    return;
  }
  master_.Reply(slave, CompleteRecv(slave, request));
}

int PointToPoint::FirstCompleteRecv(const Slave& slave) const {
  for (std::size_t i = 0; i < peer(slave).wait_ids.size(); ++i) {
    if (mailbox(slave).IsComplete(peer(slave).wait_ids[i])) return static_cast<int>(i);
  }
  return -1;
}

void PointToPoint::HandleAnyRecv(Slave& slave, const RequestMsg& request,
                           const std::byte* inline_payload) {
  peer(slave).wait_ids =
      payloads_.ReadIds(request, master_.Window(slave.index), inline_payload);
  if (FirstCompleteRecv(slave) < 0) {
    // A wait blocks; as in HandleTestRecv, a test that finds nothing lets
    // others run first; a poll (kNever) just answers.
    Blocks blocks = FindMessageRow(request.type)->blocks;
    if (blocks == Blocks::kRBlocked) {
      master_.Block(slave, SlaveState::kRBlocked, request);
      return;
    }
    if (blocks == Blocks::kRunnable && master_.TestYields(slave, request)) {
      master_.Yield(slave, request);
      return;
    }
  }
  master_.Reply(slave, CompleteAnyRecv(slave, request));
}

void PointToPoint::HandleTestAll(Slave& slave, const RequestMsg& request,
                           const std::byte* inline_payload) {
  peer(slave).wait_ids =
      payloads_.ReadIds(request, master_.Window(slave.index), inline_payload);
  ReplyMsg reply = CompleteTestAll(slave, request);
  // As in HandleTestRecv: a test that finds nothing lets others run first.
  if (!reply.flag && master_.TestYields(slave, request)) {
    master_.Yield(slave, request);
    return;
  }
  master_.Reply(slave, reply);
}

void PointToPoint::HandleFreeRecv(Slave& slave, const RequestMsg& request) {
  mailbox(slave).Discard(request.id);
}

void PointToPoint::HandleProbe(Slave& slave, const RequestMsg& request) {
  Probe(slave, request, &PointToPoint::CompleteProbe);
}

void PointToPoint::HandleMprobe(Slave& slave, const RequestMsg& request) {
  Probe(slave, request, &PointToPoint::CompleteMprobe);
}

void PointToPoint::Probe(Slave& slave, const RequestMsg& request,
                         ReplyMsg (PointToPoint::*complete)(Slave&, const RequestMsg&)) {
  if (!ProbeReady(slave, request)) {
    if (FindMessageRow(request.type)->blocks == Blocks::kRBlocked) {
      master_.Block(slave, SlaveState::kRBlocked, request);
      return;
    }
    if (master_.TestYields(slave, request)) {
      master_.Yield(slave, request);
      return;
    }
  }
  master_.Reply(slave, (this->*complete)(slave, request));
}

void PointToPoint::HandleMrecv(Slave& slave, const RequestMsg& request) {
  mailbox(slave).SetCapacity(request.id, request.bytes);
  master_.Reply(slave, CompleteRecv(slave, request));
}

void PointToPoint::HandleCancel(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  reply.flag = mailbox(slave).CancelRecv(request.id);
  master_.Reply(slave, reply);
}

void PointToPoint::HandleCancelSend(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  reply.flag = WithdrawSend(slave, request);
  master_.Reply(slave, reply);
}

bool PointToPoint::WithdrawSend(Slave& slave, const RequestMsg& request) {
  const MasterComm* comm = master_.FindComm(request.comm);
  if (comm == nullptr || request.peer < 0 ||
      request.peer >= static_cast<int>(comm->world_ranks.size()))
    return false;
  Slave* dest = master_.slaves().ByWorldRank(comm->world_ranks[request.peer]);
  // On another node the message is that master's: it may be matched
  // there at any moment, so the send is not cancelled (MPI allows that).
  if (dest == nullptr || !mailbox(*dest).WithdrawMessage(slave.world_rank, request.id))
    return false;
  mailbox(slave).ForgetAwaited(request.id);  // a synchronous one waits no more
  return true;
}

bool PointToPoint::RecvReady(const Slave& slave, const RequestMsg& request) const {
  return mailbox(slave).IsComplete(request.id);
}

bool PointToPoint::ProbeReady(const Slave& slave, const RequestMsg& request) const {
  return mailbox(slave).Probe(request.comm, request.peer, request.tag) != nullptr;
}

bool PointToPoint::AnyRecvReady(const Slave& slave, const RequestMsg&) const {
  return FirstCompleteRecv(slave) >= 0;
}

ReplyMsg PointToPoint::CompleteRecv(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  std::optional<CompletedRecv> done = mailbox(slave).TakeCompleted(request.id);
  if (!done) return reply;  // a test that found nothing: flag 0
  reply.flag = 1;
  reply.source = done->message.envelope.source;
  reply.tag = done->message.envelope.tag;
  if (done->message.payload.lent() && done->recv.capacity > 0) {
    payloads_.GiveLent(done->message.payload, reply, peer(slave).held_lent);
  } else {
    payloads_.Give(done->message.payload, done->recv.capacity, master_.Window(slave.index),
                   reply, slave.held_files);
  }
  if (reply.bytes > done->recv.capacity) reply.error = kErrTruncate;
  return reply;
}

ReplyMsg PointToPoint::CompleteTestAll(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  reply.flag = std::all_of(peer(slave).wait_ids.begin(), peer(slave).wait_ids.end(),
                           [&](std::uint64_t id) { return mailbox(slave).IsComplete(id); });
  return reply;
}

ReplyMsg PointToPoint::CompleteAnyRecv(Slave& slave, const RequestMsg& request) {
  int position = FirstCompleteRecv(slave);
  if (position < 0) {
    ReplyMsg reply;  // flag 0: none complete
    reply.type = request.type;
    return reply;
  }
  RequestMsg one = request;
  one.id = peer(slave).wait_ids[position];
  ReplyMsg reply = CompleteRecv(slave, one);
  reply.flag = 1 + position;
  return reply;
}

ReplyMsg PointToPoint::CompleteProbe(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  const Message* message =
      mailbox(slave).Probe(request.comm, request.peer, request.tag);
  if (message == nullptr) return reply;
  reply.flag = 1;
  reply.source = message->envelope.source;
  reply.tag = message->envelope.tag;
  reply.bytes = message->payload.bytes();
  return reply;
}

ReplyMsg PointToPoint::CompleteMprobe(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply = CompleteProbe(slave, request);
  if (reply.flag) {
    mailbox(slave).MatchProbe(request.id, request.comm, request.peer, request.tag);
    TellMatchedSenders(slave);
  }
  return reply;
}

}  // namespace bdmpi
