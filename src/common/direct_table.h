// The node's table of published receives (docs/data-path.md, "Direct
// messages"): a small message to a rank of the same node that has already
// posted its receive is written straight into the receive buffer by its
// sender, without the master. It lives in the storage table's shared
// object, after the slots (common/storage_table.h), so it needs no name of
// its own: the master makes it, every slave of the node maps it.
//
// Per rank: a ring of receive slots in posting order, whether its memory
// may be written now (`accepting`, with a count of writers in progress),
// and its pid. Per pair of ranks (sender, receiver): how many of the
// sender's messages to that receiver went through the master and are not
// matched yet (`pending`); a sender writes directly only while that count
// is 0, so a direct message never overtakes one of its earlier ones.
//
// A slot's state and post sequence number share one word, so that a claim
// (compare-and-swap) fails for a slot reused since it was read:
//
//   kPosted  --receiver tells the master-->  kTold
//   kPosted  --a sender claims-->  kClaimed  --written-->  kDone
//   kTold    --a sender claims-->  kClaimedTold  --written-->  kDoneTold
//                                  (the sender then tells the master)
//   kTold    --the master matches a message to it-->  kMaster
//   kTold    --MPI_Cancel at the master-->  kCancelled
//   an end state of a freed receive  --the master is done with it-->  kCancelled
//   kTold    --the receiver waits for it and polls-->  kPolling
//   kPolling --nothing came: the receiver asks the master-->  kTold
//   kPolling --a sender claims-->  kClaimedPolled  --written-->  kDonePolled
//                                  (the receiver tells the master it is over)
//   kPolling --the master matches a message to it-->  kMaster
//   any end state  --the receiver collects it-->  kFree
//
// Only the receiver publishes and frees its slots; every other change is a
// compare-and-swap from kPosted, kTold or kPolling, so exactly one party
// wins a receive, and exactly one tells the master that a sender wrote a
// receive it knows: the sender when the receiver may be waiting there
// (kDoneTold), the receiver when it was polling (kDonePolled).
//
// A rank that waits for a receive spins on its slot (kPosted or kPolling)
// while that costs nobody a core: the running ranks have a core each
// (BDMPI_MAY_POLL) and no rank of the node waits for a running slot
// (`slot_wanted`, the master's, which the spinner reads as it spins);
// with more running ranks than cores it polls the same way but yields its
// core between looks.
// Under the same condition a sender that finds no receive for its message
// waits a few microseconds for its running receiver to post one
// (`next_seq` moves), rather than losing the race to the master's path.
//
// Per rank also an inbox: a user message (a standard send on a user
// communicator) of up to an eighth of the inbox that finds no open
// receive waits there for its receive, in arrival order, rather than at
// the master. The inbox's lock
// makes two decisions atomic: a sender appends only when no open receive
// of the rank accepts the message (it scans them under the lock), and the
// receiver publishes a receive only when no queued entry matches it (it
// scans the inbox under the lock, and takes the first match instead). So
// no queued entry ever matches an open receive: a receiver asleep at the
// master never waits for one, and a sender claims an open receive without
// the lock (its compare-and-swap decides); it takes the lock only when it
// found none open, to append. A sender appends only while `pending` is 0
// and may go to the master whenever: its queued entries are then always
// older than its messages at the master, and every receive, probe and
// matched probe looks at the inbox first.
//
//   kEmpty  --a sender appends (under the lock)-->  kQueued
//   kQueued --the receiver takes it, or the sender's MPI_Cancel-->  kEmpty
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace bdmpi {

// Receives a rank publishes at once; a receive posted while its slot is
// still taken is not published (and senders to that rank go through the
// master until it completes: its sequence number is missing from the ring).
inline constexpr std::uint64_t kDirectSlots = 64;
// A message of at most this many bytes travels in the slot: the sender
// copies it in and the receiver out (kDone, kDonePolled), or the master
// (kDoneTold, handed over in its reply); nobody calls the kernel (process_vm_writev costs
// about 1.5 us on the 2-core VM, twice a whole round trip of Open MPI's).
// 1 KiB, so that the round trip of 1 KiB, a figure of its own
// (bench/run_message_figures.sh), makes no system call either: a slot is
// then 1152 bytes, 72 KiB per rank, touched only as the rank's ring turns.
inline constexpr std::uint64_t kDirectSlotBytes = 1024;
// Bytes of a rank's inbox (DirectInbox): its messages one after the other,
// each a 48-byte header and its data rounded up to 64 bytes. The node's
// inboxes share kDirectInboxNodeBytes, a rank's between the two bounds
// (DirectInboxBytes): 1 MiB up to 64 ranks, so that a stream of 32 KiB
// messages (Graph500's aggregation buffers) that outruns its receiver's
// four receives waits there 31 deep rather than at the master; 64 KiB at
// 1024 ranks (1024 messages of up to 16 bytes, or 60 of 1 KiB). Touched
// only as an inbox fills; bounded by the node, whatever its ranks do.
inline constexpr std::uint64_t kDirectInboxNodeBytes = 64ull << 20;
inline constexpr std::uint64_t kDirectInboxMinBytes = 64 * 1024;
inline constexpr std::uint64_t kDirectInboxMaxBytes = 1ull << 20;
inline std::uint64_t DirectInboxBytes(int nranks) {
  std::uint64_t share = kDirectInboxNodeBytes / static_cast<std::uint64_t>(nranks < 1 ? 1 : nranks);
  share = share / 4096 * 4096;
  return share < kDirectInboxMinBytes   ? kDirectInboxMinBytes
         : share > kDirectInboxMaxBytes ? kDirectInboxMaxBytes
                                        : share;
}
// A message waits in an inbox only if it takes at most this part of it
// (32 KiB and its header in 1 MiB: a few such messages do not fill it
// for the small ones behind them).
inline constexpr std::uint64_t kDirectInboxMessageShare = 8;
// Above this many ranks per node the per-pair counts would take too much
// memory (n * n * 4 bytes): the direct path is off.
inline constexpr int kDirectMaxRanks = 1024;

enum class DirectState : std::uint8_t {
  kFree = 0,
  kPosted = 1,
  kTold = 2,
  kClaimed = 3,
  kClaimedTold = 4,
  kDone = 5,
  kDoneTold = 6,
  kMaster = 7,
  kCancelled = 8,
  kPolling = 9,
  kClaimedPolled = 10,
  kDonePolled = 11,
};

constexpr std::uint64_t DirectWord(std::uint64_t seq, DirectState state) {
  return (seq << 8) | static_cast<std::uint64_t>(state);
}
constexpr std::uint64_t DirectSeq(std::uint64_t word) { return word >> 8; }
constexpr DirectState DirectStateOf(std::uint64_t word) {
  return static_cast<DirectState>(word & 0xff);
}

struct alignas(64) DirectSlot {
  std::atomic<std::uint64_t> word;
  // The receive, written by the receiver before it publishes the word
  // (release); senders read them after the word (acquire) and confirm by
  // their compare-and-swap. Source and tag as the master matches them
  // (wire ranks; -1: any).
  std::atomic<std::int32_t> comm;
  std::atomic<std::int32_t> source;
  std::atomic<std::int32_t> tag;
  // 0: a receive into a type with gaps, which no sender may write: one
  // that matches it goes through the master.
  std::atomic<std::uint64_t> address;
  std::atomic<std::uint64_t> capacity;
  std::atomic<std::uint64_t> recv_id;
  // Written by the sender that claimed it, before kDone/kDoneTold.
  std::atomic<std::int32_t> sent_source;
  std::atomic<std::int32_t> sent_tag;
  std::atomic<std::uint64_t> sent_bytes;
  // 1: the message is in `data`, for the receiver to copy out, or the
  // master for a told receive (written before the kDone states, like the
  // status).
  std::atomic<std::uint32_t> sent_in_slot;
  unsigned char data[kDirectSlotBytes];
};

struct alignas(64) DirectRank {
  std::atomic<std::int32_t> pid;
  // 1 while the rank's memory is resident and senders may write into it;
  // the rank clears it before it writes its memory back and then waits
  // until `writers` is 0 (both seq_cst: a writer increments `writers`
  // before it reads `accepting`).
  std::atomic<std::uint32_t> accepting;
  std::atomic<std::uint32_t> writers;
  // 1 while the rank waits for its master's reply (a blocking call): a
  // sender that finds no receive posted yet waits a little for one only
  // while the rank runs, and so may post it soon.
  std::atomic<std::uint32_t> at_master;
  // Live receives of the rank that are not published (their slot was
  // still taken): a slot that holds a later receive than a sender looks
  // for then does not say that the one it looks for is over, and a
  // message may not wait in the inbox (such a receive may match it).
  std::atomic<std::uint32_t> unpublished;
  // The master's: 1 + the receives of this rank it has completed and the
  // rank has not taken yet (0: not kept). A test that finds it 1 finds
  // nothing at the master and need not ask (slave/request/completion.cpp).
  std::atomic<std::uint32_t> completions;
  // Next post sequence number (the first is 1), and every receive below
  // `first_live` has completed.
  std::atomic<std::uint64_t> next_seq;
  std::atomic<std::uint64_t> first_live;
  DirectSlot slots[kDirectSlots];
};

enum class InboxState : std::uint32_t { kEmpty = 0, kQueued = 1 };

// A message that waits in its receiver's inbox: this header, then its
// data. Only read and written under the inbox's lock.
struct DirectInboxEntry {
  InboxState state;
  std::int32_t comm;
  std::int32_t source;  // the sender's rank in comm (wire)
  std::int32_t tag;
  std::uint64_t bytes;
  // Where it starts in the inbox's order (its byte count at the append):
  // a withdrawal by MPI_Cancel names the entry by it.
  std::uint64_t stamp;
  // Header, data and padding: the next entry starts this far on.
  std::uint64_t span;
  std::uint64_t reserved;
  unsigned char* data() { return reinterpret_cast<unsigned char*>(this + 1); }
};

struct alignas(64) DirectInbox {
  // A spin lock: senders and the receiver hold it for a scan and a copy
  // of one message.
  std::atomic<std::uint32_t> lock;
  // 1 while the receiver takes messages from its inbox (the path is on
  // for it), and how many of its probes ask the master now: a sender
  // appends only while it is open and no probe is at the master (the
  // master's answer must not pass an older message that came to the
  // inbox meanwhile).
  std::uint32_t open;
  std::uint32_t probing;
  // Entries in [head, tail) in arrival order, as byte counts (the entry
  // at count c starts at c % DirectInboxBytes(n) of the rank's bytes,
  // DirectTable::inbox_bytes); taken ones in the middle stay until head
  // passes them. An entry that would cross the end is preceded by an
  // empty one that fills the end.
  std::uint64_t head;
  std::uint64_t tail;
};

// What the whole node shares, written by the master.
struct alignas(64) DirectNode {
  // 1 while a runnable rank of the node waits for a running slot (or for
  // memory to start): a rank that spins for a message then stops and
  // gives its slot up at the master.
  std::atomic<std::uint32_t> slot_wanted;
};

static_assert(sizeof(DirectSlot) == 1152, "a slot is whole cache lines");
static_assert(sizeof(DirectInboxEntry) == 48 && kDirectInboxMinBytes % 4096 == 0,
              "inbox entries start on 16-byte boundaries, an inbox is whole pages");
static_assert(std::atomic<std::uint64_t>::is_always_lock_free &&
                  std::atomic<std::int32_t>::is_always_lock_free,
              "the direct table is shared between processes");

// The table's layout in a mapping of `nranks` ranks starting at `base`.
class DirectTable {
 public:
  DirectTable() = default;
  DirectTable(void* base, int nranks) : base_(static_cast<std::byte*>(base)), n_(nranks) {}

  static std::size_t Bytes(int nranks) {
    std::size_t n = static_cast<std::size_t>(nranks);
    return InboxBytesOffset(nranks) + n * DirectInboxBytes(nranks);
  }
  bool valid() const { return base_ != nullptr; }
  int size() const { return n_; }
  DirectNode& node() const { return *reinterpret_cast<DirectNode*>(base_); }
  DirectRank& rank(int index) const {
    return reinterpret_cast<DirectRank*>(base_ + sizeof(DirectNode))[index];
  }
  // Messages of `sender` to `receiver` (slave indices) that went through
  // the master and are not matched yet.
  std::atomic<std::uint32_t>& pending(int sender, int receiver) const {
    auto* counts = reinterpret_cast<std::atomic<std::uint32_t>*>(
        base_ + sizeof(DirectNode) + static_cast<std::size_t>(n_) * sizeof(DirectRank));
    return counts[static_cast<std::size_t>(sender) * static_cast<std::size_t>(n_) +
                  static_cast<std::size_t>(receiver)];
  }
  DirectInbox& inbox(int index) const {
    return reinterpret_cast<DirectInbox*>(base_ + InboxOffset(n_))[index];
  }
  // Where the messages of `index`'s inbox are, and how many bytes.
  unsigned char* inbox_bytes(int index) const {
    return reinterpret_cast<unsigned char*>(base_ + InboxBytesOffset(n_)) +
           static_cast<std::size_t>(index) * DirectInboxBytes(n_);
  }
  std::uint64_t inbox_capacity() const { return DirectInboxBytes(n_); }

 private:
  static std::size_t InboxOffset(int nranks) {
    std::size_t n = static_cast<std::size_t>(nranks);
    std::size_t end = sizeof(DirectNode) + n * sizeof(DirectRank) +
                      n * n * sizeof(std::atomic<std::uint32_t>);
    return (end + alignof(DirectInbox) - 1) / alignof(DirectInbox) * alignof(DirectInbox);
  }
  // The inboxes' bytes, page-aligned, so that pages stay untouched until
  // an inbox reaches them.
  static std::size_t InboxBytesOffset(int nranks) {
    std::size_t end = InboxOffset(nranks) + static_cast<std::size_t>(nranks) * sizeof(DirectInbox);
    return (end + 4095) / 4096 * 4096;
  }

  std::byte* base_ = nullptr;
  int n_ = 0;
};

// Where the direct table starts in the storage table's object of `nranks`
// slots of `slot_bytes` (page-aligned, so that its lines are its own).
inline std::size_t DirectTableOffset(int nranks, std::size_t slot_bytes) {
  std::size_t end = static_cast<std::size_t>(nranks) * slot_bytes;
  return (end + 4095) / 4096 * 4096;
}

}  // namespace bdmpi
