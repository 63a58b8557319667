// The node's memory, the master's side (memory.cpp; memory files within it:
// memory_payloads.cpp): the budget that every rank's data, unpageable
// memory and the held messages in memory share, which waiting slaves to
// switch out (Release) so that a resumed one fits, a resumed slave's reply
// held back until the write-back has made its room, read-ahead of the
// slave to run next (--prefetch ahead), -nr auto's room for another running
// rank, and what an out-of-memory kill is told with. The slave's half is
// src/slave/memory; docs/scheduling-and-memory.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/memory_cgroup.h"
#include "common/protocol.h"
#include "master/master_services.h"
#include "master/memory/budget_control.h"
#include "master/memory/payload_store.h"
#include "master/memory/touch_watch.h"
#include "master/observe/job_recorder.h"
#include "master/options.h"
#include "master/slave.h"

namespace bdmpi {

// The peer of the event that the watcher of resumed ranks (touch_watch.h)
// wakes the event loop with.
inline constexpr int kTouchWatchEventPeer = -3;

class NodeMemory {
 public:
  NodeMemory(MasterServices& master, PayloadStore& payloads, JobRecorder& recorder,
             const MasterOptions& options)
      : master_(master), payloads_(payloads), recorder_(recorder), options_(options) {}
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;

  // The budget (--node-memory, or the default from the cgroup or the
  // machine, which then follows the cgroup's reclaim: budget_control.h)
  // and the kernel's OOM kill counts so far; once the slaves' objects
  // exist (their storage table).
  void SetBudget();
  // The memory directory (tmpfs) at `path` for payloads larger than the
  // window ("": none), kept within the budget (memory_payloads.cpp).
  void CreateMemoryDirectory(const std::string& path);

  // The message table's handlers: a releasing slave's progress, and its
  // data written back and dropped.
  void HandleReleased(Slave& slave, const RequestMsg& request);
  void HandleReleaseProgress(Slave& slave, const RequestMsg& request);
  // A slave that runs again asks for the copy of a lent block its
  // write-back skipped (RestoreLent).
  void HandleRestoreLent(Slave& slave, const RequestMsg& request);
  // A copy RestoreLent kept mapped is no longer mapped (LentSettled).
  void HandleLentSettled(Slave& slave, const RequestMsg& request);

  // Whether `slave` may run now without exceeding the budget; if not,
  // asks waiting slaves to release their memory and returns false.
  bool MemoryFor(Slave& slave);
  // Sends the replies of resumed slaves whose memory is now there.
  void ResumeWaitingForMemory();
  // A resumed slave's reply is about to go (its data switched out or
  // read back lazily: from now on counted at what it touches), and it has
  // stopped running (what it touched is measured and learned).
  void NoteResume(Slave& slave);
  void NoteStopped(Slave& slave);
  // The watcher's call: counts running slaves that touched more than they
  // were admitted on at what they touched, making room for it.
  void OnTouchWatch();
  // How the watcher wakes the event loop (the master's request queue), and
  // where it runs (touch_watch.h).
  void SetTouchWaker(std::function<void()> wake, const ThreadPlacement& placement) {
    touch_wake_ = std::move(wake);
    touch_placement_ = placement;
  }
  // --prefetch ahead: the slave the scheduler runs next reads its data
  // back while others compute, when the budget has room.
  void ReadAheadNext();
  // -nr auto: whether the slave the scheduler would start next fits in the
  // budget next to the running ones (their data cannot be written back).
  bool RoomToRunAnother();
  // Notes the bytes the budget counts (storage-backed data resident or
  // being read, payloads in memory) after a decision to resume or read
  // ahead, for the -v summary.
  void NoteResidentStorage();
  // The storage-backed bytes `slave` holds (its slot of the storage table).
  std::uint64_t StorageBytes(const Slave& slave) const;
  // The scheduler's resident fraction of a slave (--policy memory).
  double ResidentFraction(Slave& slave);
  // The memory policy's score of a runnable slave: its resident fraction,
  // raised when its data is switched out and resident blocked slaves wait
  // for it (switch_policy.h).
  double ResumeScore(Slave& slave);
  // Why a slave got SIGKILL, when the kernel's out-of-memory killer sent
  // it: the limit, what the rank could not page out, what to change; empty
  // when the kernel counted no OOM kill.
  std::string DescribeOomKill(const Slave& slave);
  // The -v summary at the end: switch-outs, write-backs, peaks.
  void LogSummary() const;

 private:
  // What of a slave's storage counts against the budget: none once
  // released, what is left to write while it releases.
  std::uint64_t ResidentStorageBytes(const Slave& slave) const;
  void FailLentCopy(const Slave& slave);
  // Whether a blocked slave waits only for messages of slaves that run or
  // may run now (switch_policy.h's WokenSoon).
  bool WokenSoon(const Slave& slave);
  // The slaves on this node whose messages `slave`'s posted receives wait
  // for, by index (-1: any, or another node's rank), in awaited_.
  void FindAwaited(const Slave& slave);
  // Without --node-memory, under a memory cgroup: moves the budget after
  // the cgroup's refaults since the last look, once a second at most
  // (budget_control.h).
  void AdaptBudget();
  // What the ranks have read from disk so far (/proc/<pid>/io), also
  // those that have exited.
  std::uint64_t RanksRead();
  // How many bytes a releasing slave writes between progress reports.
  std::uint64_t ReleaseStep() const;
  // What `slave` is expected to hold in storage-backed data while it runs.
  std::uint64_t ExpectedStorage(const Slave& slave) const;
  // What a resume of `slave` is admitted on: what it is expected to touch
  // when its data is switched out or read back lazily and a resume out of
  // the same point has been measured, else ExpectedStorage.
  std::uint64_t ResumeBytes(const Slave& slave) const;
  // What a running slave counts: its admission while it runs on an
  // estimate, else ExpectedStorage.
  std::uint64_t RunningBytes(const Slave& slave) const;
  // Its memory now (statm, /proc/<pid>/io), false when unknown.
  static bool ReadTouch(const Slave& slave, TouchReading& out);
  // Has the watcher look for `slave` passing what it is counted at.
  void WatchTouches(const Slave& slave);
  // Reads the slave's statm (at most every 10 ms): its resident fraction
  // and what of its memory cannot be paged (Slave::unpageable). False when
  // it cannot be read.
  bool ReadRankMemory(Slave& slave);
  // The unpageable bytes of every live slave, read again first where they
  // may have changed (`refresh`); warns once when they alone exceed the
  // budget.
  std::uint64_t UnpageableBytes(bool refresh);
  // Whether `bytes` more for `slave` fit in the budget now (kFits); if
  // not, asks slaves that wait (with `blocked_only`, only blocked ones) to
  // release theirs (kReleasing), or finds nobody to ask (kNobody).
  enum class Room { kFits, kReleasing, kNobody };
  Room MakeRoom(const Slave& slave, std::uint64_t bytes, bool blocked_only);
  // Whether memory files of `bytes` more fit the budget (after giving
  // back idle payload segments if they do not).
  bool MemoryRoomForPayloads(std::uint64_t bytes);
  // Memory files held plus the warm pages of free payload segments.
  std::uint64_t PayloadMemory() const;
  // Small messages in the master's own memory (up to --mem-budget), which
  // the default budget's margin holds but a budget grown toward the limit
  // must leave room for.
  std::uint64_t BufferedMessages() const;
  // Gives back idle payload segments to free `wanted` bytes; returns the
  // bytes freed.
  std::uint64_t TrimIdleSegments(std::uint64_t wanted);
  // Moves held memory files to disk to free `wanted` bytes; returns the
  // bytes freed.
  std::uint64_t MovePayloadsToDisk(std::uint64_t wanted);

  MasterServices& master_;
  PayloadStore& payloads_;
  JobRecorder& recorder_;
  const MasterOptions& options_;
  // The slaves' storage table (read on every decision; nullptr: none).
  const StorageSlot* table_ = nullptr;
  std::uint64_t node_memory_ = 0;
  // Where the budget follows the cgroup's reclaim, and what it was.
  std::optional<BudgetControl> budget_control_;
  BudgetRange budget_range_;
  // RanksRead's last reading per slave and their sum.
  std::vector<std::uint64_t> rank_read_;
  std::uint64_t ranks_read_ = 0;
  std::uint64_t switch_outs_ = 0;
  std::uint64_t written_back_ = 0;
  std::uint64_t read_aheads_ = 0;
  // Lent blocks read back from the master's copies instead of the disk,
  // and the bytes of them the senders did not write back.
  std::uint64_t owed_blocks_ = 0;
  std::uint64_t owed_bytes_ = 0;
  std::uint64_t owed_mapped_ = 0;       // of owed_blocks_: mapped by the rank
  std::uint64_t owed_settled_read_ = 0;  // bytes read from mapped copies to settle them
  // Resumes sent while the write-back that made their room went on.
  std::uint64_t overlapped_resumes_ = 0;
  std::uint64_t peak_resident_ = 0;  // NoteResidentStorage's largest
  std::uint64_t peak_unpageable_at_peak_ = 0;  // of it, the ranks' unpageable memory
  std::uint64_t peak_unpageable_ = 0;  // the most the ranks held unpageable
  bool unpageable_warned_ = false;
  // FindAwaited's answer, and the world ranks it is made from (kept to
  // spare an allocation per question).
  std::vector<int> awaited_;
  std::vector<int> awaited_world_;
  // Resumes admitted on an estimate of what they touch, and the times a
  // running rank touched more and was counted larger.
  std::uint64_t touch_admitted_ = 0;
  std::uint64_t touch_grown_ = 0;
  std::function<void()> touch_wake_;
  ThreadPlacement touch_placement_;
  std::unique_ptr<TouchWatch> touch_watch_;  // at the first watch
  // The memory cgroup and the kernel's OOM kill counts at the start.
  MemoryCgroup cgroup_;
  OomCounts oom_at_start_;
};

}  // namespace bdmpi
