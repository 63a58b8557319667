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

std::vector<int> Order(const std::vector<Named>& candidates) {
  std::vector<SwitchOutCandidate> facts;
  for (const Named& c : candidates) facts.push_back(c.facts);
  std::vector<int> ids;
  for (std::size_t i : SwitchOutOrder(facts)) ids.push_back(candidates[i].id);
  return ids;
}

TEST(SwitchOutOrder, BlockedThenNotWokenSoonThenNotReadingAheadThenLargest) {
  constexpr std::uint64_t kMiB = 1 << 20;
  std::vector<Named> candidates = {
      {0, {.state = kRunnable, .woken_soon = false, .read_ahead = false, .bytes = 90 * kMiB}},
      {1, {.state = kRBlocked, .woken_soon = true, .read_ahead = false, .bytes = 80 * kMiB}},
      {2, {.state = kRBlocked, .woken_soon = false, .read_ahead = false, .bytes = 8 * kMiB}},
      {3, {.state = kCBlocked, .woken_soon = false, .read_ahead = false, .bytes = 20 * kMiB}},
      {4, {.state = kRBlocked, .woken_soon = false, .read_ahead = true, .bytes = 70 * kMiB}},
      {5, {.state = kRBlocked, .woken_soon = true, .read_ahead = false, .bytes = 5 * kMiB}},
  };
  EXPECT_EQ(Order(candidates), (std::vector<int>{3, 2, 4, 1, 5, 0}));
}

// CoMD's exchange with its x neighbour on 2x2x2 ranks, room for three:
// rank 0 runs; 1 waits for 0 (woken when 0 sends), 2 for 3, which waits for
// 5, blocked in turn. Ranks 2 and 3 are written back before 1.
TEST(SwitchOutOrder, KeepsTheRankThatTheRunningRankWakes) {
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

// Ranks alike: the one that stopped running last goes first, whatever its
// index or a few MB more or less; a rank holding less than half the
// largest goes after them, and the rest by size.
TEST(SwitchOutOrder, OfRanksAlikeTheOneThatRanLastFirst) {
  constexpr std::uint64_t kMB = 1000 * 1000;
  std::vector<Named> candidates = {
      {0, {.state = kCBlocked, .bytes = 61 * kMB, .stopped_ns = 100}},
      {1, {.state = kCBlocked, .bytes = 58 * kMB, .stopped_ns = 300}},
      {2, {.state = kCBlocked, .bytes = 13 * kMB, .stopped_ns = 400}},
      {3, {.state = kCBlocked, .bytes = 60 * kMB, .stopped_ns = 200}},
      {4, {.state = kCBlocked, .bytes = 20 * kMB, .stopped_ns = 50}},
      {5, {.state = kCBlocked, .bytes = 59 * kMB, .stopped_ns = -1}},
  };
  EXPECT_EQ(Order(candidates), (std::vector<int>{1, 3, 0, 5, 4, 2}));
  // The classes still come first: a runnable rank that ran last goes after
  // every blocked one.
  candidates.push_back({6, {.state = kRunnable, .bytes = 61 * kMB, .stopped_ns = 500}});
  EXPECT_EQ(Order(candidates).back(), 6);
}

// A model of a CG solver shaped like miniFE's, on 8 ranks with room for
// three matrices, the running rank's included (miniFE's large run in the
// benchmark has room for none between two products: the node budget goes
// to the vectors and the running ranks; docs): every iteration the ranks
// compute the product in rank order (the order in which their exchanges
// complete, resident or not) and then wait in the dot product's allreduce
// with their matrix resident.
// Switching out the rank that ran last keeps those that compute first in
// the next iteration: 5 or 6 matrices read back per iteration (58 in the
// last 10 of 20); the one that ran longest ago (least recently used; by
// index, about the same here) reads back all 8 every iteration.
int MatricesReadInTheLastTen(bool most_recent_first) {
  constexpr int kRanks = 8, kRoom = 3, kIterations = 20;
  std::vector<bool> resident(kRanks, false);
  std::vector<std::int64_t> stopped(kRanks, -1);
  std::int64_t clock = 0;
  int reads = 0;
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    if (iteration == kIterations - 10) reads = 0;
    for (int rank = 0; rank < kRanks; ++rank) {
      if (!resident[rank]) {
        ++reads;
        std::vector<Named> candidates;
        for (int other = 0; other < kRanks; ++other)
          if (resident[other])
            candidates.push_back(
                {other, {.state = kCBlocked,
                         .bytes = 60u << 20,
                         .stopped_ns = most_recent_first ? stopped[other] : -stopped[other]}});
        if (static_cast<int>(candidates.size()) >= kRoom) resident[Order(candidates)[0]] = false;
        resident[rank] = true;
      }
      stopped[rank] = ++clock;
    }
  }
  return reads;
}

TEST(SwitchOutOrder, MiniFeKeepsTheRanksThatRunFirstNext) {
  EXPECT_EQ(MatricesReadInTheLastTen(/*most_recent_first=*/false), 80);
  EXPECT_EQ(MatricesReadInTheLastTen(/*most_recent_first=*/true), 58);
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

// SGD's diagonal schedule (apps/sgd) on a 4 x 4 grid with room for a few
// ranks: in step s of an epoch the ranks (i, j) with (j - i) mod 4 == s
// compute and pass their factors to (i, j + 1) and (i - 1, j), which wait in
// MPI_Irecv + MPI_Waitall for both; the ranks of later steps wait likewise
// for those of the step before. In step 0, rank 0 runs and the rest of its
// diagonal is runnable with its data switched out.
struct SgdStep {
  static constexpr int kGrid = 4;
  static int Rank(int i, int j) { return ((i + kGrid) % kGrid) * kGrid + (j + kGrid) % kGrid; }
  static int Diagonal(int rank) { return ((rank % kGrid - rank / kGrid) % kGrid + kGrid) % kGrid; }
  // The two ranks whose factors `rank` receives before it computes.
  static std::vector<int> Sources(int rank) {
    int i = rank / kGrid, j = rank % kGrid;
    return {Rank(i, j - 1), Rank(i + 1, j)};
  }
  std::vector<SlaveState> states;
  SgdStep() {
    for (int rank = 0; rank < kGrid * kGrid; ++rank)
      states.push_back(Diagonal(rank) == 0 ? kRunnable : kRBlocked);
    states[0] = kRunning;
  }
};

// The ranks of step 1 wait for the diagonal that runs now: they are written
// back last; those of steps 2 and 3, whose sources wait themselves, first.
TEST(SwitchOutOrder, SgdKeepsTheNextDiagonal) {
  SgdStep sgd;
  std::vector<Named> candidates;
  for (int rank = 0; rank < 16; ++rank) {
    SlaveState state = sgd.states[static_cast<std::size_t>(rank)];
    if (state != kRBlocked) continue;
    candidates.push_back(
        {rank, {.state = state, .woken_soon = Soon(state, SgdStep::Sources(rank), sgd.states),
                .bytes = 48 << 20}});
  }
  std::vector<int> order = Order(candidates);
  ASSERT_EQ(order.size(), 12u);
  for (std::size_t k = 0; k < order.size(); ++k)
    EXPECT_EQ(SgdStep::Diagonal(order[k]) == 1, k >= 8) << "position " << k << ": rank " << order[k];
}

// After the epoch's gather every rank is runnable again; the ranks of step 1
// that are still resident run first, then block in their receives. Of the
// switched-out ranks, the diagonal of step 0 that those wait for resumes
// before the ranks of steps 2 and 3, whose receives would only block again.
TEST(ResumeScore, SgdResumesTheDiagonalThatResidentRanksWaitFor) {
  // Ranks 1 and 6 (step 1) resident and blocked; the rest switched out.
  std::map<int, bool> awaited;
  for (int rank = 0; rank < 16; ++rank) awaited[rank] = false;
  for (int blocked : {1, 6})
    for (int source : SgdStep::Sources(blocked)) awaited[source] = true;
  Scheduler scheduler(1, SchedulePolicy::kMemory,
                      [&](int slave) { return ResumeScore(0.0, awaited[slave]); });
  for (int rank = 0; rank < 16; ++rank)
    if (rank != 1 && rank != 6) scheduler.MakeRunnable(rank);
  std::vector<int> order;
  while (std::optional<int> slave = scheduler.PickNext()) {
    order.push_back(*slave);
    scheduler.StopRunning(*slave);
  }
  // Sources of 1: 0 and 5; of 6: 5 and 10; all of step 0. Then the others
  // in the order they became runnable.
  ASSERT_EQ(order.size(), 14u);
  EXPECT_EQ((std::vector<int>(order.begin(), order.begin() + 3)), (std::vector<int>{0, 5, 10}));
  for (int rank : std::vector<int>(order.begin(), order.begin() + 3))
    EXPECT_EQ(SgdStep::Diagonal(rank), 0);
  EXPECT_EQ((std::vector<int>(order.begin() + 3, order.end())),
            (std::vector<int>{2, 3, 4, 7, 8, 9, 11, 12, 13, 14, 15}));
}

}  // namespace
}  // namespace bdmpi
