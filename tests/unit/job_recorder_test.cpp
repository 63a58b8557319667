// The master's recorder (master/observe/job_recorder.h) and the run report it feeds
// (common/run_report.h): time per activity, switches, the trace's cap and
// balance, and the trip of a node's figures to node 0.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/run_report.h"
#include "master/observe/job_recorder.h"

namespace bdmpi {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(JobRecorder, AddsTimePerActivityAndCountsSwitches) {
  JobRecorder recorder;
  recorder.Start(/*node=*/1, /*nslaves=*/2, /*first_rank=*/4, /*trace=*/false);
  std::int64_t t = recorder.start_ns();
  recorder.RankActivityIs(0, RankActivity::kRunning, false, "running", "", t);
  recorder.RankActivityIs(0, RankActivity::kBlockedReceive, false, "MPI_Recv", "", t + 3 * kMs);
  recorder.RankActivityIs(0, RankActivity::kRunnable, false, "runnable", "", t + 10 * kMs);
  recorder.RankActivityIs(0, RankActivity::kRunning, false, "running", "", t + 11 * kMs);
  recorder.RankActivityIs(0, RankActivity::kWaitingMemory, false, "waiting for memory", "", t + 12 * kMs);
  recorder.RankActivityIs(0, std::nullopt, /*finished=*/true, "", "", t + 15 * kMs);
  recorder.Sent(0, MessagePath::kSpillFile, 100000);
  recorder.Sent(0, MessagePath::kInline, 8);
  RunReport report = recorder.NodeReport(/*nnodes=*/2, 1024, 0);
  ASSERT_EQ(report.ranks.size(), 2u);
  const RankFigures& rank = report.ranks[0];
  EXPECT_EQ(rank.rank, 4);
  EXPECT_EQ(rank.node, 1);
  EXPECT_EQ(rank.ns[static_cast<int>(RankActivity::kRunning)], 4u * kMs);
  EXPECT_EQ(rank.ns[static_cast<int>(RankActivity::kBlockedReceive)], 7u * kMs);
  EXPECT_EQ(rank.ns[static_cast<int>(RankActivity::kRunnable)], 1u * kMs);
  EXPECT_EQ(rank.ns[static_cast<int>(RankActivity::kWaitingMemory)], 3u * kMs);
  // Running -> blocked, and waiting for memory (holding the slot) -> gone.
  EXPECT_EQ(rank.switches, 2u);
  EXPECT_EQ(rank.sent[static_cast<int>(MessagePath::kSpillFile)].bytes, 100000u);
  EXPECT_EQ(report.nodes[0].spill_bytes, 100000u);
}

TEST(JobRecorder, CountsTheTimeWithKRanksRunning) {
  JobRecorder recorder;
  recorder.Start(/*node=*/0, /*nslaves=*/3, /*first_rank=*/0, /*trace=*/false);
  recorder.RunningSlots(/*limit=*/2, /*automatic=*/true, /*cores=*/2);
  std::int64_t t = recorder.start_ns();
  // 0 running for 1 ms, 1 for 2 ms, 2 for 4 ms, 1 for 3 ms (a rank waiting
  // for memory holds a slot but does not run), then 0.
  recorder.RankActivityIs(0, RankActivity::kRunning, false, "running", "", t + 1 * kMs);
  recorder.RankActivityIs(1, RankActivity::kRunning, false, "running", "", t + 3 * kMs);
  recorder.RankActivityIs(1, RankActivity::kBlockedReceive, false, "MPI_Recv", "", t + 7 * kMs);
  recorder.RankActivityIs(2, RankActivity::kWaitingMemory, false, "waiting", "", t + 7 * kMs);
  recorder.RankActivityIs(0, RankActivity::kRunnable, false, "runnable", "", t + 10 * kMs);
  recorder.MemoryHold(true, t + 10 * kMs);
  recorder.MemoryHold(true, t + 11 * kMs);  // still the same hold
  recorder.MemoryHold(false, t + 12 * kMs);
  recorder.MemoryHold(true, t + 13 * kMs);
  recorder.MemoryHold(false, t + 14 * kMs);
  RunReport report = recorder.NodeReport(1, 1024, 0);
  const NodeFigures& node = report.nodes[0];
  EXPECT_EQ(node.running_limit, 2);
  EXPECT_TRUE(node.running_auto);
  EXPECT_EQ(node.cores, 2);
  ASSERT_EQ(node.running_ns.size(), 3u);
  EXPECT_GE(node.running_ns[0], 1u * kMs);  // and the time since t + 10 ms
  EXPECT_EQ(node.running_ns[1], 5u * kMs);
  EXPECT_EQ(node.running_ns[2], 4u * kMs);
  EXPECT_EQ(node.memory_holds, 2u);
  EXPECT_EQ(node.memory_hold_ns, 3u * kMs);
  // To node 0 and back, and in the JSON.
  RunReport back = RunReport::Parse(report.Serialize());
  ASSERT_EQ(back.nodes.size(), 1u);
  EXPECT_EQ(back.nodes[0].running_limit, 2);
  EXPECT_TRUE(back.nodes[0].running_auto);
  EXPECT_EQ(back.nodes[0].cores, 2);
  EXPECT_EQ(back.nodes[0].running_ns, node.running_ns);
  EXPECT_EQ(back.nodes[0].memory_holds, 2u);
  EXPECT_EQ(back.nodes[0].memory_hold_ns, 3u * kMs);
  std::string json = back.Json();
  EXPECT_NE(json.find("\"running\": {\"limit\": 2, \"auto\": true, \"cores\": 2, \"seconds\": ["),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"held_for_memory\": 2"), std::string::npos);
  EXPECT_NE(back.Table().find("node 0 ranks running at once (-nr auto: 2 of 2 core(s))"),
            std::string::npos)
      << back.Table();
}

TEST(JobRecorder, ReportsTheNodeBudgetsRange) {
  JobRecorder recorder;
  recorder.Start(0, 1, 0, /*trace=*/false);
  std::int64_t t = recorder.start_ns();
  constexpr std::uint64_t kMiB = 1ull << 20;
  BudgetRange range;
  range.Note(120 * kMiB, t - 20 * kMs);
  range.Note(180 * kMiB, t - 10 * kMs);
  recorder.NodeBudget(range, /*adaptive=*/true);
  RunReport back = RunReport::Parse(recorder.NodeReport(1, 1024, 0).Serialize());
  ASSERT_EQ(back.nodes.size(), 1u);
  const NodeFigures& node = back.nodes[0];
  EXPECT_TRUE(node.budget_adaptive);
  EXPECT_EQ(node.budget_least, 120 * kMiB);
  EXPECT_EQ(node.budget_most, 180 * kMiB);
  // 10 ms at 120 and at least as long at 180 since.
  EXPECT_GE(node.budget_mean, 150 * kMiB);
  EXPECT_LT(node.budget_mean, 180 * kMiB);
  EXPECT_NE(back.Json().find("\"budget\": {\"adaptive\": true, \"least_bytes\": 125829120, "
                             "\"most_bytes\": 188743680"),
            std::string::npos)
      << back.Json();
  EXPECT_NE(back.Table().find("node 0 budget for the ranks: followed the cgroup's reclaim, "
                              "120.0 MiB to 180.0 MiB"),
            std::string::npos)
      << back.Table();
}

TEST(JobRecorder, TraceIsCappedAndStaysBalanced) {
  JobRecorder recorder;
  recorder.Start(0, 1, 0, /*trace=*/true, /*trace_cap=*/3);
  std::int64_t t = recorder.start_ns();
  for (int i = 0; i < 10; ++i)
    recorder.RankActivityIs(0, i % 2 ? RankActivity::kRunning : RankActivity::kBlockedReceive,
                            false, i % 2 ? "running" : "MPI_Recv", "MPI_Recv(source 1, tag 7)",
                            t + i * kMs);
  EXPECT_EQ(recorder.dropped_events(), 6u);  // 9 intervals ended, 3 kept
  std::string events = recorder.TraceEvents(0, t);
  std::size_t begins = 0, ends = 0;
  for (std::size_t at = 0; (at = events.find("\"ph\": \"B\"", at)) != std::string::npos; ++at)
    ++begins;
  for (std::size_t at = 0; (at = events.find("\"ph\": \"E\"", at)) != std::string::npos; ++at)
    ++ends;
  EXPECT_EQ(begins, 3u);
  EXPECT_EQ(ends, 3u);
  EXPECT_NE(events.find("\"call\": \"MPI_Recv(source 1, tag 7)\""), std::string::npos);
}

TEST(JobRecorder, OffRecordsNothing) {
  JobRecorder recorder;
  recorder.Sent(0, MessagePath::kInline, 8);  // no ranks yet: must not touch them
  recorder.CollectiveRan("MPI_Bcast", 8, true);
  EXPECT_FALSE(recorder.on());
  EXPECT_EQ(recorder.Progress().spilled, 0u);
}

// The event loop looks only at the ranks whose state changed, and the
// progress figures follow each change without a scan of the node's ranks.
TEST(JobRecorder, LooksAtTouchedRanksOnlyAndKeepsProgressCounts) {
  JobRecorder recorder;
  recorder.Start(0, 4, 0, false);
  std::int64_t t = recorder.start_ns();
  recorder.Touched(2);
  recorder.Touched(0);
  recorder.Touched(2);  // once per look, however often it changed
  std::vector<int> looked;
  recorder.ForEachTouched([&](int slave) { looked.push_back(slave); });
  EXPECT_EQ(looked, (std::vector<int>{2, 0}));
  looked.clear();
  recorder.ForEachTouched([&](int slave) { looked.push_back(slave); });
  EXPECT_TRUE(looked.empty());

  EXPECT_FALSE(recorder.TakeProgressChanged());
  recorder.RankActivityIs(0, RankActivity::kRunning, false, "running", "", t);
  recorder.RankActivityIs(1, RankActivity::kBlockedReceive, false, "MPI_Recv", "", t);
  recorder.RankActivityIs(2, RankActivity::kBlockedReceive, false, "MPI_Recv", "", t);
  recorder.RankActivityIs(3, RankActivity::kBlockedCollective, false, "MPI_Bcast", "", t);
  EXPECT_TRUE(recorder.TakeProgressChanged());
  NodeProgress progress = recorder.Progress();
  EXPECT_EQ(progress.running, 1);
  EXPECT_EQ(progress.blocked, 3);
  EXPECT_STREQ(progress.top_call, "MPI_Recv");
  EXPECT_EQ(progress.top_call_ranks, 2);
  recorder.RankActivityIs(1, RankActivity::kRunnable, false, "runnable", "", t + kMs);
  recorder.RankActivityIs(2, std::nullopt, /*finished=*/true, "", "", t + kMs);
  progress = recorder.Progress();
  EXPECT_EQ(progress.runnable, 1);
  EXPECT_EQ(progress.blocked, 1);
  EXPECT_EQ(progress.finished, 1);
  EXPECT_STREQ(progress.top_call, "MPI_Bcast");
}

TEST(RunReport, TravelsAsTextAndMerges) {
  JobRecorder node0, node1;
  node0.Start(0, 1, 0, false);
  node1.Start(1, 1, 1, false);
  node0.CollectiveRan("MPI_Bcast", 64, true);
  node1.CollectiveRan("MPI_Bcast", 64, false);  // counted on the first node only
  node0.Sent(0, MessagePath::kMasterMemory, 1000);
  RunReport report = node0.NodeReport(2, 2048, 4096);
  RunReport other = RunReport::Parse(node1.NodeReport(2, 1024, 0).Serialize());
  // Node 1's master started first (mpirun's order): the job lasted as
  // long as it saw, or its ranks could spend more time than the job.
  report.wall_s = 1.0;
  other.wall_s = 2.0;
  report.Merge(other);
  report.Sort();
  EXPECT_EQ(report.wall_s, 2.0);
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_EQ(report.ranks[1].node, 1);
  ASSERT_EQ(report.nodes.size(), 2u);
  EXPECT_EQ(report.nodes[0].buffered_peak, 4096u);
  EXPECT_EQ(report.nodes[1].peak_rss_kib, 1024);
  ASSERT_EQ(report.collectives.size(), 1u);
  EXPECT_EQ(report.collectives[0].count, 1u);
  std::string json = report.Json();
  EXPECT_NE(json.find("\"schema\": \"bdmpi-run-report/8\""), std::string::npos);
  EXPECT_NE(json.find("\"master_memory\": {\"messages\": 1, \"bytes\": 1000}"), std::string::npos);
  EXPECT_NE(json.find("\"read_back_bytes\": 0, \"major_faults\": 0"), std::string::npos);
  report.partial = "the job failed: rank 3";
  EXPECT_NE(report.Table().find("PARTIAL: the job failed: rank 3"), std::string::npos);
}

// Version 2's figures make the trip to node 0 and add up there.
TEST(RunReport, NetworkAlgorithmsAndReadBackTravel) {
  JobRecorder node0, node1;
  node0.Start(0, 1, 0, false);
  node1.Start(1, 1, 1, false);
  for (JobRecorder* recorder : {&node0, &node1}) {
    recorder->InterNodeStepStarted(5, 1, "MPI_Bcast");
    recorder->InterNodeStepAlgorithm(5, 1, "binomial");
    recorder->InterNodeStepDone(5, 1, recorder == &node0);
  }
  NetworkFigures net;
  net.sent = {3, 3000};
  net.sent_chunks = 2;
  net.received = {1, 10};
  node1.AddTransfers(net, {}, 0);
  node1.ReadBack(0, 4096, 7, 1 << 20, 65536);
  RunReport report = node0.NodeReport(2, 1024, 0);
  report.Merge(RunReport::Parse(node1.NodeReport(2, 1024, 0).Serialize()));
  report.Sort();
  ASSERT_EQ(report.collectives.size(), 1u);
  EXPECT_EQ(report.collectives[0].algorithms.at("binomial"), 1u);
  EXPECT_EQ(report.nodes[1].network.sent.bytes, 3000u);
  EXPECT_EQ(report.nodes[1].network.sent_chunks, 2u);
  EXPECT_EQ(report.nodes[1].network.received.messages, 1u);
  EXPECT_EQ(report.ranks[1].read_back, 4096u);
  EXPECT_EQ(report.ranks[1].major_faults, 7u);
  EXPECT_EQ(report.ranks[1].disk_read, 1u << 20);
  EXPECT_EQ(report.ranks[1].fresh, 65536u);
  std::string json = report.Json();
  EXPECT_NE(json.find("\"algorithms\": {\"binomial\": 1}"), std::string::npos);
  EXPECT_NE(json.find("\"sent\": {\"messages\": 3, \"bytes\": 3000, \"chunks\": 2"),
            std::string::npos);
  EXPECT_NE(report.Table().find("node 1 network: sent 3 message(s)"), std::string::npos);
  EXPECT_NE(json.find("\"disk_read_bytes\": 1048576, \"fresh_bytes\": 65536"),
            std::string::npos);
}

}  // namespace
}  // namespace bdmpi
