// The slave's half of direct messages; see direct_path.h and
// common/direct_table.h for the protocol.
#include "slave/p2p/direct_path.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "common/coll_engine.h"
#include "common/job_names.h"
#include "common/log.h"
#include "common/process_memory.h"
#include "common/storage_table.h"
#include "common/unique_fd.h"

namespace bdmpi {
namespace {

// By default a message of at most this many bytes goes direct (as much as
// the window holds): up to a few KiB the cost of a message is the
// master's round trip, which this path saves; above, the window's copy
// and acknowledgement, and a stream of them (Graph500's 32 KiB buffers)
// that found its receiver's receives busy once went through the master
// whole (docs/data-path.md, "Medium messages"). Larger ones are placed or
// go through a payload segment as before.
constexpr std::uint64_t kDefaultDirectMax = 64 * 1024;
// The longest a rank that waits for a receive spins on its slot before it
// asks the master (and gives up its running slot), while the spin costs
// nobody a core. Waking a rank that sleeps at the master costs 60-100 us
// on the 2-core VM (the idle vCPU must be woken: docs/data-path.md), so a
// spin of ten times that makes a wait that ends later at most 10% longer,
// and spares every wait that ends sooner the whole wake-up.
constexpr std::uint64_t kDefaultPollNs = 1'000'000;
// A message that may come through the master (another node, another job)
// gets only a short look: about a round trip between two running ranks,
// several times over.
constexpr std::uint64_t kFarPollNs = 20'000;
// After a spin that found nothing, this rank skips spinning for 1, 3, 7,
// ... waits, up to this many: a rank whose waits are long (or whose sender
// is often not running, on a machine busy with other work) stops spending
// a core on them.
constexpr std::uint64_t kMaxPollSkips = 255;
// A wait that backs off still looks this long before it asks the master
// (not while ranks share cores): a message that is a few microseconds
// away (the answer to a flood of sends, which the receiver is still
// taking) would otherwise cost a wake-up through the master, 60-100 us,
// and a look this short costs the node's other ranks nothing they would
// notice (it stops, as a spin does, when one wants a running slot).
constexpr std::uint64_t kBriefPollNs = 5'000;
// A rank that polls by yielding its core (more running ranks than cores)
// stops, and backs off as after a poll that timed out, when one yield kept
// it off its core longer than this: the core went to work that keeps it
// for whole time slices (another job), where a rank woken by the master
// preempts it. Not shorter: the node's own ranks compute between their
// calls, and a waiter that gave up at their first burst (50 us) blocked
// at the master 63 times per HPCG iteration on 4 ranks of 2 cores, at
// 1.5-2.3x the time per iteration of this bound (data-path.md).
constexpr std::uint64_t kLongYieldNs = 2'000'000;

void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

std::uint64_t NowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(now.tv_nsec);
}

std::uint64_t EnvBytes(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  return *end == '\0' ? value : fallback;
}

// The table after the storage slots in the node's storage object.
DirectTable MapTable(int node_size) {
  const char* job = std::getenv(kEnvJobId);
  const char* table_name = std::getenv(kEnvStorageTable);
  const char* node = std::getenv(kEnvNode);
  if (job == nullptr || table_name == nullptr || node == nullptr) return {};
  JobNames names(job, std::atoi(node));
  if (!JobNames::IsTagged(table_name, names.StorageTable(""))) return {};
  UniqueFd shm(shm_open(table_name, O_RDWR | O_CLOEXEC, 0));
  if (!shm) return {};
  std::size_t offset = DirectTableOffset(node_size, sizeof(StorageSlot));
  std::size_t bytes = offset + DirectTable::Bytes(node_size);
  struct stat info {};
  if (fstat(shm.get(), &info) != 0 || static_cast<std::size_t>(info.st_size) < bytes) return {};
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm.get(), 0);
  if (base == MAP_FAILED) return {};
  // Kept for the life of the process, like the storage slot's mapping.
  return DirectTable(static_cast<std::byte*>(base) + offset, node_size);
}

// Holds a rank's inbox (common/direct_table.h). Held for a scan and a copy
// of one message (up to an eighth of the inbox, a few microseconds for 32
// KiB); a holder that lost its core to another process (more ranks than
// cores) costs the others a time slice, so they yield after a short spin.
class DirectInboxGuard {
 public:
  explicit DirectInboxGuard(DirectInbox& inbox) : inbox_(inbox) {
    for (int i = 0; inbox_.lock.exchange(1, std::memory_order_acquire) != 0; ++i) {
      while (inbox_.lock.load(std::memory_order_relaxed) != 0) {
        if (++i > 256) {
          sched_yield();
        } else {
          Pause();
        }
      }
    }
  }
  ~DirectInboxGuard() { inbox_.lock.store(0, std::memory_order_release); }
  DirectInboxGuard(const DirectInboxGuard&) = delete;
  DirectInboxGuard& operator=(const DirectInboxGuard&) = delete;

 private:
  DirectInbox& inbox_;
};

// A rank's inbox: its header and its bytes (common/direct_table.h).
struct DirectInboxRing {
  DirectInbox& inbox;
  unsigned char* bytes;
  std::uint64_t capacity;
  DirectInboxEntry& at(std::uint64_t count) const {
    return *reinterpret_cast<DirectInboxEntry*>(bytes + count % capacity);
  }
};

bool InboxEntryMatches(const DirectInboxEntry& entry, int comm, int source, int tag) {
  return entry.state == InboxState::kQueued && entry.comm == comm &&
         (source == -1 || source == entry.source) && (tag == -1 || tag == entry.tag);
}

// The first waiting message of `ring` that a receive or probe of `comm`,
// `source`, `tag` matches (arrival order), or null.
DirectInboxEntry* FindInboxEntry(const DirectInboxRing& ring, int comm, int source, int tag) {
  DirectInbox& inbox = ring.inbox;
  for (std::uint64_t at = inbox.head; at < inbox.tail; at += ring.at(at).span) {
    DirectInboxEntry& entry = ring.at(at);
    if (InboxEntryMatches(entry, comm, source, tag)) return &entry;
  }
  return nullptr;
}

// Removes a taken or withdrawn message; the head passes what is gone.
void DropInboxEntry(const DirectInboxRing& ring, DirectInboxEntry& entry) {
  DirectInbox& inbox = ring.inbox;
  entry.state = InboxState::kEmpty;
  while (inbox.head < inbox.tail && ring.at(inbox.head).state == InboxState::kEmpty)
    inbox.head += ring.at(inbox.head).span;
}

// Room for a message of `bytes` at the tail: its entry's start (after an
// empty filler up to the end when it would cross it), or false when full.
bool ReserveInboxEntry(const DirectInboxRing& ring, std::uint64_t bytes, std::uint64_t* start) {
  DirectInbox& inbox = ring.inbox;
  std::uint64_t span = (sizeof(DirectInboxEntry) + bytes + 63) / 64 * 64;
  std::uint64_t to_end = ring.capacity - inbox.tail % ring.capacity;
  std::uint64_t filler = span > to_end ? to_end : 0;
  if (inbox.tail + filler + span - inbox.head > ring.capacity) return false;
  if (filler > 0) {
    DirectInboxEntry& pad = ring.at(inbox.tail);
    pad.state = InboxState::kEmpty;
    pad.span = filler;
    pad.stamp = inbox.tail;
    inbox.tail += filler;
    // Nothing before it: the head passes it at once.
    if (inbox.head + filler == inbox.tail) inbox.head = inbox.tail;
  }
  *start = inbox.tail;
  ring.at(inbox.tail).span = span;
  inbox.tail += span;
  return true;
}

// What a sender's scan of a receiver's live receives found.
enum class DirectScan {
  kNone,    // no open receive accepts the message (a later one may)
  kFound,   // this one, the first in posting order that accepts it
  kUnsure,  // a receive that is not published may come first
};
struct DirectOpenReceive {
  DirectScan scan = DirectScan::kNone;
  std::uint64_t seq = 0;
  std::uint64_t word = 0;  // its slot's word as read (for the claim)
};

bool DirectSlotAccepts(const DirectSlot& slot, std::uint64_t word, int comm, int source,
                       int tag) {
  DirectState state = DirectStateOf(word);
  if (state != DirectState::kPosted && state != DirectState::kTold &&
      state != DirectState::kPolling)
    return false;  // taken
  int want_source = slot.source.load(std::memory_order_relaxed);
  int want_tag = slot.tag.load(std::memory_order_relaxed);
  return slot.comm.load(std::memory_order_relaxed) == comm &&
         (want_source == -1 || want_source == source) && (want_tag == -1 || want_tag == tag);
}

// The receive of `rank` that MPI order gives a message of `comm`,
// `source`, `tag`: the first open one in posting order that matches. Only
// the last turn of the ring is scanned (the receives from `start` on);
// an older live receive still holds its slot (a receive never takes a
// held slot: Post skips its sequence number), where the scan finds it
// in place of a later number, and comes before all of them. A slot that
// holds a later number is over and reused; one that holds an earlier
// number of this turn belongs to a skipped number. So a sender's scan is
// at most one turn of the ring, however long a receive lives.
DirectOpenReceive FindOpenReceive(DirectRank& rank, int comm, int source, int tag) {
  DirectOpenReceive found;
  std::uint64_t first = rank.first_live.load(std::memory_order_acquire);
  std::uint64_t next = rank.next_seq.load(std::memory_order_acquire);
  std::uint64_t start = next > first + kDirectSlots ? next - kDirectSlots : first;
  bool older = start > first;  // receives may outlive the turn
  DirectOpenReceive in_turn;
  for (std::uint64_t seq = start; seq < next; ++seq) {
    const DirectSlot& slot = rank.slots[seq % kDirectSlots];
    std::uint64_t word = slot.word.load(std::memory_order_acquire);
    std::uint64_t owner = DirectSeq(word);
    if (owner != seq) {
      // A receive that is not published may be this one.
      if (rank.unpublished.load(std::memory_order_seq_cst) != 0) {
        found.scan = DirectScan::kUnsure;
        return found;
      }
      if (owner >= start || owner < first) continue;  // skipped, or over
    }
    if (!DirectSlotAccepts(slot, word, comm, source, tag)) continue;
    if (owner < start) {
      if (found.scan == DirectScan::kNone || owner < found.seq) {
        found.scan = DirectScan::kFound;
        found.seq = owner;
        found.word = word;
      }
    } else if (in_turn.scan == DirectScan::kNone) {
      in_turn = DirectOpenReceive{DirectScan::kFound, seq, word};
      if (!older) break;
    }
  }
  if (found.scan == DirectScan::kFound || in_turn.scan == DirectScan::kNone) return found;
  return in_turn;
}

}  // namespace

DirectPath& Direct() {
  static DirectPath path;
  return path;
}

DirectPoll ParseDirectPoll(const char* rule) {
  DirectPoll poll;
  if (rule == nullptr || rule[0] < '1' || rule[0] > '3' || rule[1] != '\0') return poll;
  poll.poll = true;
  poll.yield = rule[0] == '3';
  poll.briefly = rule[0] == '2';
  return poll;
}

void DirectPath::Start(int slave, int node_size, bool allowed, DirectPoll poll) {
  if (node_size > kDirectMaxRanks) return;
  DirectTable table = MapTable(node_size);
  if (!table.valid()) return;
  std::uint64_t max_bytes = allowed ? EnvBytes(kEnvDirectMax, kDefaultDirectMax) : 0;
  std::uint64_t poll_ns =
      poll.poll ? EnvBytes(kEnvDirectPoll, kDefaultPollNs / 1000) * 1000 : 0;
  // With more ranks than running slots, a spin of a millisecond mostly
  // waits for a rank that cannot run: the fanin round on 8 ranks with -nr
  // 2 took 1.5x its time without spinning, and the same with 20 us.
  if (poll.briefly) poll_ns = std::min(poll_ns, kFarPollNs);
  const char* queue = std::getenv(kEnvDirectQueue);
  StartWith(table, slave, max_bytes, poll_ns, kDirectSendWaitNs,
            queue == nullptr || std::strcmp(queue, "off") != 0, poll.yield);
}

void DirectPath::StartWith(DirectTable table, int slave, std::uint64_t max_bytes,
                           std::uint64_t poll_ns, std::uint64_t send_wait_ns, bool queue,
                           bool yield) {
  table_ = table;
  me_ = slave;
  counting_ = true;
  max_bytes_ = max_bytes;
  poll_ns_ = poll_ns;
  yield_ = yield;
  send_wait_ns_ = std::min(poll_ns, send_wait_ns);
  on_ = max_bytes_ > 0;
  DirectRank& rank = table_.rank(me_);
  rank.pid.store(static_cast<std::int32_t>(getpid()), std::memory_order_relaxed);
  rank.first_live.store(1, std::memory_order_relaxed);
  rank.next_seq.store(1, std::memory_order_release);
  queue_ = on_ && queue;
  if (queue_) {
    DirectInbox& inbox = table_.inbox(me_);
    DirectInboxGuard hold(inbox);
    inbox.open = 1;
  }
  Accept();
}

void DirectPath::StopAccepting() {
  if (!counting_ || !accepting_) return;
  DirectRank& rank = table_.rank(me_);
  rank.accepting.store(0, std::memory_order_seq_cst);
  // A writer counted itself before it looked at `accepting`: wait for the
  // ones that saw it set (a write of a few KiB).
  while (rank.writers.load(std::memory_order_seq_cst) != 0) Pause();
  accepting_ = false;
}

void DirectPath::Accept() {
  if (!counting_ || accepting_) return;
  table_.rank(me_).accepting.store(1, std::memory_order_seq_cst);
  accepting_ = true;
}

std::shared_ptr<DirectRecv> DirectPath::Post(int comm, int source, int tag,
                                             std::uint64_t address, std::uint64_t capacity,
                                             std::uint64_t recv_id) {
  auto recv = std::make_shared<DirectRecv>();
  recv->told = true;  // unless published: then when the master hears of it
  if (!on_) return recv;
  DirectRank& rank = table_.rank(me_);
  // Freed receives that have been matched since are over for the senders;
  // their slots are this rank's again once the master is done with them
  // (kCancelled: Mailbox gives them back).
  std::erase_if(abandoned_, [&](const std::shared_ptr<DirectRecv>& freed) {
    std::atomic<std::uint64_t>& word = rank.slots[freed->slot].word;
    DirectState state = DirectStateOf(word.load(std::memory_order_acquire));
    if (state == DirectState::kTold || state == DirectState::kClaimedTold) return false;
    Forget(freed->seq);
    if (state != DirectState::kCancelled) return false;
    word.store(DirectWord(freed->seq, DirectState::kFree), std::memory_order_release);
    return true;
  });
  // Under the inbox's lock, no sender decides meanwhile that no receive
  // takes its message: a message waiting in the inbox never matches an
  // open receive (common/direct_table.h).
  std::optional<DirectInboxGuard> hold;
  if (queue_) {
    hold.emplace(table_.inbox(me_));
    if (TakeFromInbox(*recv, comm, source, tag, address, capacity)) return recv;
  }
  // A slot still held by an older receive (one that outlives a turn of the
  // ring: Graph500's receives of another node's messages, which never come
  // on one node) is passed over: its sequence number is skipped, and
  // senders, which find the older receive in its place, know it is not
  // this one's (FindOpenReceive).
  auto is_free = [&](std::uint64_t seq) {
    return DirectStateOf(rank.slots[seq % kDirectSlots].word.load(std::memory_order_relaxed)) ==
           DirectState::kFree;
  };
  for (std::uint64_t tries = 1; tries < kDirectSlots && !is_free(next_seq_); ++tries) ++next_seq_;
  recv->seq = next_seq_++;
  live_.insert(recv->seq);
  DirectSlot& slot = rank.slots[recv->seq % kDirectSlots];
  // Every slot still held: this one is not published, and its missing
  // sequence number sends every sender to the master until it is over
  // (first_live passes it).
  if (is_free(recv->seq)) {
    slot.comm.store(comm, std::memory_order_relaxed);
    slot.source.store(source, std::memory_order_relaxed);
    slot.tag.store(tag, std::memory_order_relaxed);
    slot.address.store(address, std::memory_order_relaxed);
    slot.capacity.store(capacity, std::memory_order_relaxed);
    slot.recv_id.store(recv_id, std::memory_order_relaxed);
    slot.word.store(DirectWord(recv->seq, DirectState::kPosted), std::memory_order_release);
    recv->slot = static_cast<int>(recv->seq % kDirectSlots);
    recv->told = false;
  } else {
    rank.unpublished.fetch_add(1, std::memory_order_seq_cst);
  }
  rank.next_seq.store(next_seq_, std::memory_order_release);
  return recv;
}

bool DirectPath::Announce(const std::shared_ptr<DirectRecv>& recv, RequestMsg& post, bool defer,
                          int sender) {
  if (recv->from_inbox) return false;  // complete: ProgressAlone finishes it
  if (!recv->in_ring()) return true;
  post.code = recv->slot + 1;
  if (defer) {
    Defer(recv, post, sender);
    return false;
  }
  Tell(*recv);
  return true;
}

void DirectPath::Defer(std::shared_ptr<DirectRecv> recv, const RequestMsg& post, int sender) {
  // Receives that senders completed while they stayed untold are over: a
  // polling loop that never has to tell them would pile them up here.
  std::erase_if(deferred_,
                [](const Deferred& entry) { return entry.recv->told || entry.recv->collected; });
  deferred_.push_back(Deferred{std::move(recv), post, sender});
}

bool DirectPath::DeferredMayStayUntold() const {
  // Checked per distinct sender: a polling loop defers several receives
  // of the same one (MPI_ANY_SOURCE), each a scan of the node's counts.
  const int* checked = nullptr;
  for (const Deferred& entry : deferred_) {
    if (entry.recv->told || entry.recv->collected) continue;
    if (checked != nullptr && entry.sender == *checked) continue;
    if (!MayStayUntold(entry.sender)) return false;
    checked = &entry.sender;
  }
  return true;
}

void DirectPath::TellDeferred(const std::function<void(const RequestMsg&)>& post) {
  std::vector<Deferred> deferred;
  deferred.swap(deferred_);
  for (Deferred& entry : deferred) {
    if (entry.recv->told || entry.recv->collected) continue;
    if (Tell(*entry.recv)) post(entry.post);
  }
}

bool DirectPath::DeferredOn(int comm) const {
  return std::any_of(deferred_.begin(), deferred_.end(), [&](const Deferred& entry) {
    return !entry.recv->told && !entry.recv->collected && entry.post.comm == comm;
  });
}

bool DirectPath::TakeFromInbox(DirectRecv& recv, int comm, int source, int tag,
                               std::uint64_t address, std::uint64_t capacity) {
  DirectInboxRing ring{table_.inbox(me_), table_.inbox_bytes(me_), table_.inbox_capacity()};
  DirectInboxEntry* entry = FindInboxEntry(ring, comm, source, tag);
  if (entry == nullptr) return false;
  recv.from_inbox = true;
  recv.told = false;
  recv.inbox_status = DirectStatus{entry->source, entry->tag, entry->bytes};
  std::uint64_t fits = std::min(entry->bytes, capacity);
  if (address != 0) {
    if (fits > 0) std::memcpy(reinterpret_cast<void*>(address), entry->data(), fits);
  } else {
    const auto* bytes = reinterpret_cast<const std::byte*>(entry->data());
    recv.inbox_data.assign(bytes, bytes + fits);
  }
  DropInboxEntry(ring, *entry);
  return true;
}

bool DirectPath::ProbeInbox(int comm, int source, int tag, bool close, DirectStatus* status,
                            std::vector<std::byte>* data) {
  if (!queue_) return false;
  DirectInboxRing ring{table_.inbox(me_), table_.inbox_bytes(me_), table_.inbox_capacity()};
  DirectInboxGuard hold(ring.inbox);
  DirectInboxEntry* entry = FindInboxEntry(ring, comm, source, tag);
  if (entry == nullptr) {
    if (close) ++ring.inbox.probing;
    return false;
  }
  *status = DirectStatus{entry->source, entry->tag, entry->bytes};
  if (data != nullptr) {
    const auto* bytes = reinterpret_cast<const std::byte*>(entry->data());
    data->assign(bytes, bytes + entry->bytes);
    DropInboxEntry(ring, *entry);
  }
  return true;
}

void DirectPath::OpenInbox() {
  if (!queue_) return;
  DirectInbox& inbox = table_.inbox(me_);
  DirectInboxGuard hold(inbox);
  if (inbox.probing > 0) --inbox.probing;
}

bool DirectPath::Enqueue(int dest, const void* data, std::uint64_t bytes, int comm, int source,
                         int tag) {
  DirectInboxRing ring{table_.inbox(dest), table_.inbox_bytes(dest), table_.inbox_capacity()};
  std::uint64_t start = 0;
  if (ring.inbox.open == 0 || ring.inbox.probing > 0 || !ReserveInboxEntry(ring, bytes, &start))
    return false;
  DirectInboxEntry& entry = ring.at(start);
  entry.comm = comm;
  entry.source = source;
  entry.tag = tag;
  entry.bytes = bytes;
  entry.stamp = start;
  if (bytes > 0) std::memcpy(entry.data(), data, bytes);
  entry.state = InboxState::kQueued;
  last_queued_ = DirectQueued{dest, start};
  return true;
}

DirectQueued DirectPath::TakeLastQueued() {
  DirectQueued queued = last_queued_;
  last_queued_ = DirectQueued{};
  return queued;
}

bool DirectPath::Withdraw(const DirectQueued& queued) {
  if (queued.dest < 0 || !counting_) return false;
  DirectInboxRing ring{table_.inbox(queued.dest), table_.inbox_bytes(queued.dest),
                       table_.inbox_capacity()};
  DirectInboxGuard hold(ring.inbox);
  if (queued.stamp < ring.inbox.head || queued.stamp >= ring.inbox.tail) return false;
  DirectInboxEntry& entry = ring.at(queued.stamp);
  if (entry.state != InboxState::kQueued || entry.stamp != queued.stamp) return false;
  DropInboxEntry(ring, entry);
  return true;
}

bool DirectPath::Tell(DirectRecv& recv) {
  if (recv.from_inbox) return false;  // complete already
  if (recv.told) return true;
  if (!recv.in_ring()) {
    recv.told = true;
    return true;
  }
  std::atomic<std::uint64_t>& word = table_.rank(me_).slots[recv.slot].word;
  for (;;) {
    std::uint64_t posted = DirectWord(recv.seq, DirectState::kPosted);
    if (word.compare_exchange_strong(posted, DirectWord(recv.seq, DirectState::kTold),
                                     std::memory_order_seq_cst)) {
      recv.told = true;
      return true;
    }
    if (DirectStateOf(posted) == DirectState::kDone) return false;
    // kClaimed: a sender is writing; it ends in kDone, or back in kPosted
    // when its write failed.
    Pause();
  }
}

bool DirectPath::Written(const DirectRecv& recv) const {
  if (recv.from_inbox) return !recv.collected;
  if (!recv.in_ring() || recv.told || recv.collected) return false;
  return table_.rank(me_).slots[recv.slot].word.load(std::memory_order_acquire) ==
         DirectWord(recv.seq, DirectState::kDone);
}

bool DirectPath::Poll(const DirectRecv& recv, int sender) const {
  if (Written(recv)) return true;
  if (poll_ns_ == 0 || !recv.in_ring() || recv.told) return false;
  return SpinFor([&] { return Written(recv); }, sender);
}

bool DirectPath::YieldFor(const DirectRecv& recv, int sender) const {
  std::uint64_t start = NowNs();
  while (!Written(recv)) {
    if (!MayStayUntold(sender)) return Written(recv);
    if (NowNs() - start > poll_ns_) return false;
    if (!BetweenLooks()) return Written(recv);
  }
  return true;
}

bool DirectPath::MayStayUntold(int sender) const {
  return on_ && sender != kFarSender && !MustStopSpinning(sender);
}

bool DirectPath::MasterHasNothingNew() const {
  if (!table_.valid()) return false;
  if (table_.rank(me_).completions.load(std::memory_order_acquire) != 1) return false;
  // Nor a rank waiting for a slot, nor a message to this rank on its way
  // through the master (maybe not read yet): the master needs a core for
  // it, which a rank that polls without a system call would hold (two
  // ranks polling on two cores starved the master: Graph500 on 2 ranks
  // took 1.7x main's time); asking gives it.
  return !MustStopSpinning(kAnySender);
}

bool DirectPath::MustStopSpinning(int sender) const {
  // A runnable rank waits for a running slot: this one gives its slot up.
  if (table_.node().slot_wanted.load(std::memory_order_acquire) != 0) return true;
  // The message waits at the master, which this rank must ask for it (the
  // master never matches a receive it has not heard of).
  // A message to itself never goes direct.
  if (sender == me_) return true;
  if (sender >= 0) return QueuedAtMaster(sender);
  if (sender == kAnySender) {
    for (int other = 0; other < table_.size(); ++other)
      if (table_.pending(other, me_).load(std::memory_order_acquire) != 0) return true;
  }
  return false;
}

bool DirectPath::BetweenLooks() const {
  if (!yield_) {
    Pause();
    return true;
  }
  std::uint64_t before = NowNs();
  sched_yield();
  return NowNs() - before <= kLongYieldNs;
}

template <typename Done>
bool DirectPath::SpinFor(Done done, int sender) const {
  if (poll_skips_ > 0) {
    --poll_skips_;
    return BriefPoll(done, sender);
  }
  if (MustStopSpinning(sender)) return done();
  if (before_spin_) before_spin_();
  std::uint64_t limit = sender == kFarSender ? std::min(poll_ns_, kFarPollNs) : poll_ns_;
  std::uint64_t start = NowNs();
  for (int i = 0;; ++i) {
    if (done()) {
      poll_backoff_ = 0;
      return true;
    }
    // A yield may return only after another process's time slice: look
    // after each one.
    if (yield_ || (i & 63) == 63) {
      // Stopped for another's sake, not in vain: no back-off.
      if (MustStopSpinning(sender)) return done();
      if (NowNs() > start + limit) break;
    }
    if (!BetweenLooks()) {
      // The core went to other work for long (another job's, a rank that
      // computes): each further yield may wait out its time slice, where
      // a rank woken at the master preempts it. Backs off even when the
      // message came meanwhile: it came late.
      bool came = done();
      poll_backoff_ = std::min(2 * poll_backoff_ + 1, kMaxPollSkips);
      poll_skips_ = poll_backoff_;
      return came;
    }
  }
  poll_backoff_ = std::min(2 * poll_backoff_ + 1, kMaxPollSkips);
  poll_skips_ = poll_backoff_;
  return false;
}

template <typename Done>
bool DirectPath::BriefPoll(Done done, int sender) const {
  if (yield_ || MustStopSpinning(sender)) return done();
  if (before_spin_) before_spin_();
  std::uint64_t start = NowNs();
  for (int i = 0; !done(); ++i) {
    Pause();
    if ((i & 63) == 63 && (NowNs() > start + kBriefPollNs || MustStopSpinning(sender)))
      return done();
  }
  return true;
}

bool DirectPath::PollTold(const DirectRecv& recv, int sender) const {
  if (poll_ns_ == 0 || !recv.in_ring() || !recv.told || recv.collected) return false;
  std::atomic<std::uint64_t>& word = table_.rank(me_).slots[recv.slot].word;
  const std::uint64_t polling = DirectWord(recv.seq, DirectState::kPolling);
  std::uint64_t told = DirectWord(recv.seq, DirectState::kTold);
  // Matched by the master, or written by a sender that tells it: the
  // master completes it.
  if (!word.compare_exchange_strong(told, polling, std::memory_order_seq_cst)) return false;
  SpinFor([&] { return word.load(std::memory_order_acquire) != polling; }, sender);
  for (;;) {
    std::uint64_t expected = polling;
    // Nothing came: the master's again, which the receiver now waits at.
    if (word.compare_exchange_strong(expected, DirectWord(recv.seq, DirectState::kTold),
                                     std::memory_order_seq_cst))
      return false;
    DirectState state = DirectStateOf(expected);
    if (state == DirectState::kDonePolled) return true;
    if (state == DirectState::kMaster) return false;
    // kClaimedPolled: a sender is writing; it ends in kDonePolled, or back
    // in kPolling when its write failed.
    Pause();
  }
}

bool DirectPath::QueuedAtMaster(int sender) const {
  if (!counting_ || sender < 0 || sender == me_) return false;
  return table_.pending(sender, me_).load(std::memory_order_acquire) != 0;
}

void DirectPath::WaitWritten(const DirectRecv& recv) const {
  while (!Written(recv)) Pause();
}

DirectStatus DirectPath::TakeWritten(DirectRecv& recv) {
  if (recv.from_inbox) {
    recv.collected = true;
    return recv.inbox_status;
  }
  const DirectSlot& slot = table_.rank(me_).slots[recv.slot];
  DirectStatus status{slot.sent_source.load(std::memory_order_relaxed),
                      slot.sent_tag.load(std::memory_order_relaxed),
                      slot.sent_bytes.load(std::memory_order_relaxed)};
  if (slot.sent_in_slot.load(std::memory_order_relaxed) != 0 && status.bytes > 0)
    std::memcpy(reinterpret_cast<void*>(slot.address.load(std::memory_order_relaxed)), slot.data,
                status.bytes);
  Collect(recv);
  return status;
}

void DirectPath::Collect(DirectRecv& recv) {
  if (recv.from_inbox) recv.collected = true;
  if (recv.collected || recv.seq == 0) return;
  recv.collected = true;
  if (!recv.in_ring()) table_.rank(me_).unpublished.fetch_sub(1, std::memory_order_seq_cst);
  if (recv.in_ring())
    table_.rank(me_).slots[recv.slot].word.store(DirectWord(recv.seq, DirectState::kFree),
                                                  std::memory_order_release);
  Forget(recv.seq);
}

void DirectPath::Abandon(std::shared_ptr<DirectRecv> recv) {
  if (recv->from_inbox) recv->collected = true;  // over: it has its message
  if (recv->collected || recv->seq == 0) return;
  recv->collected = true;
  if (!recv->in_ring()) {
    table_.rank(me_).unpublished.fetch_sub(1, std::memory_order_seq_cst);
    Forget(recv->seq);
    return;
  }
  abandoned_.push_back(std::move(recv));
}

void DirectPath::Forget(std::uint64_t seq) {
  live_.erase(seq);
  std::uint64_t first = live_.empty() ? next_seq_ : *live_.begin();
  table_.rank(me_).first_live.store(first, std::memory_order_release);
}

void DirectPath::CountMasterSend(int dest, RequestMsg& request) {
  if (!counting_ || dest < 0) return;
  table_.pending(me_, dest).fetch_add(1, std::memory_order_seq_cst);
  request.counted = 1;
}

DirectSend DirectPath::TrySend(const void* data, std::uint64_t bytes, int comm, int rank,
                               int tag, int dest, std::uint64_t* recv_id) {
  last_queued_ = DirectQueued{};
  if (!on_ || bytes > max_bytes_ || dest < 0 || dest == me_) return DirectSend::kNo;
  // An earlier message to `dest` still waits at the master: this one may
  // not overtake it.
  if (table_.pending(me_, dest).load(std::memory_order_seq_cst) != 0) return DirectSend::kNo;
  // Only a user's message, or a collective's whose receives all look
  // there (TwinTagUsesInbox), may wait in an inbox: every user receive
  // looks there when posted, but the other collectives' and the runtime's
  // own receives (a twin communicator, a negative tag) may go straight to
  // the master.
  bool queueable = queue_ && bytes <= table_.inbox_capacity() / kDirectInboxMessageShare &&
                   tag >= 0 &&
                   ((static_cast<std::uint32_t>(comm) & kCollectiveCommBit) == 0 ||
                    TwinTagUsesInbox(tag));
  std::uint64_t deadline = 0;
  for (;;) {
    // Read before the scan: a receive posted after it moves `next_seq`.
    std::uint64_t seen = table_.rank(dest).next_seq.load(std::memory_order_acquire);
    bool none_posted = false;
    DirectSend sent =
        DepositCounted(dest, data, bytes, comm, rank, tag, recv_id, &none_posted, queueable);
    if (sent != DirectSend::kNo || !none_posted || !WaitForPost(dest, seen, &deadline))
      return sent;
  }
}

DirectSend DirectPath::DepositCounted(int dest, const void* data, std::uint64_t bytes, int comm,
                                      int source, int tag, std::uint64_t* recv_id,
                                      bool* none_posted, bool queueable) {
  DirectRank& receiver = table_.rank(dest);
  // A receive open now matches no message waiting in the inbox (the lock's
  // invariant, common/direct_table.h), so a sender claims it without the
  // lock, as a message that may not wait there does; the lock is taken
  // only when none is open, for the choice between a receive posted
  // meanwhile and the inbox. A stream whose receiver keeps a receive
  // posted otherwise moved the lock's line between the ranks per message,
  // and waited for the receiver's posts under it.
  bool locked = !queueable || receiver.accepting.load(std::memory_order_relaxed) == 0;
  for (;; locked = true) {
    // The receiver's posts and this choice are one step for its inbox.
    std::optional<DirectInboxGuard> hold;
    if (queueable && locked) hold.emplace(table_.inbox(dest));
    receiver.writers.fetch_add(1, std::memory_order_seq_cst);
    DirectSend sent = DirectSend::kNo;
    bool accepting = receiver.accepting.load(std::memory_order_seq_cst) != 0;
    // A receive that is not published may take the message: not the inbox.
    bool may_queue = queueable && locked &&
                     receiver.unpublished.load(std::memory_order_seq_cst) == 0;
    // A switched-out receiver's memory is not written, but its inbox is.
    if (accepting || may_queue)
      sent = Deposit(receiver, data, bytes, comm, source, tag, recv_id, none_posted, accepting);
    receiver.writers.fetch_sub(1, std::memory_order_seq_cst);
    if (!locked) {
      if (sent != DirectSend::kNo || (accepting && !*none_posted)) return sent;
      *none_posted = false;
      continue;
    }
    if (sent == DirectSend::kNo && *none_posted && may_queue &&
        Enqueue(dest, data, bytes, comm, source, tag))
      sent = DirectSend::kQueued;
    return sent;
  }
}

bool DirectPath::WaitForPost(int dest, std::uint64_t seen, std::uint64_t* deadline) {
  if (send_wait_ns_ == 0) return false;
  DirectRank& receiver = table_.rank(dest);
  // Worth it only while the receiver runs (it may post soon) and the wait
  // takes nobody's core.
  auto must_stop = [&] {
    return table_.node().slot_wanted.load(std::memory_order_acquire) != 0 ||
           receiver.at_master.load(std::memory_order_acquire) != 0 ||
           receiver.accepting.load(std::memory_order_acquire) == 0;
  };
  if (must_stop()) return false;
  if (send_backoff_.size() != static_cast<std::size_t>(table_.size()))
    send_backoff_.assign(static_cast<std::size_t>(table_.size()), SendBackoff{});
  SendBackoff& backoff = send_backoff_[static_cast<std::size_t>(dest)];
  if (*deadline == 0) {
    if (backoff.skips > 0) {
      --backoff.skips;
      return false;
    }
    // One bound for the whole send, however many receives that do not
    // take it the receiver posts meanwhile.
    *deadline = NowNs() + send_wait_ns_;
  }
  for (int i = 0;; ++i) {
    if (receiver.next_seq.load(std::memory_order_acquire) != seen) {
      backoff.backoff = 0;
      return true;
    }
    if (yield_ || (i & 63) == 63) {
      if (must_stop()) return false;
      if (NowNs() > *deadline) break;
    }
    if (!BetweenLooks()) break;  // other work has the core: as SpinFor
  }
  backoff.backoff = static_cast<std::uint16_t>(
      std::min<std::uint64_t>(2 * backoff.backoff + 1, kMaxPollSkips));
  backoff.skips = backoff.backoff;
  return false;
}

void DirectPath::AtMaster(bool waiting) {
  if (!counting_) return;
  table_.rank(me_).at_master.store(waiting ? 1 : 0, std::memory_order_release);
}

DirectSend DirectPath::Deposit(DirectRank& receiver, const void* data, std::uint64_t bytes,
                               int comm, int source, int tag, std::uint64_t* recv_id,
                               bool* none_posted, bool may_write) {
  for (;;) {
    DirectOpenReceive open = FindOpenReceive(receiver, comm, source, tag);
    if (open.scan == DirectScan::kUnsure) return DirectSend::kNo;
    if (open.scan == DirectScan::kNone) break;
    const std::uint64_t seq = open.seq;
    std::uint64_t word = open.word;
    DirectSlot& slot = receiver.slots[seq % kDirectSlots];
    DirectState state = DirectStateOf(word);
    std::uint64_t address = slot.address.load(std::memory_order_relaxed);
    if (address == 0 || slot.capacity.load(std::memory_order_relaxed) < bytes)
      return DirectSend::kNo;  // the master delivers it (and truncates)
    // Told: the receiver may wait for it at the master, which this
    // sender then tells. Polling: the receiver waits for it here and
    // tells the master itself.
    bool told = state == DirectState::kTold;
    bool polled = state == DirectState::kPolling;
    if (!may_write) return DirectSend::kNo;
    std::uint64_t claimed =
        DirectWord(seq, told     ? DirectState::kClaimedTold
                        : polled ? DirectState::kClaimedPolled
                                 : DirectState::kClaimed);
    if (!slot.word.compare_exchange_strong(word, claimed, std::memory_order_seq_cst))
      continue;  // changed meanwhile: look again
    // A small message waits in the slot, without a system call: for the
    // receiver, which completes the receive itself (TakeWritten), or for
    // the master, which hands it over in its reply (a told receive; it
    // went through the master whole before, which counted it in
    // `pending` and sent the sender's next messages after it).
    bool in_slot = bytes <= kDirectSlotBytes;
    int error = 0;
    if (in_slot)
      std::memcpy(slot.data, data, bytes);
    else if (bytes > 0)
      error = WriteProcessMemory(static_cast<pid_t>(receiver.pid.load(std::memory_order_relaxed)),
                                 address, data, bytes);
    if (error != 0) {
      // A bad receive buffer or a refusal: the master's way, which
      // reports it; the receive is as it was.
      slot.word.store(word, std::memory_order_seq_cst);
      if (error == EPERM || error == ENOSYS) {
        BDMPI_DEBUG("p2p", "writing into another rank's memory is not allowed here (%s): "
                    "small messages go through the master from now on", std::strerror(error));
        on_ = false;
      }
      return DirectSend::kNo;
    }
    slot.sent_source.store(source, std::memory_order_relaxed);
    slot.sent_tag.store(tag, std::memory_order_relaxed);
    slot.sent_bytes.store(bytes, std::memory_order_relaxed);
    slot.sent_in_slot.store(in_slot ? 1 : 0, std::memory_order_relaxed);
    *recv_id = slot.recv_id.load(std::memory_order_relaxed);
    slot.word.store(DirectWord(seq, told     ? DirectState::kDoneTold
                                    : polled ? DirectState::kDonePolled
                                             : DirectState::kDone),
                    std::memory_order_seq_cst);
    return told ? DirectSend::kDoneTold : DirectSend::kDone;
  }
  *none_posted = true;
  return DirectSend::kNo;
}

}  // namespace bdmpi
