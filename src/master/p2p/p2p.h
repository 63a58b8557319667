// Point-to-point, the master's side: buffering sends, matching receives,
// probes, cancels (p2p.cpp), the lent blocks of large sends (lent_blocks.cpp),
// placed messages (placed.h) and what a rank blocked in one of them waits
// for (p2p_describe.cpp). The state is this family's: each slave's mailbox
// (its posted receives, its unexpected messages, its sends that wait for a
// match), the receive ids of its last WaitAny/TestAll and the lent block
// its last reply named. The slave's half is src/slave/p2p.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/protocol.h"
#include "master/master_services.h"
#include "master/memory/payload_store.h"
#include "master/network/network.h"
#include "master/observe/job_recorder.h"
#include "master/p2p/direct_receives.h"
#include "master/p2p/lent_block.h"
#include "master/p2p/mailbox.h"
#include "master/p2p/placed.h"
#include "master/slave.h"

namespace bdmpi {

class PointToPoint {
 public:
  // `single_copy`: --single-copy.
  PointToPoint(MasterServices& master, PayloadStore& payloads, JobRecorder& recorder,
               bool single_copy);
  PointToPoint(const PointToPoint&) = delete;
  PointToPoint& operator=(const PointToPoint&) = delete;

  // The node's slaves are made (indices 0 .. count - 1).
  void SlavesCreated(int count);
  // The message table's handlers and functions. The four ways of a send
  // (common/protocol.h): standard, synchronous (or buffered: it wants its
  // match notice), a lent block, and the two steps of a placed message.
  void HandleSend(Slave& slave, const RequestMsg& request, const std::byte* inline_payload);
  void HandleSyncSend(Slave& slave, const RequestMsg& request, const std::byte* inline_payload);
  void HandleLentSend(Slave& slave, const RequestMsg& request);
  void HandlePlaceOffer(Slave& slave, const RequestMsg& request);
  void HandlePlaced(Slave& slave, const RequestMsg& request);
  void HandlePostRecv(Slave& slave, const RequestMsg& request);
  void HandleWaitRecv(Slave& slave, const RequestMsg& request);
  void HandleTestRecv(Slave& slave, const RequestMsg& request);
  // MPI_Probe, MPI_Iprobe; MPI_Mprobe, MPI_Improbe (the message found
  // leaves matching).
  void HandleProbe(Slave& slave, const RequestMsg& request);
  void HandleMprobe(Slave& slave, const RequestMsg& request);
  // WaitAny, TestAny, PollAny over the ids the request names.
  void HandleAnyRecv(Slave& slave, const RequestMsg& request, const std::byte* inline_payload);
  // TestAll: whether every receive the request names is complete.
  void HandleTestAll(Slave& slave, const RequestMsg& request, const std::byte* inline_payload);
  void HandleFreeRecv(Slave& slave, const RequestMsg& request);
  void HandleMrecv(Slave& slave, const RequestMsg& request);
  // MPI_Cancel of a receive, of a send.
  void HandleCancel(Slave& slave, const RequestMsg& request);
  void HandleCancelSend(Slave& slave, const RequestMsg& request);
  // A rank could not read another's lent block: it gets a copy.
  void HandleCopyLent(Slave& slave, const RequestMsg& request);
  // A sender wrote a receive the master knew straight into its buffer
  // (direct_receives.h).
  void HandleDirectDone(Slave& slave, const RequestMsg& request) {
    direct_.HandleDone(slave, request);
  }
  void HandleDirectTaken(Slave& slave, const RequestMsg& request) {
    mailbox(slave).ForgetTaken(request.id);
  }
  bool RecvReady(const Slave& slave, const RequestMsg& request) const;
  bool ProbeReady(const Slave& slave, const RequestMsg& request) const;
  bool AnyRecvReady(const Slave& slave, const RequestMsg& request) const;
  ReplyMsg CompleteRecv(Slave& slave, const RequestMsg& request);
  ReplyMsg CompleteAnyRecv(Slave& slave, const RequestMsg& request);
  ReplyMsg CompleteTestAll(Slave& slave, const RequestMsg& request);
  ReplyMsg CompleteProbe(Slave& slave, const RequestMsg& request);
  ReplyMsg CompleteMprobe(Slave& slave, const RequestMsg& request);
  // What a rank blocked in a receive, probe or wait waits for, as the
  // user wrote it (p2p_describe.cpp).
  std::string DescribeSourceTag(const Slave& slave, const RequestMsg& request) const;
  std::string DescribeWaitRecv(const Slave& slave, const RequestMsg& request) const;
  std::string DescribeWaitAny(const Slave& slave, const RequestMsg& request) const;
  std::string DescribeAwaitedSend(const Slave& slave, const RequestMsg& request) const;
  // The world ranks whose messages `slave`'s posted receives wait for (-1:
  // MPI_ANY_SOURCE or not known), for the memory policy (switch_policy.h).
  void AwaitedSources(const Slave& slave, std::vector<int>& world_ranks) const;

  // A message from another node's master.
  void DeliverRemote(IncomingMessage message);
  // A receive that completes without being posted (MPI_Comm_idup's
  // outcome, idup_split.cpp).
  void AwaitUnposted(const Slave& slave, std::uint64_t id);
  void CompleteUnposted(const Slave& slave, std::uint64_t id, Message outcome);
  // `slave` has read its last reply (or exited): the lent block it named
  // goes back to its sender.
  void LetGoOfReply(const Slave& slave) { peer(slave).held_lent.reset(); }
  // `slave` has exited and its slot takes a new rank: the messages that
  // waited for it and its receives go.
  void ClearPeer(const Slave& slave);
  // Completes the sends whose lent blocks went back (without scheduling:
  // the callers do).
  void TakeBackLentBlocks();
  // Copies the lent blocks no receiver holds of the lenders `which`
  // accepts (by slave index) and completes their sends; returns how many.
  template <class Which>
  std::size_t MaterializeLentBlocks(Which which) {
    std::size_t copied = payloads_.MaterializeLent(which);
    if (copied > 0) TakeBackLentBlocks();
    return copied;
  }
  // Whether senders may be writing into `slave`'s memory now (placed.h).
  bool HasIncoming(const Slave& slave) const { return placed_.HasIncoming(slave); }
  // Says in -v whether this job's ranks lend blocks (slave/p2p/lent_blocks.h
  // decides the same from the same facts).
  void LogLending() const;
  // Messages forwarded to other nodes and delivered from them, for the
  // deadlock watch across nodes.
  std::uint64_t remote_sent() const { return remote_sent_; }
  std::uint64_t remote_received() const { return remote_received_; }

 private:
  // What this family keeps of one slave.
  struct Peer {
    Mailbox mailbox;
    // The receive ids of its last WaitAny / TestAny / PollAny / TestAll.
    std::vector<std::uint64_t> wait_ids;
    // A block lent by another slave, named in its last reply: goes back to
    // its sender at this slave's next request (or after a CopyLent).
    std::shared_ptr<LentBlock> held_lent;
  };
  Peer& peer(const Slave& slave) { return peers_[static_cast<std::size_t>(slave.index)]; }
  const Peer& peer(const Slave& slave) const {
    return peers_[static_cast<std::size_t>(slave.index)];
  }
  Mailbox& mailbox(const Slave& slave) { return peer(slave).mailbox; }
  const Mailbox& mailbox(const Slave& slave) const { return peer(slave).mailbox; }

  // A probe answered now (or blocked, or yielded) with `complete`'s reply.
  void Probe(Slave& slave, const RequestMsg& request,
             ReplyMsg (PointToPoint::*complete)(Slave&, const RequestMsg&));
  // MPI_Cancel of a send: withdraws its message if it is still unmatched
  // in a mailbox of this node.
  bool WithdrawSend(Slave& slave, const RequestMsg& request);
  // The payload of a LentSend, copied at once when it leaves the node or
  // lending failed (lent_blocks.cpp).
  Payload LentPayload(Slave& slave, const LentSendArgs& lent, const RequestMsg& request,
                      bool remote);
  // The destination of a send, null when it runs on another node.
  Slave* DestOf(const RequestMsg& request);
  // Hands a send's message to its destination's mailbox, or to its node's
  // master; acknowledges a window payload.
  void Deliver(Slave& slave, const RequestMsg& request, Message message, Slave* dest);
  // Tells the synchronous senders whose messages `receiver`'s mailbox has
  // just matched (locally, or through their node's master).
  void TellMatchedSenders(Slave& receiver);
  // A new mailbox for slave `index`, which publishes its completions in
  // the node's table when there is one.
  void ResetPeer(int index);
  // Position in the slave's wait_ids of the first complete receive, or -1.
  int FirstCompleteRecv(const Slave& slave) const;
  // A one-sided operation of an origin on another node, aimed at
  // `target` (tag rma::kTagRemoteOp): applied and answered, never delivered
  // (master/rma/rma_forward.h).
  void ApplyRemote(const Slave& target, const WireHeader& header, const Payload& payload);
  std::string DescribePosted(const Slave& slave, std::uint64_t id) const;

  MasterServices& master_;
  PayloadStore& payloads_;
  JobRecorder& recorder_;
  bool single_copy_;
  std::vector<Peer> peers_;  // by slave index
  PlacedMessages placed_;
  DirectReceives direct_;
  std::uint64_t remote_sent_ = 0;
  std::uint64_t remote_received_ = 0;
  // A rank could not read another's memory (CopyLent): every lent block
  // is copied when it arrives from then on.
  bool lending_refused_ = false;

  friend class PlacedMessages;
  friend class DirectReceives;
};

}  // namespace bdmpi
