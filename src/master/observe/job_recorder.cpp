#include "master/observe/job_recorder.h"

#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace bdmpi {
namespace {

bool HoldsSlot(std::optional<RankActivity> activity) {
  return activity == RankActivity::kRunning || activity == RankActivity::kWaitingMemory;
}

bool IsBlocked(std::optional<RankActivity> activity) {
  return activity == RankActivity::kBlockedReceive ||
         activity == RankActivity::kBlockedCollective ||
         activity == RankActivity::kBlockedCritical;
}

// Microseconds with a fraction, as the trace format wants them.
std::string Micros(std::int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e3);
  return text;
}

}  // namespace

std::int64_t MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void JobRecorder::Start(int node, int nslaves, int first_rank, bool trace,
                        std::size_t trace_cap) {
  on_ = true;
  trace_cap_ = trace_cap;
  trace_ = trace;
  node_ = node;
  first_rank_ = first_rank;
  start_ns_ = MonotonicNs();
  ranks_.assign(static_cast<std::size_t>(nslaves), Rank{});
  running_ns_.assign(static_cast<std::size_t>(nslaves) + 1, 0);
  running_since_ns_ = start_ns_;
  for (int i = 0; i < nslaves; ++i) {
    ranks_[i].figures.rank = first_rank + i;
    ranks_[i].figures.node = node;
    ranks_[i].since_ns = start_ns_;
  }
}

void JobRecorder::AddReserved(const std::vector<int>& ranks) {
  for (int rank : ranks) {
    Rank& added = ranks_.emplace_back();
    added.figures.rank = rank;
    added.figures.node = node_;
    added.since_ns = start_ns_;
    added.started = false;
  }
}

void JobRecorder::RankStarted(int slave) {
  if (on_ && slave < static_cast<int>(ranks_.size())) ranks_[static_cast<std::size_t>(slave)].started = true;
}

void JobRecorder::TouchAll() {
  for (int slave = 0; slave < static_cast<int>(ranks_.size()); ++slave) Touched(slave);
}

void JobRecorder::RankActivityIs(int slave, std::optional<RankActivity> activity, bool finished,
                                 const char* label, const std::string& detail,
                                 std::int64_t now) {
  Rank& rank = ranks_[slave];
  if (rank.activity == activity && rank.finished == finished) return;
  progress_changed_ = true;
  if (rank.finished != finished) finished_ += finished ? 1 : -1;
  rank.finished = finished;
  if (rank.activity == activity) return;
  if (rank.activity == RankActivity::kRunning || activity == RankActivity::kRunning) {
    // The count of running ranks changes: the time at the old count ends.
    running_ns_[static_cast<std::size_t>(in_activity_[static_cast<int>(RankActivity::kRunning)])] +=
        static_cast<std::uint64_t>(std::max<std::int64_t>(0, now - running_since_ns_));
    running_since_ns_ = now;
  }
  if (rank.activity) {
    rank.figures.ns[static_cast<int>(*rank.activity)] +=
        static_cast<std::uint64_t>(now - rank.since_ns);
    --in_activity_[static_cast<int>(*rank.activity)];
    if (IsBlocked(rank.activity)) --BlockedIn(rank.label);
    if (trace_) {
      Event event{rank.since_ns, now, rank.figures.rank, 0, rank.label, ""};
      if (!rank.detail.empty()) event.args = "\"call\": " + JsonQuoted(rank.detail);
      Keep(std::move(event));
    }
  }
  if (activity) ++in_activity_[static_cast<int>(*activity)];
  if (IsBlocked(activity)) ++BlockedIn(label);
  if (HoldsSlot(rank.activity) && !HoldsSlot(activity)) ++rank.figures.switches;
  rank.activity = activity;
  rank.since_ns = now;
  rank.label = label;
  if (trace_) rank.detail = detail;
}

int& JobRecorder::BlockedIn(const char* call) {
  for (auto& [name, ranks] : blocked_in_) {
    if (name == call) return ranks;
  }
  return blocked_in_.emplace_back(call, 0).second;
}

NodeProgress JobRecorder::Progress() const {
  NodeProgress progress;
  auto in = [this](RankActivity activity) { return in_activity_[static_cast<int>(activity)]; };
  progress.running = in(RankActivity::kRunning) + in(RankActivity::kWaitingMemory);
  progress.runnable = in(RankActivity::kRunnable);
  progress.blocked = in(RankActivity::kBlockedReceive) + in(RankActivity::kBlockedCollective) +
                     in(RankActivity::kBlockedCritical);
  progress.finished = finished_;
  auto top = std::max_element(blocked_in_.begin(), blocked_in_.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  if (top != blocked_in_.end() && top->second > 0) {
    std::snprintf(progress.top_call, sizeof progress.top_call, "%s", top->first);
    progress.top_call_ranks = top->second;
  }
  progress.spilled = spill_bytes_;
  progress.written_back = written_back_;
  return progress;
}

void JobRecorder::RunningSlots(int limit, bool automatic, int cores) {
  running_limit_ = limit;
  running_auto_ = automatic;
  cores_ = cores;
}

void JobRecorder::MemoryHold(bool holding, std::int64_t now) {
  if (!on_) return;
  if (holding && memory_hold_since_ns_ < 0) {
    ++memory_holds_;
    memory_hold_since_ns_ = now;
  } else if (!holding && memory_hold_since_ns_ >= 0) {
    memory_hold_ns_ += static_cast<std::uint64_t>(now - memory_hold_since_ns_);
    memory_hold_since_ns_ = -1;
  }
}

void JobRecorder::Sent(int slave, MessagePath path, std::uint64_t bytes) {
  if (!on_) return;
  Count& count = ranks_[slave].figures.sent[static_cast<int>(path)];
  ++count.messages;
  count.bytes += bytes;
  if (path == MessagePath::kMasterSpill || path == MessagePath::kSpillFile) {
    spill_bytes_ += bytes;
    progress_changed_ = true;
  }
}

void JobRecorder::DirectSent(int slave, std::uint64_t messages, std::uint64_t bytes) {
  if (!on_) return;
  ranks_[slave].figures.sent[static_cast<int>(MessagePath::kDirect)] = Count{messages, bytes};
}

void JobRecorder::StoragePeak(int slave, std::uint64_t bytes) {
  if (on_ && bytes > ranks_[slave].figures.storage_peak) ranks_[slave].figures.storage_peak = bytes;
}

void JobRecorder::ReleaseAsked(int slave) {
  if (trace_ && ranks_[slave].release_asked_ns < 0) ranks_[slave].release_asked_ns = MonotonicNs();
}

void JobRecorder::WrittenBack(int slave, std::uint64_t bytes) {
  if (!on_) return;
  std::int64_t asked_ns = ranks_[slave].release_asked_ns;
  ranks_[slave].release_asked_ns = -1;
  RankFigures& figures = ranks_[slave].figures;
  ++figures.released;
  figures.written_back += bytes;
  written_back_ += bytes;
  progress_changed_ = true;
  if (trace_ && asked_ns >= 0)
    Keep({asked_ns, MonotonicNs(), kMasterTrack, ++next_id_,
          "write-back rank " + std::to_string(figures.rank),
          "\"bytes\": " + std::to_string(bytes)});
}

void JobRecorder::ReadBack(int slave, std::uint64_t eager_bytes, long major_faults,
                           long long disk_read, std::uint64_t fresh_bytes) {
  if (!on_) return;
  RankFigures& figures = ranks_[slave].figures;
  figures.read_back = std::max(figures.read_back, eager_bytes);
  figures.fresh = std::max(figures.fresh, fresh_bytes);
  if (major_faults >= 0) figures.major_faults = static_cast<std::uint64_t>(major_faults);
  if (disk_read >= 0) figures.disk_read = static_cast<std::uint64_t>(disk_read);
}

void JobRecorder::CollectiveRan(const char* operation, std::uint64_t bytes, bool counted_here) {
  if (!on_ || !counted_here) return;
  CollectiveFigures& coll = collectives_[operation];
  coll.operation = operation;
  ++coll.count;
  coll.bytes += bytes;
}

void JobRecorder::InterNodeStepStarted(int comm, std::uint64_t seq, const char* operation) {
  if (on_) steps_[{comm, seq}] = {MonotonicNs(), operation, {}};
}

void JobRecorder::InterNodeStepAlgorithm(int comm, std::uint64_t seq,
                                         std::string_view algorithm) {
  if (!on_) return;
  auto it = steps_.find({comm, seq});
  if (it != steps_.end()) it->second.algorithm = algorithm;
}

void JobRecorder::AddTransfers(const NetworkFigures& figures,
                               std::vector<TransferLog::Event> events, std::uint64_t dropped) {
  if (!on_) return;
  network_ = figures;
  dropped_ += dropped;
  for (TransferLog::Event& event : events)
    Keep({event.begin_ns, event.end_ns, kMasterTrack, ++next_id_, std::move(event.name),
          std::move(event.args)});
}

void JobRecorder::InterNodeStepDone(int comm, std::uint64_t seq, bool counted_here) {
  if (!on_) return;
  auto it = steps_.find({comm, seq});
  if (it == steps_.end()) return;
  Step step = it->second;
  steps_.erase(it);
  std::int64_t end = MonotonicNs();
  std::string algorithm(step.algorithm.empty() ? "unknown" : step.algorithm);
  if (counted_here) {
    CollectiveFigures& coll = collectives_[step.operation];
    coll.operation = step.operation;
    coll.inter_node_ns += static_cast<std::uint64_t>(end - step.begin_ns);
    ++coll.inter_node_steps;
    ++coll.algorithms[algorithm];
  }
  if (trace_)
    Keep({step.begin_ns, end, kMasterTrack, ++next_id_,
          std::string(step.operation) + " inter-node step",
          "\"comm\": " + std::to_string(comm) + ", \"seq\": " + std::to_string(seq) +
              ", \"algorithm\": " + JsonQuoted(algorithm)});
}

void JobRecorder::Keep(Event event) {
  if (events_.size() >= trace_cap_) {
    ++dropped_;
    return;
  }
  events_.push_back(std::move(event));
}

RunReport JobRecorder::NodeReport(int nnodes, long peak_rss_kib,
                                  std::uint64_t buffered_peak) const {
  RunReport report;
  report.nnodes = nnodes;
  report.nranks = static_cast<int>(std::count_if(ranks_.begin(), ranks_.end(),
                                                 [](const Rank& rank) { return rank.started; })) *
                  nnodes;
  report.wall_s = static_cast<double>(MonotonicNs() - start_ns_) / 1e9;
  NodeFigures& figures = report.nodes.emplace_back();
  figures.node = node_;
  figures.peak_rss_kib = peak_rss_kib;
  figures.spill_bytes = spill_bytes_;
  figures.buffered_peak = buffered_peak;
  figures.network = network_;
  std::int64_t now = MonotonicNs();
  figures.running_limit = running_limit_;
  figures.running_auto = running_auto_;
  figures.cores = cores_;
  figures.running_ns = running_ns_;
  if (!figures.running_ns.empty()) {
    // The interval under way, at the current count.
    std::size_t current =
        static_cast<std::size_t>(in_activity_[static_cast<int>(RankActivity::kRunning)]);
    figures.running_ns[current] += static_cast<std::uint64_t>(std::max<std::int64_t>(0, now - running_since_ns_));
    // Up to the limit, and beyond only what was used.
    std::size_t keep = static_cast<std::size_t>(std::max(running_limit_, 0)) + 1;
    while (figures.running_ns.size() > keep && figures.running_ns.back() == 0)
      figures.running_ns.pop_back();
  }
  figures.budget_adaptive = budget_adaptive_;
  figures.budget_least = budget_.least();
  figures.budget_most = budget_.most();
  figures.budget_mean = budget_.Mean(now);
  figures.memory_holds = memory_holds_;
  figures.memory_hold_ns = memory_hold_ns_;
  if (memory_hold_since_ns_ >= 0)
    figures.memory_hold_ns += static_cast<std::uint64_t>(now - memory_hold_since_ns_);
  for (const Rank& rank : ranks_)
    if (rank.started) report.ranks.push_back(rank.figures);
  for (const auto& [name, coll] : collectives_) report.collectives.push_back(coll);
  return report;
}

std::string JobRecorder::TraceEvents(std::int64_t offset_ns, std::int64_t origin_ns) const {
  auto ts = [&](std::int64_t ns) { return Micros(ns + offset_ns - origin_ns); };
  std::string pid = std::to_string(node_);
  std::string out;
  out.reserve(events_.size() * 300);  // two lines of about 150 bytes each
  out += "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + pid +
         ", \"args\": {\"name\": \"node " + pid + "\"}}\n";
  for (const Rank& rank : ranks_) {
    if (!rank.started) continue;
    std::string tid = std::to_string(rank.figures.rank);
    out += "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + pid + ", \"tid\": " + tid +
           ", \"args\": {\"name\": \"rank " + tid + "\"}}\n";
  }
  for (const Event& event : events_) {
    std::string args = "{" + event.args + "}";
    if (event.track == kMasterTrack) {
      // Async events: write-backs and steps of a master overlap.
      std::string common = "\"cat\": \"master\", \"id\": " + std::to_string(event.id) +
                           ", \"pid\": " + pid + ", \"tid\": -1, \"name\": " + JsonQuoted(event.name);
      out += "{" + common + ", \"ph\": \"b\", \"ts\": " + ts(event.begin_ns) + ", \"args\": " +
             args + "}\n";
      out += "{" + common + ", \"ph\": \"e\", \"ts\": " + ts(event.end_ns) + "}\n";
      continue;
    }
    std::string common = "\"cat\": \"rank\", \"pid\": " + pid +
                         ", \"tid\": " + std::to_string(event.track) +
                         ", \"name\": " + JsonQuoted(event.name);
    out += "{" + common + ", \"ph\": \"B\", \"ts\": " + ts(event.begin_ns) + ", \"args\": " + args +
           "}\n";
    out += "{" + common + ", \"ph\": \"E\", \"ts\": " + ts(event.end_ns) + "}\n";
  }
  return out;
}

}  // namespace bdmpi
