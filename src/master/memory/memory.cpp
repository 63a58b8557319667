// The master's half of storage-backed memory (memory.h; the slave's half is
// src/slave/memory): the node's memory budget and switch-out decisions.
//
// Who switches out: the master decides, the slave does the I/O. Only the
// master knows the budget and which slaves are blocked; only the slave has
// its mappings and knows which pages it wrote. When a slave is about to
// resume and the storage-backed bytes of every slave whose data is resident
// (its own included) exceed the budget, the master sends Release to blocked
// slaves (then runnable ones), those that will run again last first
// (switch_policy.h), until the rest fits, and
// holds back the resumed slave's reply until what they have still to
// write fits (a releasing slave reports its progress, ReleaseProgress, as
// it drops its data piece by piece). So nothing is written or dropped while
// the budget is not exceeded, a slave is only switched out when it really
// waits, and a resumed slave never holds more memory than the write-back
// of the slave it replaces has freed: its reads overlap the rest of that
// write-back on the disk, within the budget.
//
// The budget counts every byte of a rank, not only its storage-backed
// data: what the runtime cannot page (stack, glibc's heap below the
// storage threshold, the program's own mappings, libraries' data) stays
// resident even while the rank is switched out, so each live rank's
// unpageable part is counted all the time and the storage-backed data
// gets what is left. A rank's unpageable part is its resident anonymous
// memory (statm: resident less shared, kernel counters, a few microseconds
// to read) less the storage-backed bytes counted resident for it (arena
// blocks are anonymous mappings until written back); it is read at most
// every 10 ms per rank, and only for ranks that ran or wrote back since.
#include "master/memory/memory.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "common/oom_kill.h"
#include "common/process_memory.h"
#include "common/run_report.h"
#include "common/storage_table.h"
#include "master/memory/node_memory.h"
#include "master/memory/switch_policy.h"

namespace bdmpi {

void NodeMemory::SetBudget() {
  table_ = master_.StorageTable();
  cgroup_ = FindMemoryCgroup();
  oom_at_start_ = ReadOomCounts(cgroup_);
  node_memory_ = options_.node_memory != 0 ? options_.node_memory
                                           : DefaultNodeMemory(options_.mem_budget);
  // Only where the cgroup's limit is what the default came from (not a
  // machine with less available) and its reclaim is counted.
  std::uint64_t available = AvailableMemory();
  CgroupReclaim reclaim;
  if (options_.node_memory == 0 && cgroup_.limit != 0 &&
      (available == 0 || available >= cgroup_.limit) && ReadCgroupReclaim(cgroup_, reclaim))
    budget_control_.emplace(node_memory_, cgroup_.limit);
  budget_range_.Note(node_memory_, MonotonicNs());
  recorder_.NodeBudget(budget_range_, budget_control_.has_value());
  BDMPI_INFO("disk", "node memory budget for the ranks: %llu bytes%s",
             static_cast<unsigned long long>(node_memory_),
             budget_control_ ? ", following the cgroup's reclaim up to its limit less a margin"
                             : "");
}

std::uint64_t NodeMemory::RanksRead() {
  rank_read_.resize(static_cast<std::size_t>(master_.slaves().size()), 0);
  for (const Slave& slave : master_.slaves()) {
    if (slave.state == SlaveState::kExited) continue;
    long long read = StorageReadBytes(slave.pid);
    std::uint64_t& last = rank_read_[static_cast<std::size_t>(slave.index)];
    if (read < 0 || static_cast<std::uint64_t>(read) <= last) continue;
    ranks_read_ += static_cast<std::uint64_t>(read) - last;
    last = static_cast<std::uint64_t>(read);
  }
  return ranks_read_;
}

void NodeMemory::AdaptBudget() {
  if (!budget_control_) return;
  std::int64_t now = MonotonicNs();
  if (!budget_control_->Due(now)) return;
  CgroupReclaim reclaim;
  if (!ReadCgroupReclaim(cgroup_, reclaim)) {
    budget_control_.reset();  // the cgroup is gone: the budget stays
    return;
  }
  std::uint64_t budget = budget_control_->Look({.ns = now,
                                                .refaulted = reclaim.refaulted,
                                                .read = RanksRead(),
                                                .unreclaimable = reclaim.unreclaimable,
                                                .held = PayloadMemory() + BufferedMessages()});
  if (budget == node_memory_) return;
  BDMPI_DEBUG("disk", "node budget %llu -> %llu bytes (refaulted %llu, ranks read %llu so far)",
              static_cast<unsigned long long>(node_memory_),
              static_cast<unsigned long long>(budget),
              static_cast<unsigned long long>(reclaim.refaulted),
              static_cast<unsigned long long>(ranks_read_));
  node_memory_ = budget;
  budget_range_.Note(budget, now);
  recorder_.NodeBudget(budget_range_, true);
}

bool NodeMemory::ReadRankMemory(Slave& slave) {
  constexpr std::int64_t kMaxAgeNs = 10'000'000;
  if (!slave.statm_fd || slave.state == SlaveState::kExited) return false;
  std::int64_t now = MonotonicNs();
  if (slave.resident_read_ns >= 0 && now - slave.resident_read_ns < kMaxAgeNs) return true;
  Statm statm;
  if (!ReadStatm(slave.statm_fd.get(), statm)) return false;
  static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  slave.resident_read_ns = now;
  slave.resident_fraction =
      statm.size == 0 ? 0.0
                      : static_cast<double>(statm.resident) / static_cast<double>(statm.size);
  // The arena's resident pages are anonymous and at most what the storage
  // table counts resident for it: the difference is a lower bound, exact
  // when nothing of its storage is counted resident (switched out, or none).
  std::uint64_t anonymous = statm.anonymous() * page;
  std::uint64_t storage = ResidentStorageBytes(slave);
  std::uint64_t rest = anonymous > storage ? anonymous - storage : 0;
  if (storage == 0 && !slave.storage_partial) slave.unpageable_exact = rest;
  slave.unpageable = std::max(rest, slave.unpageable_exact);
  slave.memory_changed = false;
  return true;
}

std::uint64_t NodeMemory::UnpageableBytes(bool refresh) {
  std::uint64_t total = 0;
  for (Slave& slave : master_.slaves()) {
    if (slave.state == SlaveState::kExited) continue;
    // Ranks outside the scheduler's hold (before MPI_Init, after
    // MPI_Finalize) and running ones may allocate at any time.
    bool may_change = slave.memory_changed || slave.state == SlaveState::kRunning ||
                      slave.state == SlaveState::kStarting ||
                      slave.state == SlaveState::kFinalized;
    if (refresh && may_change) ReadRankMemory(slave);
    total += slave.unpageable;
  }
  if (refresh && total >= node_memory_ && !unpageable_warned_) {
    unpageable_warned_ = true;
    std::vector<const Slave*> largest;
    for (const Slave& slave : master_.slaves())
      if (slave.state != SlaveState::kExited) largest.push_back(&slave);
    std::size_t shown = std::min<std::size_t>(largest.size(), 4);
    std::partial_sort(largest.begin(), largest.begin() + static_cast<long>(shown), largest.end(),
                      [](const Slave* a, const Slave* b) { return a->unpageable > b->unpageable; });
    std::string ranks;
    for (std::size_t i = 0; i < shown; ++i)
      ranks += (i ? ", rank " : "rank ") + std::to_string(largest[i]->world_rank) + " " +
               HumanBytes(largest[i]->unpageable);
    BDMPI_WARN("disk",
               "what the ranks hold that the runtime cannot page out (stacks, small "
               "allocations, their own mappings) is %s, more than the node budget of %s (%s): ranks "
               "that wait are switched out all the same, which cannot make the budget, "
               "and the kernel may kill one; largest %s%s. Run more ranks so that each "
               "holds less, fewer ranks per node, or raise --node-memory if the node has "
               "the memory",
               HumanBytes(total).c_str(), HumanBytes(node_memory_).c_str(),
               options_.node_memory != 0 ? "--node-memory" : "the default",
               ranks.c_str(), largest.size() > shown ? ", ..." : "");
  }
  peak_unpageable_ = std::max(peak_unpageable_, total);
  return total;
}

std::uint64_t NodeMemory::ExpectedStorage(const Slave& slave) const {
  // What it will hold while it runs: at least as much as when it last
  // stopped. A slave that never stopped with data (its first run after
  // MPI_Init, where programs allocate) is expected to need as much as the
  // largest peak so far: ranks of one program tend to be alike.
  std::uint64_t mine = std::max(StorageBytes(slave), slave.storage_peak);
  if (slave.storage_peak == 0) {
    for (const Slave& other : master_.slaves()) mine = std::max(mine, other.storage_peak);
  }
  return mine;
}

std::uint64_t NodeMemory::ResumeBytes(const Slave& slave) const {
  std::uint64_t full = ExpectedStorage(slave);
  // Only where the pages come back when touched, and where a rank that
  // touches more is seen while it runs (the watcher's waker).
  if (options_.prefetch != Prefetch::kLazy || !touch_wake_ || !slave.pending ||
      !(slave.storage_released || slave.storage_partial))
    return full;
  return TouchAdmission(slave.storage_partial ? slave.touched : 0,
                        slave.touch_estimates.Expected(static_cast<int>(slave.pending->type)),
                        full);
}

std::uint64_t NodeMemory::RunningBytes(const Slave& slave) const {
  if (slave.waiting_for_memory) return ResumeBytes(slave);
  return slave.storage_partial ? slave.touch_counted : ExpectedStorage(slave);
}

bool NodeMemory::ReadTouch(const Slave& slave, TouchReading& out) {
  static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  Statm statm;
  if (!slave.statm_fd || slave.state == SlaveState::kExited ||
      !ReadStatm(slave.statm_fd.get(), statm))
    return false;
  long long read = StorageReadBytes(slave.pid);
  out = {.anonymous = statm.anonymous() * page,
         .shared = statm.shared * page,
         .read = read > 0 ? static_cast<std::uint64_t>(read) : 0};
  return true;
}

void NodeMemory::WatchTouches(const Slave& slave) {
  if (!slave.statm_fd || !touch_wake_) return;
  if (!touch_watch_) touch_watch_ = std::make_unique<TouchWatch>(touch_wake_, touch_placement_);
  touch_watch_->Watch(slave.index, slave.statm_fd.get(),
                      slave.touch_baseline.resident() + slave.touch_counted);
}

void NodeMemory::NoteResume(Slave& slave) {
  if (slave.storage_released && options_.prefetch == Prefetch::kLazy) {
    // Nothing of its data is resident now; what it touches from here on
    // is. Without a reading of where it starts, it counts in full.
    slave.storage_partial = ReadTouch(slave, slave.touch_baseline);
    slave.touched = 0;
  }
  if (!slave.storage_partial || !slave.pending) return;
  slave.touch_point = static_cast<int>(slave.pending->type);
  slave.touch_counted = ResumeBytes(slave);
  BDMPI_DEBUG("sched", "rank %d resumed out of %s on %llu of %llu bytes", slave.world_rank,
              MsgTypeName(slave.pending->type),
              static_cast<unsigned long long>(slave.touch_counted),
              static_cast<unsigned long long>(ExpectedStorage(slave)));
  // What it frees before it blocks (a step's temporaries) was touched too.
  slave.touch_peak_reset = ResetPeakRss(slave.pid);
  if (slave.touch_counted < ExpectedStorage(slave)) {
    ++touch_admitted_;
    WatchTouches(slave);
  }
}

void NodeMemory::NoteStopped(Slave& slave) {
  slave.stopped_ns = MonotonicNs();
  if (touch_watch_) touch_watch_->Unwatch(slave.index);
  if (!slave.storage_partial) return;
  TouchReading now;
  if (!ReadTouch(slave, now)) now = slave.touch_baseline;
  std::uint64_t touched = TouchedSince(slave.touch_baseline, now);
  // Its resident set at its most since the resume, over the one then.
  std::uint64_t touched_most = touched;
  long peak_kib = slave.touch_peak_reset ? PeakRssKiB(slave.pid) : -1;
  std::uint64_t peak = peak_kib > 0 ? static_cast<std::uint64_t>(peak_kib) << 10 : 0;
  if (peak > slave.touch_baseline.resident())
    touched_most = std::max(touched_most, peak - slave.touch_baseline.resident());
  slave.touch_peak_reset = false;
  // What this run added, at its most, to what was resident before it.
  std::uint64_t added = touched_most > slave.touched ? touched_most - slave.touched : 0;
  BDMPI_DEBUG("sched", "rank %d added %llu bytes after a resume out of %s",
              slave.world_rank, static_cast<unsigned long long>(added),
              MsgTypeName(static_cast<MsgType>(slave.touch_point)));
  slave.touch_estimates.Note(slave.touch_point, added);
  slave.touched = touched;
  slave.touch_counted = touched;
}

void NodeMemory::OnTouchWatch() {
  for (Slave& slave : master_.slaves()) {
    if (!slave.storage_partial || slave.state != SlaveState::kRunning ||
        slave.waiting_for_memory)
      continue;
    TouchReading now;
    if (!ReadTouch(slave, now)) continue;
    std::uint64_t touched = TouchedSince(slave.touch_baseline, now);
    std::uint64_t full = ExpectedStorage(slave);
    std::uint64_t counted = TouchGrown(slave.touch_counted, touched, ReleaseStep(), full);
    if (counted != slave.touch_counted) {
      BDMPI_DEBUG("sched", "rank %d touched %llu bytes, more than the %llu it runs on",
                  slave.world_rank, static_cast<unsigned long long>(touched),
                  static_cast<unsigned long long>(slave.touch_counted));
      ++touch_grown_;
      slave.touch_counted = counted;
      // It runs on: blocked ranks write back meanwhile.
      MakeRoom(slave, counted, true);
    }
    if (counted < full) WatchTouches(slave);
  }
}

bool NodeMemory::RoomToRunAnother() {
  Slave* next = master_.slaves().PeekNext();
  if (next == nullptr) return true;
  AdaptBudget();
  // Every rank's unpageable part, the running ranks' data (which cannot
  // be written back while they run) and the next one's. Blocked ranks'
  // data and held messages can go to disk: MemoryFor sees to them, and
  // writes back last those about to be woken. Counting those here as
  // well saved reads but idled a core for longer than the reads took
  // (docs/scheduling-and-memory.md, "Out-of-core performance").
  std::uint64_t needed = UnpageableBytes(true) + ResumeBytes(*next);
  for (const Slave& slave : master_.slaves()) {
    if (slave.state == SlaveState::kRunning) needed += RunningBytes(slave);
  }
  return needed <= node_memory_;
}

std::uint64_t NodeMemory::StorageBytes(const Slave& slave) const {
  if (table_ == nullptr || slave.state == SlaveState::kExited) return 0;
  return table_[slave.index].allocated.load(std::memory_order_relaxed);
}

double NodeMemory::ResidentFraction(Slave& slave) {
  // With storage-backed data, statm's size counts the arena's reserved
  // address space: the runtime's own record says what is resident.
  // A rank read back lazily since its switch-out counts as resident: what
  // it will touch is what it touched (the order stays the paper's).
  if (StorageBytes(slave) > 0)
    return slave.storage_released || slave.storage_releasing ? 0.0 : 1.0;
  return ReadRankMemory(slave) ? slave.resident_fraction : 0.0;
}

void NodeMemory::FindAwaited(const Slave& slave) {
  master_.AwaitedSources(slave, awaited_world_);
  awaited_.clear();
  for (int world_rank : awaited_world_) {
    const Slave* source = world_rank < 0 ? nullptr : master_.slaves().ByWorldRank(world_rank);
    awaited_.push_back(source == nullptr ? -1 : source->index);
  }
}

bool NodeMemory::WokenSoon(const Slave& slave) {
  if (slave.state != SlaveState::kRBlocked) return false;
  FindAwaited(slave);
  return bdmpi::WokenSoon(slave.state, awaited_,
                          [this](int index) { return master_.slaves()[index].state; });
}

double NodeMemory::ResumeScore(Slave& slave) {
  // Only a rank whose data is on disk: without storage-backed data the
  // paper's policy stands (nothing is read back in a known amount).
  double fraction = ResidentFraction(slave);
  if (fraction >= 1.0 || StorageBytes(slave) == 0) return fraction;
  // Whether a blocked slave whose data is resident waits for this one.
  bool awaited = false;
  for (const Slave& other : master_.slaves()) {
    if (other.state != SlaveState::kRBlocked || other.storage_released ||
        other.storage_releasing)
      continue;
    FindAwaited(other);
    if (std::ranges::find(awaited_, slave.index) != awaited_.end()) {
      awaited = true;
      break;
    }
  }
  return bdmpi::ResumeScore(fraction, awaited);
}

std::uint64_t NodeMemory::ResidentStorageBytes(const Slave& slave) const {
  if (slave.storage_released) return 0;
  std::uint64_t bytes = StorageBytes(slave);
  if (slave.storage_releasing) bytes -= std::min(bytes, slave.storage_dropped);
  // Read back lazily since its switch-out: only what it touched (or, while
  // it runs, was admitted on), and while it writes back at most what it
  // has not gone past (its progress counts all its bytes).
  if (slave.storage_partial) bytes = std::min(bytes, slave.touch_counted);
  return bytes;
}

std::uint64_t NodeMemory::ReleaseStep() const {
  // Fine enough that a resumed rank starts soon after the write-back that
  // makes its room begins, coarse enough that the reports cost nothing
  // against the writes (a few per budget's worth; the request queue holds
  // ten messages).
  constexpr std::uint64_t kMin = 1ull << 20, kMax = 64ull << 20;
  return std::clamp<std::uint64_t>(node_memory_ / 8, kMin, kMax);
}

bool NodeMemory::MemoryFor(Slave& slave) {
  // Nobody left to switch out: run anyway (the kernel has the last word).
  return MakeRoom(slave, ResumeBytes(slave), false) != Room::kReleasing;
}

NodeMemory::Room NodeMemory::MakeRoom(const Slave& slave, std::uint64_t mine, bool blocked_only) {
  // Released slaves hold nothing, releasing ones what they have yet to
  // write; a slave reading ahead counts in full from the moment it was
  // told to.
  // Every live rank's unpageable part stays whatever is switched out.
  // When that alone exceeds the budget (said once), the runnable ranks
  // keep their data: writing it back would not make the budget, and they
  // would read it back soon after.
  AdaptBudget();
  std::uint64_t unpageable = UnpageableBytes(true);
  if (unpageable >= node_memory_) blocked_only = true;
  std::uint64_t resident = mine + unpageable;
  std::uint64_t releasing = 0;
  for (const Slave& other : master_.slaves()) {
    if (&other == &slave) continue;
    std::uint64_t bytes = ResidentStorageBytes(other);
    resident += bytes;
    if (other.storage_releasing) releasing += bytes;
  }
  // Held payloads in memory files count too, and go to disk first: a
  // buffered message is read once, a slave's data again and again. Before
  // them, the idle warm pages of free payload segments, which cost no I/O.
  resident += PayloadMemory();
  if (resident > node_memory_) resident -= TrimIdleSegments(resident - node_memory_);
  if (resident > node_memory_) resident -= MovePayloadsToDisk(resident - node_memory_);
  if (resident <= node_memory_) return Room::kFits;
  if (resident - releasing <= node_memory_) return Room::kReleasing;  // wait for them
  // Blocked slaves first (a runnable one would run soon and read its data
  // straight back), those that will not be woken soon first (a slave
  // waiting for a rank that runs now would be read back within the round),
  // one that reads ahead last (its reads would be wasted), the largest
  // first (fewest switch-outs), and of those alike the one that ran last
  // (the ranks run in about the same order every round): switch_policy.h.
  std::vector<Slave*> waiting_slaves;
  std::vector<SwitchOutCandidate> facts_of;
  for (Slave& other : master_.slaves()) {
    bool waiting = other.state == SlaveState::kRBlocked ||
                   other.state == SlaveState::kCBlocked ||
                   (other.state == SlaveState::kRunnable && !blocked_only);
    // Not one that a sender writes into now (placed.h), nor one whose
    // lent block a receiver may be reading: its memory must stay where it
    // is meanwhile, or the write-back would race them.
    if (&other != &slave && waiting && other.pending && !other.storage_released &&
        !other.storage_releasing && !master_.HasIncomingWrites(other) &&
        ResidentStorageBytes(other) > 0 && !payloads_.LentInHand(other.index)) {
      waiting_slaves.push_back(&other);
      facts_of.push_back({.state = other.state,
                          .woken_soon = WokenSoon(other),
                          .read_ahead = other.storage_read_ahead,
                          .bytes = ResidentStorageBytes(other),
                          .stopped_ns = other.stopped_ns});
    }
  }
  for (std::size_t pick : SwitchOutOrder(facts_of)) {
    Slave* victim = waiting_slaves[pick];
    const SwitchOutCandidate& facts = facts_of[pick];
    if (resident - releasing <= node_memory_) break;
    BDMPI_DEBUG("sched", "switch out rank %d (%s, %llu bytes%s, stopped %.1f ms ago) for rank %d",
                victim->world_rank, SlaveStateName(facts.state),
                static_cast<unsigned long long>(facts.bytes),
                facts.woken_soon ? ", woken soon" : "",
                facts.stopped_ns < 0 ? -1.0
                                     : static_cast<double>(MonotonicNs() - facts.stopped_ns) / 1e6,
                slave.world_rank);
    // Its lent blocks become ordinary messages first: once switched out,
    // its memory cannot be read from outside. The copies are kept for it
    // too, so that its write-back skips their pages, and it reads them
    // back from the copies if it runs again before freeing them (a send
    // buffer freed after the collective is then never written).
    payloads_.OweCopiesTo(victim->index);
    master_.CopyLentBlocksOf(*victim);
    payloads_.OweCopiesTo(-1);
    ReplyMsg release;
    release.type = MsgType::kRelease;
    payloads_.ListOwed(victim->index, ReleaseStep()).Into(release);
    master_.Reply(*victim, release);
    victim->storage_releasing = true;
    victim->storage_dropped = 0;
    recorder_.ReleaseAsked(victim->index);
    victim->storage_read_ahead = false;
    releasing += facts.bytes;
  }
  return releasing == 0 ? Room::kNobody : Room::kReleasing;
}

void NodeMemory::HandleReleaseProgress(Slave& slave, const RequestMsg& request) {
  if (!slave.storage_releasing) return;
  slave.storage_dropped = std::max(slave.storage_dropped, request.bytes);
  ResumeWaitingForMemory();
  ReadAheadNext();
}

void NodeMemory::HandleRestoreLent(Slave& slave, const RequestMsg& request) {
  RestoreLentArgs args = RestoreLentArgs::Of(request);
  ReplyMsg reply;
  reply.type = request.type;
  if (args.map) {
    // Kept until LentSettled: the rank maps the file itself, not by name.
    const Payload* copy = payloads_.KeepOwedMapped(slave.index, args.address);
    if (copy == nullptr) return FailLentCopy(slave);
    std::vector<std::shared_ptr<OwnedFile>> named;
    payloads_.Give(*copy, copy->bytes(), master_.Window(slave.index), reply, named);
    ++owed_mapped_;
  } else {
    std::optional<Payload> copy = payloads_.TakeOwed(slave.index, args.address);
    if (!copy) return FailLentCopy(slave);
    // Added to the files of the reply before, which the rank reads after
    // this one.
    payloads_.Give(*copy, copy->bytes(), master_.Window(slave.index), reply, slave.held_files);
  }
  ++owed_blocks_;
  owed_bytes_ += args.skipped;  // what the rank did not write back
  master_.Reply(slave, reply);
}

void NodeMemory::HandleLentSettled(Slave& slave, const RequestMsg& request) {
  if (!payloads_.TakeOwed(slave.index, request.file_id, /*mapped=*/true))
    return FailLentCopy(slave);
  owed_settled_read_ += request.bytes;
}

void NodeMemory::FailLentCopy(const Slave& slave) {
  master_.Fail(1, "rank " + std::to_string(slave.world_rank) +
                      " named a copy of a lent block the master does not keep");
}

void NodeMemory::HandleReleased(Slave& slave, const RequestMsg& request) {
  payloads_.DropOwedList(slave.index);  // read at the start of its write-back
  slave.memory_changed = true;  // its anonymous pages are gone: an exact reading
  slave.storage_releasing = false;
  slave.storage_dropped = 0;
  slave.storage_released = true;
  slave.storage_partial = false;
  slave.touched = slave.touch_counted = 0;
  ++switch_outs_;
  written_back_ += request.bytes;
  recorder_.WrittenBack(slave.index, request.bytes);
  ResumeWaitingForMemory();
  ReadAheadNext();
}

void NodeMemory::ResumeWaitingForMemory() {
  for (Slave& slave : master_.slaves()) {
    if (!slave.waiting_for_memory || slave.state != SlaveState::kRunning) continue;
    if (!MemoryFor(slave)) continue;
    if (std::ranges::any_of(master_.slaves(),
                            [](const Slave& other) { return other.storage_releasing; }))
      ++overlapped_resumes_;
    slave.waiting_for_memory = false;
    recorder_.Touched(slave.index);
    master_.SendResumeReply(slave);
  }
}

void NodeMemory::ReadAheadNext() {
  if (options_.prefetch != Prefetch::kAhead) return;
  // A resumed slave still waiting for memory goes first: read-ahead would
  // take the room it waits for.
  for (const Slave& slave : master_.slaves())
    if (slave.waiting_for_memory) return;
  Slave* next = master_.slaves().PeekNext();
  if (next == nullptr || !next->pending || !next->storage_released ||
      next->storage_releasing)
    return;
  // Its data as of its switch-out, all of it: what it held resident then
  // is not known here, and may be all.
  std::uint64_t bytes = StorageBytes(*next);
  // Room is made from blocked slaves only: a runnable one released now
  // would be read back soon after, for nothing.
  if (bytes == 0 || MakeRoom(*next, bytes, true) != Room::kFits) return;  // again at Released
  BDMPI_DEBUG("sched", "rank %d reads ahead (%llu bytes)", next->world_rank,
              static_cast<unsigned long long>(bytes));
  ReplyMsg read_ahead;
  read_ahead.type = MsgType::kReadAhead;
  master_.Reply(*next, read_ahead);
  next->storage_released = false;  // counted as resident from now on
  next->storage_read_ahead = true;
  next->memory_changed = true;
  ++read_aheads_;
  NoteResidentStorage();
}

std::uint64_t NodeMemory::PayloadMemory() const {
  return payloads_.memory_file_bytes() + payloads_.idle_segment_bytes();
}

std::uint64_t NodeMemory::BufferedMessages() const { return payloads_.budget().used(); }

void NodeMemory::NoteResidentStorage() {
  // Everything the budget counts, messages in memory included.
  std::uint64_t unpageable = UnpageableBytes(false);
  std::uint64_t resident = PayloadMemory() + unpageable;
  for (const Slave& slave : master_.slaves()) resident += ResidentStorageBytes(slave);
  if (resident > peak_resident_) {
    peak_resident_ = resident;
    peak_unpageable_at_peak_ = unpageable;
  }
  // With the wall-clock time, to set against samples of the cgroup's own
  // usage taken outside the job.
  if (LogEnabled(LogLevel::kDebug, "disk")) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    BDMPI_DEBUG("disk", "counted resident %llu bytes (unpageable %llu, messages %llu) at %lld.%03ld",
                static_cast<unsigned long long>(resident),
                static_cast<unsigned long long>(unpageable),
                static_cast<unsigned long long>(PayloadMemory()),
                static_cast<long long>(now.tv_sec), now.tv_nsec / 1'000'000);
  }
}

std::string NodeMemory::DescribeOomKill(const Slave& slave) {
  std::string text = DescribeSigkill(cgroup_, oom_at_start_);
  if (text.empty()) return "";
  std::uint64_t unpageable = UnpageableBytes(false);
  // Its slot still says what it held (StorageBytes says 0 once it is reaped).
  std::uint64_t storage =
      table_ == nullptr ? 0 : table_[slave.index].allocated.load(std::memory_order_relaxed);
  std::string measured_ago = "it never was: it died before its first MPI call";
  if (slave.resident_read_ns >= 0) {
    char ago[32];
    std::snprintf(ago, sizeof ago, "%.1f s before it died",
                  static_cast<double>(MonotonicNs() - slave.resident_read_ns) / 1e9);
    measured_ago = ago;
  }
  std::string origin = options_.node_memory != 0 ? " (--node-memory)"
                       : budget_control_ ? " (the default, which follows the cgroup's reclaim: " +
                                               HumanBytes(budget_range_.least()) + " to " +
                                               HumanBytes(budget_range_.most()) + " so far)"
                                         : " (the default: the limit less a margin)";
  text += ", the node budget for the ranks was " + HumanBytes(node_memory_) + origin +
          "; when last measured (at an MPI call of its own or another rank, " + measured_ago +
          "), rank " + std::to_string(slave.world_rank) + " held " +
          HumanBytes(slave.unpageable) +
          " that the runtime cannot page out (stack, its own mappings, libraries' "
          "private data) and " + HumanBytes(storage) +
          " of storage-backed data, and all ranks of the node " + HumanBytes(unpageable) +
          " unpageable. Give each rank less to hold (more ranks: -n), lower --node-memory, "
          "run one rank at a time (-nr 1)";
  if (unpageable >= node_memory_ || slave.unpageable * 2 >= node_memory_)
    text += ", or have the program allocate its large arrays with malloc or new "
            "instead of mmap, so that the runtime can page them";
  return text;
}

void NodeMemory::LogSummary() const {
  std::uint64_t fresh = 0;
  if (table_ != nullptr)
    for (const Slave& slave : master_.slaves())
      fresh += table_[slave.index].fresh.load(std::memory_order_relaxed);
  BDMPI_INFO("disk",
             "storage: %llu switch-outs, %llu bytes written back, %llu read-aheads, "
             "at most %llu bytes resident at a resume (%s the budget of %llu), "
             "%llu message bytes moved from memory to disk (%llu while held), "
             "%llu bytes of idle payload segments given back, "
             "%llu resumes during a write-back, %llu lent blocks copied, "
             "%llu bytes unpageable at that resume, at most %llu unpageable, "
             "%llu bytes of receive buffers not read back (fresh pages), "
             "%llu lent blocks not written back (%llu bytes; %llu mapped from the copies, "
             "%llu bytes read from those to settle them), "
             "%llu resumes admitted on what they touch (%llu counted larger while running)",
             static_cast<unsigned long long>(switch_outs_),
             static_cast<unsigned long long>(written_back_),
             static_cast<unsigned long long>(read_aheads_),
             static_cast<unsigned long long>(peak_resident_),
             peak_resident_ <= node_memory_ ? "within" : "over",
             static_cast<unsigned long long>(node_memory_),
             static_cast<unsigned long long>(payloads_.moved_to_disk()),
             static_cast<unsigned long long>(payloads_.moved_while_held()),
             static_cast<unsigned long long>(payloads_.trimmed_segment_bytes()),
             static_cast<unsigned long long>(overlapped_resumes_),
             static_cast<unsigned long long>(payloads_.lent_copied()),
             static_cast<unsigned long long>(peak_unpageable_at_peak_),
             static_cast<unsigned long long>(peak_unpageable_),
             static_cast<unsigned long long>(fresh),
             static_cast<unsigned long long>(owed_blocks_),
             static_cast<unsigned long long>(owed_bytes_),
             static_cast<unsigned long long>(owed_mapped_),
             static_cast<unsigned long long>(owed_settled_read_),
             static_cast<unsigned long long>(touch_admitted_),
             static_cast<unsigned long long>(touch_grown_));
  std::int64_t now = MonotonicNs();
  BDMPI_INFO("disk", "node budget for the ranks: %s, least %llu, most %llu, mean %llu bytes",
             budget_control_ ? "followed the cgroup's reclaim" : "fixed",
             static_cast<unsigned long long>(budget_range_.least()),
             static_cast<unsigned long long>(budget_range_.most()),
             static_cast<unsigned long long>(budget_range_.Mean(now)));
}

}  // namespace bdmpi
