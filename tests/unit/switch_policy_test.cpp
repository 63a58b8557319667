// The memory policy's choices when the ranks do not fit the node: which
// waiting rank is switched out first, and which runnable rank resumes first
// (with the Scheduler's memory policy).
#include "master/memory/switch_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "master/options.h"
#include "master/sched/scheduler.h"

namespace bdmpi {
namespace {

using enum SlaveState;

// WokenSoon over a table of states by slave index.
bool Soon(SlaveState state, std::vector<int> sources, const std::vector<SlaveState>& states) {
  return WokenSoon(state, sources, [&](int index) { return states.at(static_cast<std::size_t>(index)); });
}

TEST(WokenSoon, ReceiveFromARankThatRunsOrMayRun) {
  std::vector<SlaveState> states = {kRunning, kRunnable, kRBlocked, kCBlocked};
  EXPECT_TRUE(Soon(kRBlocked, {0}, states));
  EXPECT_TRUE(Soon(kRBlocked, {1}, states));
  EXPECT_TRUE(Soon(kRBlocked, {0, 1}, states));
}

TEST(WokenSoon, NotWhenASourceWaitsItself) {
  std::vector<SlaveState> states = {kRunning, kRunnable, kRBlocked, kCBlocked};
  EXPECT_FALSE(Soon(kRBlocked, {2}, states));
  EXPECT_FALSE(Soon(kRBlocked, {3}, states));
  // MPI_Waitall on several: every source must be about to send.
  EXPECT_FALSE(Soon(kRBlocked, {0, 2}, states));
}

TEST(WokenSoon, UnknownSourcesAndCollectivesAreNotCountedOn) {
  std::vector<SlaveState> states = {kRunning};
  EXPECT_FALSE(Soon(kRBlocked, {-1}, states));     // any source, another node
  EXPECT_FALSE(Soon(kRBlocked, {0, -1}, states));
  EXPECT_FALSE(Soon(kRBlocked, {}, states));       // a probe, a synchronous send
  EXPECT_FALSE(Soon(kCBlocked, {0}, states));      // a collective needs everyone
  EXPECT_FALSE(Soon(kRunnable, {0}, states));
}

struct Named {
  int id;
  SwitchOutCandidate facts;
};

std::vector<int> Order(std::vector<Named> candidates) {
  std::stable_sort(candidates.begin(), candidates.end(), [](const Named& a, const Named& b) {
    return SwitchOutBefore(a.facts, b.facts);
  });
  std::vector<int> ids;
  for (const Named& c : candidates) ids.push_back(c.id);
  return ids;
}

TEST(SwitchOutBefore, BlockedThenNotWokenSoonThenNotReadingAheadThenLargest) {
  constexpr std::uint64_t kMiB = 1 << 20;
  std::vector<Named> candidates = {
      {0, {.state = kRunnable, .woken_soon = false, .read_ahead = false, .bytes = 90 * kMiB}},
      {1, {.state = kRBlocked, .woken_soon = true, .read_ahead = false, .bytes = 80 * kMiB}},
      {2, {.state = kRBlocked, .woken_soon = false, .read_ahead = false, .bytes = 10 * kMiB}},
      {3, {.state = kCBlocked, .woken_soon = false, .read_ahead = false, .bytes = 20 * kMiB}},
      {4, {.state = kRBlocked, .woken_soon = false, .read_ahead = true, .bytes = 70 * kMiB}},
      {5, {.state = kRBlocked, .woken_soon = true, .read_ahead = false, .bytes = 5 * kMiB}},
  };
  EXPECT_EQ(Order(candidates), (std::vector<int>{3, 2, 4, 1, 5, 0}));
}

// CoMD's exchange with its x neighbour on 2x2x2 ranks, room for three:
// rank 0 runs; 1 waits for 0 (woken when 0 sends), 2 for 3, which waits for
// 5, blocked in turn. Ranks 2 and 3 are written back before 1.
TEST(SwitchOutBefore, KeepsTheRankThatTheRunningRankWakes) {
  std::vector<SlaveState> states = {kRunning, kRBlocked, kRBlocked, kRBlocked, kRunnable, kRBlocked};
  std::map<int, std::vector<int>> waits = {{1, {0}}, {2, {3}}, {3, {5}}};
  std::vector<Named> candidates;
  for (int rank : {1, 2, 3}) {
    SlaveState state = states[static_cast<std::size_t>(rank)];
    candidates.push_back(
        {rank, {.state = state, .woken_soon = Soon(state, waits[rank], states), .bytes = 64 << 20}});
  }
  EXPECT_EQ(Order(candidates), (std::vector<int>{2, 3, 1}));
}

TEST(ResumeScore, ResidentFirstThenAwaited) {
  EXPECT_EQ(ResumeScore(1.0, false), 1.0);
  EXPECT_EQ(ResumeScore(1.0, true), 1.0);  // resident ranks keep their order
  EXPECT_GT(ResumeScore(1.0, false), ResumeScore(0.0, true));
  EXPECT_GT(ResumeScore(0.0, true), ResumeScore(0.0, false));
  EXPECT_GT(ResumeScore(0.6, true), ResumeScore(0.6, false));
  EXPECT_LT(ResumeScore(0.99, true), 1.0);
}

// With the scheduler's memory policy: of three ranks switched out, the one a
// resident blocked rank waits for resumes first; a resident one before it.
TEST(ResumeScore, SchedulerResumesTheAwaitedRankFirst) {
  std::map<int, double> resident = {{0, 0.0}, {1, 0.0}, {2, 0.0}, {3, 1.0}};
  std::map<int, bool> awaited = {{0, false}, {1, false}, {2, true}, {3, false}};
  Scheduler scheduler(1, SchedulePolicy::kMemory,
                      [&](int slave) { return ResumeScore(resident[slave], awaited[slave]); });
  for (int slave : {0, 1, 2, 3}) scheduler.MakeRunnable(slave);
  std::vector<int> order;
  while (std::optional<int> slave = scheduler.PickNext()) {
    order.push_back(*slave);
    scheduler.StopRunning(*slave);
  }
  EXPECT_EQ(order, (std::vector<int>{3, 2, 0, 1}));
}

}  // namespace
}  // namespace bdmpi
