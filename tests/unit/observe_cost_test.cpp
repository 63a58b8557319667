// What recording costs the master per state change (issue 14: the report
// must cost at most 2%): an in-process master (master_harness.h) serves
// barriers of 16 ranks, without recording, with --report and with --trace,
// alternately, and the test prints the master's CPU time per barrier for
// each; no process or other work on the machine takes part, so the figures
// are far steadier than a job's. The test checks what was recorded (every
// rank but the last to arrive blocked once per barrier); bench/run_observe_overhead.sh shows
// its figures next to whole jobs'.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "master_harness.h"

namespace bdmpi {
namespace {

using test_util::MasterHarness;

constexpr int kRanks = 16;
constexpr int kBarriers = 3000;
constexpr int kRounds = 5;

double CpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// The master's CPU seconds per barrier; `mode`: "off", "report", "trace".
double CostPerBarrier(const std::string& mode, std::uint64_t* switches) {
  MasterHarness harness(kRanks, kRanks, [&](MasterOptions& options) {
    options.progress = Progress::kOff;
    if (mode == "report") options.report = true;
    if (mode == "trace") options.trace_file = "/dev/null";
  });
  harness.InitAll();
  for (int rank = 0; rank < kRanks; ++rank) EXPECT_TRUE(harness.TakeReply(rank).has_value());
  RequestMsg barrier;
  barrier.type = MsgType::kBarrier;
  barrier.wants_reply = true;
  double start = CpuSeconds();
  for (int i = 0; i < kBarriers; ++i) {
    for (int rank = 0; rank < kRanks; ++rank) harness.Send(rank, barrier);
    for (int rank = 0; rank < kRanks; ++rank) harness.TakeReply(rank);
  }
  double seconds = CpuSeconds() - start;
  EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
  if (switches != nullptr) {
    RunReport report = harness.master().recorder().NodeReport(1, 0, 0);
    *switches = 0;
    for (const RankFigures& rank : report.ranks) *switches += rank.switches;
  }
  return seconds / kBarriers;
}

TEST(ObserveCost, MasterCpuPerBarrierWithAndWithoutRecording) {
  std::vector<double> off, report, trace;
  for (int round = 0; round < kRounds; ++round) {
    off.push_back(CostPerBarrier("off", nullptr));
    std::uint64_t switches = 0;
    report.push_back(CostPerBarrier("report", &switches));
    // Every rank but the last to arrive blocks in each barrier.
    EXPECT_EQ(switches, std::uint64_t{kRanks - 1} * kBarriers);
    trace.push_back(CostPerBarrier("trace", nullptr));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto spread = [&](const std::vector<double>& v) {
    return (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())) /
           median(v);
  };
  std::printf("observe_cost: master CPU per barrier of %d ranks, median of %d rounds:\n", kRanks,
              kRounds);
  for (auto [name, v] : {std::pair{"off", &off}, {"report", &report}, {"trace", &trace}})
    std::printf("observe_cost: %-6s %7.2f us (spread %4.1f%%), ratio to off %.3f\n", name,
                median(*v) * 1e6, 100 * spread(*v), median(*v) / median(off));
}

}  // namespace
}  // namespace bdmpi
