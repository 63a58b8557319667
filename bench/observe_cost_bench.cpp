// What recording costs the master per barrier (the target: the report
// must cost at most 2%): an in-process master (tests/unit/master_harness.h)
// serves barriers of 16 ranks without recording, with --report and with
// --trace. No other process takes part, so the figures are far steadier
// than a whole job's; bench/run_observe_overhead.sh prints them next to
// whole jobs'. Compare the three in one invocation (the machine is shared):
//   build/bin/observe_cost_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <string>

#include "master_harness.h"

namespace bdmpi {
namespace {

constexpr int kRanks = 16;

void MasterBarrier(benchmark::State& state, const std::string& mode) {
  test_util::MasterHarness harness(kRanks, kRanks, [&](MasterOptions& options) {
    options.progress = Progress::kOff;
    if (mode == "report") options.report = true;
    if (mode == "trace") options.trace_file = "/dev/null";
  });
  harness.InitAll();
  for (int rank = 0; rank < kRanks; ++rank) harness.TakeReply(rank);
  RequestMsg barrier;
  barrier.type = MsgType::kBarrier;
  barrier.wants_reply = true;
  for (auto _ : state) {
    for (int rank = 0; rank < kRanks; ++rank) harness.Send(rank, barrier);
    for (int rank = 0; rank < kRanks; ++rank) harness.TakeReply(rank);
  }
  if (harness.master().failed()) state.SkipWithError(harness.master().failure().c_str());
}

BENCHMARK_CAPTURE(MasterBarrier, off, std::string("off"))->MeasureProcessCPUTime();
BENCHMARK_CAPTURE(MasterBarrier, report, std::string("report"))->MeasureProcessCPUTime();
BENCHMARK_CAPTURE(MasterBarrier, trace, std::string("trace"))->MeasureProcessCPUTime();

}  // namespace
}  // namespace bdmpi
