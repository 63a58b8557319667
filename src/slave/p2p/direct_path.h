// The slave's half of direct messages (docs/data-path.md, "Direct
// messages"; the master's is master/p2p/direct_receives.h): this rank publishes
// its posted receives in the node's direct table (common/direct_table.h),
// and a small standard send to a rank of the node that has published a
// receive for it is written straight into that receive's buffer
// (process_vm_writev), without the master. A receive is told to the master
// only when this rank next asks the master something that may concern it
// (Runtime::Enqueue, DeferredMayStayUntold), waits for it, frees it, or
// tests it while a message for it may come through the master
// (MayStayUntold); one a sender completed before that
// costs the master nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "common/direct_table.h"
#include "common/protocol.h"

namespace bdmpi {

// The status a sender left in a receive it wrote.
struct DirectStatus {
  int source = 0;  // wire rank
  int tag = 0;
  std::uint64_t bytes = 0;
};

// One receive of this rank as the direct path knows it.
struct DirectRecv {
  std::uint64_t seq = 0;  // its post sequence number (0: not counted)
  int slot = -1;          // its slot in this rank's ring (-1: not published)
  bool told = false;      // the master knows it (its PostRecv went out)
  bool collected = false; // its slot is free again
  // Took a message waiting in this rank's inbox when it was posted: it is
  // complete without a sender or the master (Written is true at once).
  bool from_inbox = false;
  DirectStatus inbox_status;
  // That message, for a receive into a type with gaps (address 0), to be
  // unpacked by the caller; a dense receive has it in its buffer already
  // (as much as fits).
  std::vector<std::byte> inbox_data;
  // Published in the ring, or complete from the inbox: either way the
  // caller waits for it through this path (Poll, Written, TakeWritten).
  bool published() const { return slot >= 0 || from_inbox; }
  bool in_ring() const { return slot >= 0; }
};

// A message this rank left in another's inbox, by which MPI_Cancel of its
// send withdraws it (DirectPath::Withdraw).
struct DirectQueued {
  int dest = -1;  // node slave index (-1: none)
  std::uint64_t stamp = 0;
};

// A sender that finds no receive for its message posted by a running
// receiver waits this long at most for it: in a ping-pong the reply races
// the next receive of the rank it goes to (which returns from its send,
// then posts), and losing costs the message the master's path, tens of
// microseconds to wake the receiver through the master (docs/data-path.md).
inline constexpr std::uint64_t kDirectSendWaitNs = 20'000;

// Whom a waiting receive expects its message from (Poll's `sender`),
// besides a node slave index.
inline constexpr int kAnySender = -1;  // any rank, every one on this node
inline constexpr int kFarSender = -2;  // one whose message may come through the master

// What a sender's attempt came to.
enum class DirectSend {
  kNo,        // send it through the master
  kDone,      // written; the receiver finds it itself
  kDoneTold,  // written into a receive the master knows: tell the master
  kQueued,    // left in the receiver's inbox (TakeLastQueued names it)
};

// How a rank that waits for a direct message polls (the master's rule,
// BDMPI_MAY_POLL: 1 spin, 2 spin briefly, 3 yield).
struct DirectPoll {
  // The running ranks have a core each (-nr above 1 and at most the
  // cores): it spins; or they share cores (more running slots than
  // cores, a slot for every rank): it polls too, but gives its core back
  // between looks.
  bool poll = false;
  bool yield = false;
  // For a far sender's time at most: ranks outnumber the running slots,
  // and most wait for one.
  bool briefly = false;
};
DirectPoll ParseDirectPoll(const char* rule);

class DirectPath {
 public:
  // Maps the node's table. `allowed`: this rank may write into others
  // (placed messages' and lent blocks' condition); `poll`: how it waits.
  void Start(int slave, int node_size, bool allowed, DirectPoll poll);
  // Called once before a wait spins: the rank sends the master the
  // requests it holds back in its batch (nonblocking sends' messages),
  // which the rank it waits for may need before it can answer.
  void BeforeSpin(std::function<void()> flush) { before_spin_ = std::move(flush); }
  // The same on a table at hand (tests): `max_bytes` 0 only counts;
  // `send_wait_ns`: a sender's longest wait for a post (WaitForPost).
  // `queue`: user messages of up to an eighth of an inbox that find no
  // receive wait in their receiver's inbox (--direct-queue).
  // `yield`: a waiter gives its core back between looks.
  void StartWith(DirectTable table, int slave, std::uint64_t max_bytes, std::uint64_t poll_ns,
                 std::uint64_t send_wait_ns = kDirectSendWaitNs, bool queue = false,
                 bool yield = false);
  // Before the rank writes its memory back or exits: no sender writes
  // into it any more (waits for those that are writing); and when it is
  // resident again.
  void StopAccepting();
  void Accept();

  // Receiver. A new receive, published when its buffer is dense (`address`
  // non-zero; else published so that a sender matching it goes through
  // the master) and its slot free. `comm`, `source`, `tag` as the master
  // matches them. Returns an unpublished, uncounted one when off. One that
  // a message waiting in the inbox matches takes it instead (from_inbox).
  std::shared_ptr<DirectRecv> Post(int comm, int source, int tag, std::uint64_t address,
                                   std::uint64_t capacity, std::uint64_t recv_id);
  // Receives that the master must hear of, in posting order, before this
  // rank's next request that concerns them (Irecv defers them); `sender`
  // as for Poll.
  void Defer(std::shared_ptr<DirectRecv> recv, const RequestMsg& post, int sender);
  // Makes the master's request `post` of a receive Post returned agree
  // with it: nothing to tell when it took a message from the inbox, its
  // slot named when published, then deferred (`defer`, from `sender`) or
  // told at once. True when `post` must still go to the master.
  bool Announce(const std::shared_ptr<DirectRecv>& recv, RequestMsg& post, bool defer,
                int sender);
  bool HasDeferred() const { return !deferred_.empty(); }
  // Whether every deferred receive may stay untold (MayStayUntold of its
  // sender) while the rank asks the master something that is not about
  // them (a test of other receives, a notice, a send to another rank):
  // then no message for them waits at the master or can come through it,
  // and the master, which matches only the receives told before them, has
  // nothing they would take. Polling loops that restart persistent
  // receives (Graph500's) would otherwise tell each restart at the next
  // test, and every told receive costs a notice and a test at the master.
  bool DeferredMayStayUntold() const;
  // Whether a deferred receive not told yet is on communicator `comm` (as
  // the master names it): a receive told on another one matches none of
  // their messages, so the master may hear of it first.
  bool DeferredOn(int comm) const;
  // Tells the master of every deferred receive (hands their PostRecv to
  // `post`), except those a sender has taken meanwhile.
  void TellDeferred(const std::function<void(const RequestMsg&)>& post);
  // Tells one receive now: kPosted -> kTold. False when a sender has
  // claimed it: it is then complete (WaitWritten) without the master.
  bool Tell(DirectRecv& recv);
  // Whether a sender completed `recv` without the master (kDone); Poll
  // spins for that when polling is allowed (SpinFor says how long), for a
  // message of `sender` (a node slave index, kAnySender, kFarSender).
  bool Written(const DirectRecv& recv) const;
  bool Poll(const DirectRecv& recv, int sender) const;
  // Whether waits yield the core between looks (running ranks share
  // cores), and a published receive's wait that way: it stops as Poll
  // does (a rank wants a slot, the message waits at the master,
  // --direct-poll, one long yield) but leaves Poll's back-off alone, for
  // waits whose failures say nothing of the next ones (a collective waits
  // for its slowest member; docs/collectives.md, "Ranks that share cores").
  bool yields() const { return yield_; }
  bool YieldFor(const DirectRecv& recv, int sender) const;
  // A told receive this rank waits for: polls it as Poll does (kTold ->
  // kPolling), and gives it back to the master when nothing comes
  // (kPolling -> kTold). True when a sender wrote it meanwhile: it is then
  // complete here (TakeWritten), and the master, which still holds it,
  // must hear that it is over (MsgType::kDirectTaken).
  bool PollTold(const DirectRecv& recv, int sender) const;
  // Whether node slave `sender` has a message to this rank waiting
  // unmatched at the master: its next one goes there too, so a receive
  // from it need not poll.
  bool QueuedAtMaster(int sender) const;
  // Waits for a sender that claimed `recv` to finish writing.
  void WaitWritten(const DirectRecv& recv) const;
  // The status the sender left, and the message into the receive buffer
  // when it waited in the slot; frees the slot.
  DirectStatus TakeWritten(DirectRecv& recv);
  // The receive is over (completed through the master, cancelled): its
  // slot and sequence number are free again.
  void Collect(DirectRecv& recv);
  // A receive the program freed (MPI_Request_free) after telling the
  // master: nothing will collect it, but it still takes its message in
  // MPI order. Once matched (by the master or a sender), its sequence
  // number is over for the senders; its slot stays taken until the master
  // is done with it too (kCancelled), so a receive that falls on it
  // meanwhile is not published.
  void Abandon(std::shared_ptr<DirectRecv> recv);

  // Probes of this rank's inbox (`comm`, `source`, `tag` as for Post):
  // the status of the first message waiting there that matches, if any.
  // `close`: when none does, senders stop queueing here until OpenInbox,
  // for the probe that then asks the master: what comes meanwhile goes to
  // the master, which then wakes a blocking probe, and no message the
  // master answers with can have an older one of its sender in the inbox.
  // `data`: a matched probe, which removes the message and hands its
  // bytes there.
  bool ProbeInbox(int comm, int source, int tag, bool close, DirectStatus* status,
                  std::vector<std::byte>* data = nullptr);
  void OpenInbox();

  // Sender. Counts a message that goes to node slave `dest` through the
  // master (RequestMsg::counted), so that no later one overtakes it.
  void CountMasterSend(int dest, RequestMsg& request);
  // Writes a standard send of `bytes` straight into the receive of node
  // slave `dest` that MPI order gives it, if that one is published and
  // may take it; `recv_id` is set for kDoneTold. When `dest` runs and has
  // posted no receive for it yet, waits a little for one (WaitForPost).
  DirectSend TrySend(const void* data, std::uint64_t bytes, int comm, int rank, int tag,
                     int dest, std::uint64_t* recv_id);

  // The message the last TrySend left in an inbox (kQueued), and forgets
  // it; dest -1 when there was none.
  DirectQueued TakeLastQueued();
  // MPI_Cancel of a send that left its message in an inbox: true when it
  // was still there (now withdrawn), false when a receive has taken it.
  bool Withdraw(const DirectQueued& queued);

  // Whether a receive from `sender` (as for Poll) that the master does not
  // know yet may stay so while the rank tests it: no message for it waits
  // at the master, none can come through the master (another node), and
  // no rank of the node wants a running slot (which the test, at the
  // master, would give up).
  bool MayStayUntold(int sender) const;
  // Whether the master holds no completed receive of this rank
  // (DirectRank::completions), no message of the node to it is on its way
  // through the master (pending), and no rank of the node wants a running
  // slot: a test would find nothing at the master and give its slot to
  // nobody.
  bool MasterHasNothingNew() const;

  // While this rank waits for its master's reply (DirectRank::at_master).
  void AtMaster(bool waiting);

  bool on() const { return on_; }
  std::uint64_t max_bytes() const { return max_bytes_; }

 private:
  // `none_posted`: no live receive of `rank` accepts the message (a later
  // one may).
  // `may_write` false: only looks (the receiver is switched out), and
  // a receive that would take the message sends it to the master.
  DirectSend Deposit(DirectRank& rank, const void* data, std::uint64_t bytes, int comm,
                     int source, int tag, std::uint64_t* recv_id, bool* none_posted,
                     bool may_write = true);
  // Deposit while `dest` accepts, counted among its writers; with
  // `queueable`, one that finds no receive posted for it (even in a rank
  // that does not accept) is left in the inbox if there is room; the
  // inbox is locked only for that choice, not to claim an open receive.
  DirectSend DepositCounted(int dest, const void* data, std::uint64_t bytes, int comm,
                            int source, int tag, std::uint64_t* recv_id, bool* none_posted,
                            bool queueable = false);
  // Appends to `dest`'s locked inbox; false when it is closed or full.
  bool Enqueue(int dest, const void* data, std::uint64_t bytes, int comm, int source, int tag);
  // The receiver's side of Post under its inbox's lock: takes the first
  // waiting message that `recv` matches.
  bool TakeFromInbox(DirectRecv& recv, int comm, int source, int tag, std::uint64_t address,
                     std::uint64_t capacity);
  // A sender that found no receive for its message waits for `dest` to
  // post another (its `next_seq` passes `seen`) while `dest` runs and
  // spinning costs nobody a core, until `deadline` (0: send_wait_ns_ from
  // now, set here); false when it gave up. Backs off per destination as
  // SpinFor does.
  bool WaitForPost(int dest, std::uint64_t seen, std::uint64_t* deadline);
  void Forget(std::uint64_t seq);
  // Spins until `done`, for at most the polling time (a short look for a
  // kFarSender), and stops at once when a rank of the node wants a running
  // slot or the awaited message waits at the master; after a spin that
  // timed out, the next waits skip spinning (backing off).
  template <typename Done>
  bool SpinFor(Done done, int sender) const;
  bool MustStopSpinning(int sender) const;
  // A wait that backs off: looks for kBriefPollNs at most (not while
  // ranks share cores). Kept out of SpinFor's loop, which the round trip
  // between two spinning ranks is made of.
  template <typename Done>
  [[gnu::noinline]] bool BriefPoll(Done done, int sender) const;
  // Between two looks of a spin: a pause, or the core to another process
  // when the running ranks share cores; false when that kept this rank off
  // its core for long (kLongYieldNs): stop looking, and back off.
  bool BetweenLooks() const;

  DirectTable table_;
  bool on_ = false;        // this rank publishes and sends directly
  bool counting_ = false;  // the table exists: master-path sends are counted
  int me_ = -1;
  std::uint64_t max_bytes_ = 0;
  std::uint64_t poll_ns_ = 0;
  std::uint64_t send_wait_ns_ = 0;
  bool yield_ = false;
  // Waits left that do not poll, and how many the next failed poll skips
  // (mutable: polling is a look at the table, this only paces it).
  std::function<void()> before_spin_;
  mutable std::uint64_t poll_skips_ = 0;
  mutable std::uint64_t poll_backoff_ = 0;
  // The same for a sender's waits, per destination.
  struct SendBackoff {
    std::uint16_t skips = 0;
    std::uint16_t backoff = 0;
  };
  std::vector<SendBackoff> send_backoff_;
  bool accepting_ = false;
  bool queue_ = false;  // this rank's inbox takes messages
  DirectQueued last_queued_;
  std::uint64_t next_seq_ = 1;
  std::set<std::uint64_t> live_;  // sequence numbers of receives not over
  struct Deferred {
    std::shared_ptr<DirectRecv> recv;
    RequestMsg post;
    int sender = kFarSender;
  };
  std::vector<Deferred> deferred_;
  std::vector<std::shared_ptr<DirectRecv>> abandoned_;  // not matched yet
};

// This rank's direct path (one per process, like the Runtime).
DirectPath& Direct();

}  // namespace bdmpi
