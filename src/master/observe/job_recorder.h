// What one master records of its node for the run report, the timeline
// trace and the live status: per rank the time spent in each activity
// (common/run_report.h), switches, messages by path, storage written back;
// per node spill bytes; collectives by operation with the time of their
// inter-node steps; and, with a trace, begin/end events in a bounded
// buffer. The event loop is its only user (no locking). Off (the default)
// every entry point returns after one test of `on()`, so a job without
// --report, --trace or --progress pays nothing else.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/run_report.h"
#include "master/memory/budget_control.h"
#include "master/network/transfer_log.h"
#include "master/network/wire.h"

namespace bdmpi {

// CLOCK_MONOTONIC in nanoseconds: the clock of every figure and event.
std::int64_t MonotonicNs();

class JobRecorder {
 public:
  // Most trace events a master keeps (about 64 bytes each plus their
  // text); later ones are counted as dropped, and the file says so.
  static constexpr std::size_t kTraceEventCap = 1 << 18;

  JobRecorder() = default;
  // Turns recording on for `nslaves` ranks from `first_rank` on `node`;
  // `trace`: keep trace events too, at most `trace_cap`.
  // Slots for ranks MPI_Comm_spawn may start later (job ranks `ranks`,
  // slave indexes from nslaves on): in the report once RankStarted.
  void AddReserved(const std::vector<int>& ranks);
  void RankStarted(int slave);
  void Start(int node, int nslaves, int first_rank, bool trace,
             std::size_t trace_cap = kTraceEventCap);
  bool on() const { return on_; }
  bool tracing() const { return trace_; }
  // Whether another trace event would be kept (else its details need not
  // be formatted).
  bool trace_has_room() const { return trace_ && events_.size() < trace_cap_; }
  std::int64_t start_ns() const { return start_ns_; }

  // A rank's state may have changed (the master calls this where it
  // changes a slave's state): the event loop looks at the ranks noted
  // since its last look only, so recording costs O(1) per state change
  // and nothing for a message that changes no state.
  void Touched(int slave) {
    if (!on_ || ranks_[slave].touched) return;
    ranks_[slave].touched = true;
    touched_.push_back(slave);
  }
  // Every rank, e.g. before the last look.
  void TouchAll();
  // Calls `look(slave)` for each rank touched since the last call.
  template <class Look>
  void ForEachTouched(Look look) {
    for (int slave : touched_) {
      ranks_[slave].touched = false;
      look(slave);
    }
    touched_.clear();
  }

  // A rank's activity now; nullopt outside the scheduled states (before
  // MPI_Init, after MPI_Finalize; `finished` tells the latter). `label`
  // names it in the trace and the progress line ("MPI_Recv", static text),
  // `detail` its arguments; both only read when the activity changed.
  void RankActivityIs(int slave, std::optional<RankActivity> activity, bool finished,
                      const char* label, const std::string& detail, std::int64_t now);
  std::optional<RankActivity> activity(int slave) const { return ranks_[slave].activity; }
  bool finished(int slave) const { return ranks_[slave].finished; }
  std::int64_t activity_since(int slave) const { return ranks_[slave].since_ns; }

  // The node's running slots (-nr), and with -nr auto the cores they came
  // from; and whether -nr auto holds a runnable rank back for memory with
  // a slot free (from `now` on). The report counts the seconds spent with
  // k ranks running, k = 0 .. limit.
  void RunningSlots(int limit, bool automatic, int cores);
  void MemoryHold(bool holding, std::int64_t now);
  // The node budget for the ranks so far, and whether it follows the
  // cgroup's reclaim (budget_control.h).
  void NodeBudget(const BudgetRange& range, bool adaptive) {
    budget_ = range;
    budget_adaptive_ = adaptive;
  }

  void Sent(int slave, MessagePath path, std::uint64_t bytes);
  // The rank's count of its direct messages so far (MessagePath::kDirect).
  void DirectSent(int slave, std::uint64_t messages, std::uint64_t bytes);
  void Spilled(std::uint64_t bytes) {
    if (on_) spill_bytes_ += bytes, progress_changed_ = true;
  }
  void StoragePeak(int slave, std::uint64_t bytes);
  // A rank has been asked to write its storage-backed memory back (the
  // trace's write-back event begins), and has written `bytes`.
  void ReleaseAsked(int slave);
  void WrittenBack(int slave, std::uint64_t bytes);
  // A rank's read-back so far: bytes read eagerly (the storage table) and
  // major page faults (-1: unknown now, keep the last figure).
  // disk_read: -1 when unknown.
  void ReadBack(int slave, std::uint64_t eager_bytes, long major_faults, long long disk_read,
                std::uint64_t fresh_bytes);
  // A collective completed its node part; counted on the first node of
  // its communicator only, so that the job's count is one per operation.
  void CollectiveRan(const char* operation, std::uint64_t bytes, bool counted_here);
  void InterNodeStepStarted(int comm, std::uint64_t seq, const char* operation);
  // The algorithm the network chose for it (static text), before Done.
  void InterNodeStepAlgorithm(int comm, std::uint64_t seq, std::string_view algorithm);
  void InterNodeStepDone(int comm, std::uint64_t seq, bool counted_here);
  // The network thread's transfers (transfer_log.h), before NodeReport
  // and TraceEvents.
  void AddTransfers(const NetworkFigures& figures, std::vector<TransferLog::Event> events,
                    std::uint64_t dropped);

  // This node's figures for the report.
  RunReport NodeReport(int nnodes, long peak_rss_kib, std::uint64_t buffered_peak) const;
  // This node's trace events as JSON objects, one a line, with times in
  // microseconds on node 0's clock from `origin_ns` (node 0's start):
  // `offset_ns` is node 0's clock minus this node's.
  std::string TraceEvents(std::int64_t offset_ns, std::int64_t origin_ns) const;
  std::uint64_t dropped_events() const { return dropped_; }

  // For the live status: ranks in each activity and totals so far, kept
  // up to date at each change; `changed`: since the last call.
  NodeProgress Progress() const;
  bool TakeProgressChanged() { return std::exchange(progress_changed_, false); }

 private:
  struct Rank {
    std::optional<RankActivity> activity;
    bool finished = false;
    bool touched = false;
    bool started = true;  // false: a reserved slot no spawn has filled
    std::int64_t since_ns = 0;
    const char* label = "";  // trace only
    std::string detail;      // trace only
    std::int64_t release_asked_ns = -1;
    RankFigures figures;
  };
  struct Event {
    std::int64_t begin_ns = 0;
    std::int64_t end_ns = 0;
    int track = 0;         // world rank, or kMasterTrack
    std::uint64_t id = 0;  // master events (async: they may overlap)
    std::string name;
    std::string args;  // a JSON object's members, may be empty
  };
  static constexpr int kMasterTrack = -1;

  void Keep(Event event);

  bool on_ = false;
  bool trace_ = false;
  int node_ = 0;
  int first_rank_ = 0;
  std::int64_t start_ns_ = 0;
  std::vector<Rank> ranks_;
  std::uint64_t spill_bytes_ = 0;
  std::uint64_t written_back_ = 0;
  // Time with k ranks running (index k) up to running_since_ns_, when the
  // count last changed; -nr auto's holds for memory.
  int running_limit_ = 0;
  bool running_auto_ = false;
  int cores_ = 0;
  std::vector<std::uint64_t> running_ns_;
  std::int64_t running_since_ns_ = 0;
  std::uint64_t memory_holds_ = 0;
  std::uint64_t memory_hold_ns_ = 0;
  std::int64_t memory_hold_since_ns_ = -1;
  BudgetRange budget_;
  bool budget_adaptive_ = false;
  std::vector<int> touched_;
  // The progress line's counts: ranks per activity, finished ranks, and
  // blocked ranks per call (labels are static text).
  int in_activity_[kRankActivities] = {};
  int finished_ = 0;
  // A few calls at most, never removed: no allocation per change.
  std::vector<std::pair<const char*, int>> blocked_in_;
  int& BlockedIn(const char* call);
  bool progress_changed_ = false;
  std::map<std::string, CollectiveFigures> collectives_;
  // Inter-node steps under way, by (comm, seq).
  struct Step {
    std::int64_t begin_ns = 0;
    const char* operation = "";
    std::string_view algorithm;
  };
  std::map<std::pair<int, std::uint64_t>, Step> steps_;
  NetworkFigures network_;
  std::vector<Event> events_;
  std::size_t trace_cap_ = kTraceEventCap;
  std::uint64_t next_id_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace bdmpi
