// The master's recorder (master/job_recorder.h) and the run report it feeds
// (common/run_report.h): time per activity, switches, the trace's cap and
// balance, and the trip of a node's figures to node 0.
#include <gtest/gtest.h>

#include <string>

#include "common/run_report.h"
#include "master/job_recorder.h"

namespace bdmpi {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(JobRecorder, AddsTimePerActivityAndCountsSwitches) {
  JobRecorder recorder;
  recorder.Start(/*node=*/1, /*nslaves=*/2, /*first_rank=*/4, /*trace=*/false);
  std::int64_t t = recorder.start_ns();
  recorder.RankActivityIs(0, RankActivity::kRunning, "running", "", t);
  recorder.RankActivityIs(0, RankActivity::kBlockedReceive, "MPI_Recv", "", t + 3 * kMs);
  recorder.RankActivityIs(0, RankActivity::kRunnable, "runnable", "", t + 10 * kMs);
  recorder.RankActivityIs(0, RankActivity::kRunning, "running", "", t + 11 * kMs);
  recorder.RankActivityIs(0, RankActivity::kWaitingMemory, "waiting for memory", "", t + 12 * kMs);
  recorder.RankActivityIs(0, std::nullopt, "", "", t + 15 * kMs);
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

TEST(JobRecorder, TraceIsCappedAndStaysBalanced) {
  JobRecorder recorder;
  recorder.Start(0, 1, 0, /*trace=*/true, /*trace_cap=*/3);
  std::int64_t t = recorder.start_ns();
  for (int i = 0; i < 10; ++i)
    recorder.RankActivityIs(0, i % 2 ? RankActivity::kRunning : RankActivity::kBlockedReceive,
                            i % 2 ? "running" : "MPI_Recv", "MPI_Recv(source 1, tag 7)",
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
  EXPECT_EQ(recorder.spill_bytes(), 0u);
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
  report.Merge(other);
  report.Sort();
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_EQ(report.ranks[1].node, 1);
  ASSERT_EQ(report.nodes.size(), 2u);
  EXPECT_EQ(report.nodes[0].buffered_peak, 4096u);
  EXPECT_EQ(report.nodes[1].peak_rss_kib, 1024);
  ASSERT_EQ(report.collectives.size(), 1u);
  EXPECT_EQ(report.collectives[0].count, 1u);
  std::string json = report.Json();
  EXPECT_NE(json.find("\"schema\": \"bdmpi-run-report/1\""), std::string::npos);
  EXPECT_NE(json.find("\"master_memory\": {\"messages\": 1, \"bytes\": 1000}"), std::string::npos);
  report.partial = "the job failed: rank 3";
  EXPECT_NE(report.Table().find("PARTIAL: the job failed: rank 3"), std::string::npos);
}

}  // namespace
}  // namespace bdmpi
