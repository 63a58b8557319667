// The master's side of observability (observe.h).
#include "master/observe/observe.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>

#include "common/log.h"
#include "common/process_memory.h"
#include "common/status_reply.h"
#include "common/storage_table.h"
#include "master/message_table.h"
#include "master/network/network.h"

namespace bdmpi {
namespace {

// Separates a node's report figures from its trace events in its record.
constexpr char kTraceMark[] = "--trace--\n";
// How long node 0 waits for the other masters' records after a failure;
// they try to send theirs a little longer. Bounded: main.cpp then waits at
// most 2 s for every master before MPI_Abort.
constexpr auto kFailedRecordWait = std::chrono::milliseconds(1500);
// At the normal end every record was sent before the shutdown barrier
// completed: kRecordWait (record_exchange.h) only bounds the wait for a
// master that died since.

std::optional<RankActivity> ActivityOf(const Slave& slave) {
  switch (slave.state) {
    case SlaveState::kRunning:
      return slave.waiting_for_memory ? RankActivity::kWaitingMemory : RankActivity::kRunning;
    case SlaveState::kRunnable:
      return RankActivity::kRunnable;
    case SlaveState::kRBlocked:
      return RankActivity::kBlockedReceive;
    case SlaveState::kCBlocked:
      return slave.pending && FindMessageRow(slave.pending->type)->blocks == Blocks::kCritical
                 ? RankActivity::kBlockedCritical
                 : RankActivity::kBlockedCollective;
    default:
      return std::nullopt;
  }
}

bool Blocked(std::optional<RankActivity> activity) {
  return activity == RankActivity::kBlockedReceive ||
         activity == RankActivity::kBlockedCollective ||
         activity == RankActivity::kBlockedCritical;
}

// How the trace names an activity; blocked ranks by their MPI call.
const char* ActivityLabel(const Slave& slave, std::optional<RankActivity> activity) {
  if (!activity) return "";
  if (Blocked(activity)) return MpiCallName(slave.pending->type);
  switch (*activity) {
    case RankActivity::kRunning: return "running";
    case RankActivity::kRunnable: return "runnable";
    case RankActivity::kWaitingMemory: return "waiting for memory";
    default: return "";
  }
}

void WriteFile(const std::string& path, const std::string& text, const char* what) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) std::fprintf(stderr, "bdmpi: could not write the %s to %s\n", what, path.c_str());
}

std::string TraceFile(const std::string& events, std::uint64_t dropped) {
  // Up to a few hundred MB at the cap: one pass, no copy per line.
  std::string out = "{\"traceEvents\": [\n";
  out.reserve(events.size() + events.size() / 64 + 1024);
  std::size_t begin = 0;
  bool first = true;
  while (begin < events.size()) {
    std::size_t end = events.find('\n', begin);
    if (end == std::string::npos) end = events.size();
    if (end > begin) {
      if (!first) out += ",\n";
      out.append(events, begin, end - begin);
      first = false;
    }
    begin = end + 1;
  }
  out += "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"producer\": \"bdmpi\", "
         "\"clock\": \"CLOCK_MONOTONIC of node 0, microseconds from node 0's start\", "
         "\"event_cap_per_master\": " + std::to_string(JobRecorder::kTraceEventCap) +
         ", \"dropped_events\": " + std::to_string(dropped) + ", \"note\": \"" +
         (dropped == 0 ? std::string("complete")
                       : "a master's buffer was full: " + std::to_string(dropped) +
                             " later events are missing") +
         "\"}}\n";
  return out;
}

}  // namespace

void Observer::Start(int running_slots, bool running_auto, int running_cores) {
  bool tracing = !options_.trace_file.empty();
  if (!options_.report && options_.report_json.empty() && !tracing &&
      options_.progress != Progress::kOn)
    return;
  const RankLayout& layout = master_.layout();
  recorder_.Start(node_, layout.Count(node_), layout.FirstRank(node_), tracing);
  std::vector<int> reserved;
  for (int slot = layout.Count(node_); slot < layout.SlotCount(node_); ++slot)
    reserved.push_back(layout.JobRankOfSlot(node_, slot));
  recorder_.AddReserved(reserved);
  recorder_.RunningSlots(running_slots, running_auto, running_cores);
  Network* network = master_.network();
  if (network) network->transfers().Enable(tracing);
  if (options_.progress != Progress::kOn || node_ != 0) return;
  std::function<NodeProgress()> job;
  if (network) job = [network] { return network->JobProgress(); };
  progress_ = std::make_unique<ProgressLine>(recorder_.start_ns(), std::move(job));
}

void Observer::RecordRankStates() {
  // Called after every served queue message; looks only at the ranks whose
  // state the handlers changed (recorder_.Touched), and reads the clock
  // and the labels only when one did.
  std::int64_t now = -1;
  recorder_.ForEachTouched([&](int index) {
    const Slave& slave = master_.slaves()[index];
    std::optional<RankActivity> activity = ActivityOf(slave);
    bool finished = slave.state == SlaveState::kFinalized || slave.state == SlaveState::kExited;
    if (activity == recorder_.activity(index) && finished == recorder_.finished(index)) return;
    if (now < 0) now = MonotonicNs();
    recorder_.RankActivityIs(index, activity, finished, ActivityLabel(slave, activity),
                             recorder_.trace_has_room() && Blocked(activity)
                                 ? master_.DescribeBlockedCall(slave)
                                 : std::string(),
                             now);
  });
  if (options_.progress != Progress::kOn || !recorder_.TakeProgressChanged()) return;
  if (Network* network = master_.network()) network->ReportProgress(recorder_.Progress());
  else if (progress_) progress_->Publish(recorder_.Progress());
}

void Observer::RecordSend(const Slave& slave, const RequestMsg& request, const Payload& payload,
                          bool cross_node) {
  MessagePath path = payload.lent()                    ? MessagePath::kLent
                     : request.where == Where::kInline ? MessagePath::kInline
                     : payload.placed()                ? MessagePath::kPlaced
                     : request.where == Where::kFile ? MessagePath::kSpillFile
                     // A memory file held by the master counts as its memory.
                     : payload.on_disk() && !payload.in_memory_file() ? MessagePath::kMasterSpill
                                                     : MessagePath::kMasterMemory;
  // The rank's tool interface reads these whether or not the job records.
  static_assert(kMessagePaths == kSlotMessagePaths + 1 &&
                static_cast<int>(MessagePath::kDirect) == kSlotMessagePaths);
  if (const StorageSlot* table = master_.StorageTable()) {
    const StorageSlot& counters = table[slave.index];
    for (MessagePath counted : {path, MessagePath::kCrossNode}) {
      if (counted == MessagePath::kCrossNode && !cross_node) break;
      counters.sent_messages[static_cast<int>(counted)].fetch_add(1, std::memory_order_relaxed);
      counters.sent_bytes[static_cast<int>(counted)].fetch_add(request.bytes,
                                                                std::memory_order_relaxed);
    }
  }
  if (!recorder_.on()) return;
  recorder_.Sent(slave.index, path, request.bytes);
  if (cross_node) recorder_.Sent(slave.index, MessagePath::kCrossNode, request.bytes);
}

void Observer::OnStatusAsked(int asker) {
  if (Network* network = master_.network()) network->status().Ask(asker, RankStatusText());
  else DeliverStatus(asker, RankStatusText());
}

void Observer::DeliverStatus(int asker, const std::string& text) const {
  if (WriteStatusReply(job_dir_, asker, text)) return;
  ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

std::string Observer::LocalTestsNote(const Slave& slave) const {
  const StorageSlot* table = master_.StorageTable();
  std::uint64_t tests =
      table != nullptr ? table[slave.index].local_tests.load(std::memory_order_relaxed) : 0;
  // A few in a row are a polling loop's ordinary course.
  if (tests < kLocalTestsWorthSaying) return "";
  return ", polling: its last " + std::to_string(tests) +
         " tests found nothing new (the master asked every " +
         std::to_string(kAskMasterEveryLocalTests) + "th time)";
}

std::string Observer::RankStatusText() const {
  std::int64_t now = MonotonicNs();
  std::string text = "bdmpi: status of node " + std::to_string(node_) + " (SIGUSR1):\n";
  for (const Slave& slave : master_.slaves()) {
    if (slave.SpareSlot()) continue;
    std::optional<RankActivity> activity = ActivityOf(slave);
    std::string line = "bdmpi:   rank " + std::to_string(slave.world_rank) + " (pid " +
                       std::to_string(slave.pid) + ") ";
    if (Blocked(activity)) {
      const RequestMsg& request = *slave.pending;
      line += "blocked in " + master_.DescribeBlockedCall(slave) + " on communicator " +
              std::to_string(request.comm) + ", " + std::to_string(request.bytes) + " bytes";
    } else if (activity == RankActivity::kWaitingMemory) {
      line += "waits for other ranks to release memory";
    } else {
      line += SlaveStateName(slave.state);
      line += LocalTestsNote(slave);
    }
    if (activity && recorder_.on() && recorder_.activity(slave.index) == activity) {
      char since[48];
      std::snprintf(since, sizeof since, " for %.1f s",
                    static_cast<double>(now - recorder_.activity_since(slave.index)) / 1e9);
      line += since;
    }
    text += line + "\n";
  }
  return text;
}

void Observer::RecordReadBack(const Slave& slave) {
  if (!recorder_.on()) return;
  const StorageSlot* table = master_.StorageTable();
  std::uint64_t eager =
      table != nullptr ? table[slave.index].read_back.load(std::memory_order_relaxed) : 0;
  bool alive = slave.pid > 0 && slave.state != SlaveState::kExited;
  long faults = alive ? MajorFaults(slave.pid) : -1;
  long long disk_read = alive ? StorageReadBytes(slave.pid) : -1;
  std::uint64_t fresh =
      table != nullptr ? table[slave.index].fresh.load(std::memory_order_relaxed) : 0;
  recorder_.ReadBack(slave.index, eager, faults, disk_read, fresh);
  // Direct messages never reach the master: the rank counts them.
  if (table != nullptr)
    recorder_.DirectSent(slave.index,
                         table[slave.index].direct_messages.load(std::memory_order_relaxed),
                         table[slave.index].direct_bytes.load(std::memory_order_relaxed));
}

std::string Observer::NodeRecord() {
  Network* network = master_.network();
  if (network && network->transfers().on()) {
    std::uint64_t dropped = 0;
    std::vector<TransferLog::Event> events = network->transfers().TakeEvents(dropped);
    recorder_.AddTransfers(network->transfers().Figures(), std::move(events), dropped);
  }
  recorder_.TouchAll();
  RecordRankStates();  // closes the last intervals
  for (const Slave& slave : master_.slaves()) {
    recorder_.StoragePeak(slave.index, slave.storage_peak);
    RecordReadBack(slave);
  }
  std::string record =
      recorder_.NodeReport(nnodes_, PeakRssKiB(), payloads_.budget().peak()).Serialize() +
      kTraceMark;
  if (recorder_.tracing()) {
    std::int64_t offset = network ? network->records().clock_offset_ns() : 0;
    std::int64_t origin = network ? network->records().origin_ns() : recorder_.start_ns();
    record += "D " + std::to_string(recorder_.dropped_events()) + "\n" +
              recorder_.TraceEvents(offset, origin);
  }
  return record;
}

void Observer::PostRecord() {
  if (recorder_.on() && node_ != 0) master_.network()->records().Post(NodeRecord());
}

void Observer::Finish(bool failed, const std::string& failure, bool network_finished) {
  progress_.reset();
  if (!recorder_.on()) return;
  // After a failure the masters exchange their records here, each with a
  // deadline, before they end: node 0 gives up first and names the nodes
  // whose figures did not come. At the normal end the others' records were
  // sent before the shutdown barrier, and node 0 takes them here too.
  auto now = std::chrono::steady_clock::now();
  Network* network = master_.network();
  if (node_ != 0) {
    if (network && failed && !network_finished)
      network->records().SendAfterFailure(NodeRecord(), now + kFailedRecordWait * 3 / 2);
    return;
  }
  std::vector<std::string> records = {NodeRecord()};
  std::vector<int> missing;
  if (network) {
    RecordExchange::Collected others = network->records().Collect(
        now + (network_finished ? kRecordWait : kFailedRecordWait));
    for (std::string& record : others.records) records.push_back(std::move(record));
    missing = std::move(others.missing);
  }
  RunReport report;
  std::string events;
  std::uint64_t dropped = 0;
  for (const std::string& record : records) {
    std::size_t mark = record.find(kTraceMark);
    RunReport part = RunReport::Parse(record.substr(0, mark));
    if (report.nodes.empty()) report = part;
    else report.Merge(part);
    if (mark == std::string::npos) continue;
    std::string trace = record.substr(mark + sizeof kTraceMark - 1);
    if (trace.rfind("D ", 0) == 0) {
      dropped += std::stoull(trace.substr(2));
      trace.erase(0, trace.find('\n') + 1);
    }
    events += trace;
  }
  report.nnodes = nnodes_;
  // The job's ranks, reported or not (a node may be missing), and the
  // spawned ones that reported.
  const RankLayout& layout = master_.layout();
  report.nranks = layout.world_size() +
                  static_cast<int>(std::count_if(
                      report.ranks.begin(), report.ranks.end(),
                      [&](const RankFigures& rank) { return rank.rank >= layout.world_size(); }));
  report.Sort();
  if (failed) report.partial = "the job failed: " + failure;
  if (!missing.empty()) {
    std::string names;
    for (int node : missing) names += (names.empty() ? "node " : ", node ") + std::to_string(node);
    report.partial += std::string(report.partial.empty() ? "" : "; ") + "no figures from " +
                      names + " (its master did not send them in time)";
  }
  report.missing_nodes = missing;
  if (options_.report) {
    std::string table = report.Table();
    ssize_t ignored = write(STDERR_FILENO, table.data(), table.size());
    (void)ignored;
  }
  if (!options_.report_json.empty()) WriteFile(options_.report_json, report.Json(), "report");
  if (!options_.trace_file.empty())
    WriteFile(options_.trace_file, TraceFile(events, dropped), "trace");
}

}  // namespace bdmpi
