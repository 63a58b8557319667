// MPI matching for one slave: messages that arrived for it and receives it
// posted, matched in MPI order. A message matches the first posted receive
// (in posting order) whose communicator, source and tag accept it; a new
// receive matches the first queued message (in arrival order) it accepts.
// Since one sender's messages arrive in send order, this gives MPI's
// non-overtaking rule. A matched probe (MPI_Mprobe) takes a message out of
// matching as a completed receive of its own. The slave's synchronous sends
// wait here too, as receives that complete when their message is matched
// at the destination.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/direct_table.h"
#include "master/memory/payload.h"

namespace bdmpi {

inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;

struct Envelope {
  int comm = 0;
  int source = 0;  // rank in comm
  int tag = 0;
  // A partitioned send's ordinal (MatchOrdinal, common/protocol.h); 0 for
  // every other message. Matched exactly, never by a wildcard.
  std::uint32_t ordinal = 0;
};

// Which send a message came from (id 0: one that cannot be cancelled),
// and whether that sender waits for it to be matched.
struct SentBy {
  int world_rank = -1;
  std::uint64_t id = 0;
  bool synchronous = false;
};

struct Message {
  Envelope envelope;
  Payload payload;
  SentBy sent_by;
  // The count of its sender's unmatched messages to this receiver in the
  // direct table (common/direct_table.h), decremented when it is matched
  // or withdrawn; null for a message the sender did not count.
  std::atomic<std::uint32_t>* pending = nullptr;
};

// A synchronous send of this slave whose message is not matched yet.
struct AwaitedMatch {
  std::uint64_t id = 0;
  int comm = 0;
  int dest = 0;  // rank in comm
  int tag = 0;
  bool discard = false;  // its request was freed: nobody will collect it
  bool lent = false;     // a lent block that waits to be read, not matched
};

struct PostedRecv {
  std::uint64_t id = 0;
  int comm = 0;
  int source = kAnySource;
  int tag = kAnyTag;
  std::uint64_t capacity = 0;
  std::uint32_t ordinal = 0;  // Envelope::ordinal
  // Freed by the slave (MPI_Request_free): still matched in MPI order, but
  // its message is dropped instead of kept for a wait that will not come.
  bool discard = false;
  // Where a sender on this node may write the data itself (the receive
  // buffer's address in the receiver, 0: nowhere), and whether one is
  // doing so: the receive is then matched to that sender's message and
  // skipped by every other (master/p2p/placed.cpp).
  std::uint64_t address = 0;
  bool reserved = false;
  // Its slot in the direct table when the slave published it (null: not
  // published) and its post sequence number there. The master claims it
  // (kTold -> kMaster) before it matches a message to it; when a sender
  // of the node has claimed it first, it is reserved for that sender's
  // message, which the sender's notice completes (master/p2p/direct_receives.h).
  DirectSlot* slot = nullptr;
  std::uint64_t seq = 0;
};

struct CompletedRecv {
  PostedRecv recv;
  Message message;
};

bool Matches(const PostedRecv& recv, const Envelope& envelope);

class Mailbox {
 public:
  // A message for this slave. Returns the id of the receive it completed.
  std::optional<std::uint64_t> Deliver(Message message);
  // A new receive. Returns true if a queued message completed it at once.
  bool Post(const PostedRecv& recv);
  bool IsComplete(std::uint64_t id) const { return completed_.count(id) != 0; }
  // Keeps `word` (DirectRank::completions in the node's table) at 1 + the
  // completed receives that wait to be taken, so that the slave answers a
  // test that could find none itself (slave/request/completion.cpp).
  void PublishCompletedTo(std::atomic<std::uint32_t>* word);
  // Removes and returns a completed receive.
  std::optional<CompletedRecv> TakeCompleted(std::uint64_t id);
  // Receive `id` was freed: drops its message if it has one, else marks it
  // so that the message it matches later is dropped. Unknown ids are
  // ignored (the receive may have been taken already).
  void Discard(std::uint64_t id);
  // The first queued (not yet matched) message a receive with these
  // arguments would take, for MPI_Probe.
  const Message* Probe(int comm, int source, int tag) const;
  // MPI_Mprobe: takes that message out of matching as completed receive
  // `id` (capacity 0 until SetCapacity); false if there is none.
  bool MatchProbe(std::uint64_t id, int comm, int source, int tag);
  // MPI_Mrecv: the receive buffer's size for matched message `id`.
  void SetCapacity(std::uint64_t id, std::uint64_t capacity);
  // Receive `id`, which the slave never posted, completes with `message`:
  // how the master hands out the outcome of a nonblocking collective it
  // runs (MPI_Comm_idup), so every completion call finds it like a receive.
  // Until then it is awaited (for the description of a blocked rank).
  void AwaitUnposted(std::uint64_t id) { unposted_.insert(id); }
  bool AwaitsUnposted(std::uint64_t id) const { return unposted_.count(id) != 0; }
  void CompleteUnposted(std::uint64_t id, Message message);
  // MPI_Cancel of receive `id`: withdraws it if it is still unmatched.
  bool CancelRecv(std::uint64_t id);

  // Placed messages (master/p2p/placed.cpp). The posted receive that a
  // message with `envelope` would complete now, if its buffer may take
  // `bytes` written by the sender: reserved for that message (skipped by
  // every other) and returned. None when no receive matches or the one
  // that does cannot take it (the message then goes the usual way).
  std::optional<PostedRecv> ReserveForPlacing(const Envelope& envelope, std::uint64_t bytes);
  // Whether a posted receive (not reserved) accepts `envelope`.
  bool HasPostedMatch(const Envelope& envelope) const;
  // The sender has written reserved receive `id`'s data: it completes
  // with `message` (its payload says the data is in place). False if the
  // receive was freed meanwhile.
  bool CompleteReserved(std::uint64_t id, Message message);
  // A sender of the node wrote published receive `id`'s data itself
  // (master/p2p/direct_receives.h): it completes with `message`. False if the
  // receive was freed meanwhile.
  bool CompleteDirect(std::uint64_t id, Message message);
  // A sender wrote published receive `id` while its slave polled for it:
  // the slave completed it, the master forgets it.
  void ForgetTaken(std::uint64_t id);
  // The sender could not write it: `id` is an ordinary posted receive again,
  // in its place, and the sender's message follows as usual.
  void Unreserve(std::uint64_t id);

  // Synchronous send `id` of this slave waits for its message's match.
  void AwaitMatch(const AwaitedMatch& send);
  // Its message was matched: it completes (as a receive with no data).
  // False if it is unknown (freed or cancelled meanwhile).
  bool Matched(std::uint64_t id);
  // MPI_Cancel of synchronous send `id`, once its message is withdrawn.
  void ForgetAwaited(std::uint64_t id);
  const AwaitedMatch* FindAwaited(std::uint64_t id) const;
  // Withdraws the still unmatched message of send `id` of world rank
  // `sender` (MPI_Cancel).
  bool WithdrawMessage(int sender, std::uint64_t id);
  // The synchronous senders whose messages were matched here since the
  // last call: the master tells them.
  std::vector<SentBy> TakeMatchedSenders();

  // A posted receive still waiting for its message, or null (for messages
  // that name what a blocked rank waits for).
  const PostedRecv* FindPosted(std::uint64_t id) const;
  // Every posted receive still waiting, in posting order.
  const std::deque<PostedRecv>& Posted() const { return posted_; }

  std::size_t queued() const { return unexpected_.size(); }
  std::size_t posted() const { return posted_.size(); }

 private:
  // Completes posted receive `id`, whose data a sender wrote (placed or
  // direct, as `written_by_sender` tells), with `message`.
  bool CompleteWritten(std::uint64_t id, Message message,
                       bool (*written_by_sender)(const PostedRecv&));
  void NoteMatched(Message& message);
  void AddCompleted(std::uint64_t id, CompletedRecv done);
  void PublishCompleted();

  std::deque<Message> unexpected_;
  std::deque<PostedRecv> posted_;
  std::unordered_map<std::uint64_t, CompletedRecv> completed_;
  std::deque<AwaitedMatch> awaited_;
  std::unordered_set<std::uint64_t> unposted_;
  std::vector<SentBy> matched_senders_;
  std::atomic<std::uint32_t>* published_ = nullptr;
};

}  // namespace bdmpi
