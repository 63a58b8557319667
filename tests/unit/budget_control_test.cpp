// The node budget that follows the cgroup's reclaim
// (master/memory/budget_control.h): readings in, budgets out.
#include "master/memory/budget_control.h"

#include <gtest/gtest.h>

#include <vector>

namespace bdmpi {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::uint64_t kLimit = 192 * kMiB;
constexpr std::uint64_t kDefault = 120 * kMiB;  // where it starts
constexpr std::uint64_t kFloor = kDefault / 2;

// Readings of a run whose ranks read `read` and refault `refaulted` bytes each second.
struct Readings {
  BudgetControl control{kDefault, kLimit};
  ReclaimSample sample;
  std::uint64_t Second(std::uint64_t read, std::uint64_t refaulted) {
    sample.ns += kSecond;
    sample.read += read;
    sample.refaulted += refaulted;
    EXPECT_TRUE(control.Due(sample.ns));
    return control.Look(sample);
  }
};

TEST(BudgetControl, StartsAtTheDefaultAndTakesAFirstReadingAsItsBase) {
  Readings run;
  EXPECT_EQ(run.control.budget(), kDefault);
  EXPECT_EQ(run.control.floor(), kFloor);
  EXPECT_EQ(run.Second(0, 0), kDefault);
}

TEST(BudgetControl, GrowsByASmallStepWhileRefaultsAreFew) {
  Readings run;
  run.Second(0, 0);
  std::vector<std::uint64_t> budgets;
  for (int i = 0; i < 4; ++i) budgets.push_back(run.Second(400 * kMiB, 4 * kMiB));
  EXPECT_EQ(budgets, (std::vector<std::uint64_t>{123 * kMiB, 126 * kMiB, 129 * kMiB, 132 * kMiB}));
}

TEST(BudgetControl, ShrinksByALargerStepWhenRefaultsCome) {
  Readings run;
  run.Second(0, 0);
  for (int i = 0; i < 10; ++i) run.Second(400 * kMiB, 0);
  ASSERT_EQ(run.control.budget(), 150 * kMiB);
  // A third of what they read came back by faults.
  EXPECT_EQ(run.Second(300 * kMiB, 100 * kMiB), 138 * kMiB);
  EXPECT_EQ(run.Second(300 * kMiB, 100 * kMiB), 126 * kMiB);
  // Between the two shares it holds.
  EXPECT_EQ(run.Second(300 * kMiB, 15 * kMiB), 126 * kMiB);
  // Below the default too, where the master and the kernel hold more
  // than it leaves them, down to the floor, half of it.
  std::vector<std::uint64_t> budgets;
  for (int i = 0; i < 7; ++i) budgets.push_back(run.Second(300 * kMiB, 100 * kMiB));
  EXPECT_EQ(budgets, (std::vector<std::uint64_t>{114 * kMiB, 102 * kMiB, 90 * kMiB, 78 * kMiB,
                                                 66 * kMiB, kFloor, kFloor}));
  // And it grows back when the refaults go.
  EXPECT_EQ(run.Second(400 * kMiB, 0), kFloor + kLimit / 64);
}

TEST(BudgetControl, ShrinksBelowTheDefaultOnlyWhenRefaultsAreALargeShare) {
  Readings run;
  run.Second(0, 0);
  for (int i = 0; i < 10; ++i) run.Second(400 * kMiB, 0);
  ASSERT_EQ(run.control.budget(), 150 * kMiB);
  // A fifth refaulted: down to the default, not below.
  std::vector<std::uint64_t> budgets;
  for (int i = 0; i < 4; ++i) budgets.push_back(run.Second(300 * kMiB, 60 * kMiB));
  EXPECT_EQ(budgets, (std::vector<std::uint64_t>{138 * kMiB, 126 * kMiB, kDefault, kDefault}));
  // A third: below it.
  EXPECT_EQ(run.Second(300 * kMiB, 100 * kMiB), 108 * kMiB);
  // A fifth again holds it there.
  EXPECT_EQ(run.Second(300 * kMiB, 60 * kMiB), 108 * kMiB);
}

TEST(BudgetControl, StaysBelowTheLimitLessTheMarginAndTheHeldMessages) {
  Readings run;
  run.Second(0, 0);
  for (int i = 0; i < 40; ++i) run.Second(400 * kMiB, 0);
  EXPECT_EQ(run.control.budget(), kLimit - kLimit / 16);
  // Messages held in memory (the master's buffer, memory files) lower the
  // ceiling as they come.
  run.sample.held = 20 * kMiB;
  EXPECT_EQ(run.Second(400 * kMiB, 0), kLimit - kLimit / 16 - 20 * kMiB);
  // But not below the default: that is what it leaves the master.
  run.sample.held = 100 * kMiB;
  EXPECT_EQ(run.Second(400 * kMiB, 0), kDefault);
}

TEST(BudgetControl, JudgesOnlyOnEnoughReadsAndCarriesTheCountsOver) {
  Readings run;
  run.Second(0, 0);
  // 4 MiB a second is too little to judge on; 12 MiB over three seconds
  // is enough, and its one refaulted MiB (1/12) holds the budget.
  EXPECT_EQ(run.Second(4 * kMiB, 0), kDefault);
  EXPECT_EQ(run.Second(4 * kMiB, 0), kDefault);
  EXPECT_EQ(run.Second(4 * kMiB, 1 * kMiB), kDefault);
  // The next judgement starts afresh: 12 MiB without a refault grows it.
  EXPECT_EQ(run.Second(12 * kMiB, 0), kDefault + kLimit / 64);
}

TEST(BudgetControl, RefaultsWithoutReadsOfTheRanksCountAsReads) {
  Readings run;
  run.Second(0, 0);
  run.Second(400 * kMiB, 0);
  // Swap-ins of the master's own pages, say: all of it refaulted.
  EXPECT_EQ(run.Second(0, 20 * kMiB), kDefault + kLimit / 64 - kLimit / 16);
}

TEST(BudgetControl, FallsToTheDefaultAtOnceWhenUnreclaimableMemoryNearsTheLimit) {
  Readings run;
  run.Second(0, 0);
  for (int i = 0; i < 20; ++i) run.Second(400 * kMiB, 0);
  ASSERT_GT(run.control.budget(), kDefault + 30 * kMiB);
  run.sample.unreclaimable = kLimit - 4 * kMiB;
  EXPECT_EQ(run.Second(400 * kMiB, 0), kDefault);
  // Once it is gone, growth resumes from there.
  run.sample.unreclaimable = 100 * kMiB;
  EXPECT_EQ(run.Second(400 * kMiB, 0), kDefault + kLimit / 64);
  // Below the default it stays where it is.
  for (int i = 0; i < 3; ++i) run.Second(300 * kMiB, 100 * kMiB);
  ASSERT_EQ(run.control.budget(), kDefault + kLimit / 64 - 3 * (kLimit / 16));
  run.sample.unreclaimable = kLimit - 4 * kMiB;
  EXPECT_EQ(run.Second(300 * kMiB, 15 * kMiB), kDefault + kLimit / 64 - 3 * (kLimit / 16));
}

TEST(BudgetControl, GrowsOnlyWhileUnreclaimableMemoryLeavesRoomForTheStep) {
  Readings run;
  run.Second(0, 0);
  // A rank filling fresh memory while the master's buffer fills: few
  // refaults, since there is no page cache left to evict and fault back.
  // The limit less the margin (12 MiB) and a step (3 MiB) is 177 MiB.
  run.sample.unreclaimable = 178 * kMiB;
  EXPECT_EQ(run.Second(400 * kMiB, 0), kDefault);
  EXPECT_EQ(run.Second(400 * kMiB, 0), kDefault);
  run.sample.unreclaimable = 177 * kMiB;
  EXPECT_EQ(run.Second(400 * kMiB, 0), kDefault + kLimit / 64);
  // It still shrinks when refaults come.
  run.sample.unreclaimable = 178 * kMiB;
  EXPECT_EQ(run.Second(300 * kMiB, 100 * kMiB), kDefault + kLimit / 64 - kLimit / 16);
}

TEST(BudgetControl, CountersThatGoBackStartANewJudgement) {
  Readings run;
  run.Second(0, 0);
  run.Second(400 * kMiB, 0);
  std::uint64_t before = run.control.budget();
  run.sample.read -= 300 * kMiB;  // a rank gone, and its reads
  run.sample.ns += kSecond;
  EXPECT_EQ(run.control.Look(run.sample), before);
  EXPECT_EQ(run.Second(400 * kMiB, 0), before + kLimit / 64);
}

TEST(BudgetControl, LooksOncePerInterval) {
  BudgetControl control(kDefault, kLimit);
  EXPECT_TRUE(control.Due(0));
  control.Look({.ns = 5 * kSecond});
  EXPECT_FALSE(control.Due(5 * kSecond + kSecond / 2));
  EXPECT_TRUE(control.Due(6 * kSecond));
}

TEST(BudgetRange, LeastMostAndMeanOverTime) {
  BudgetRange range;
  EXPECT_EQ(range.Mean(0), 0u);
  range.Note(120 * kMiB, 0);
  range.Note(180 * kMiB, 3 * kSecond);
  range.Note(150 * kMiB, 4 * kSecond);
  EXPECT_EQ(range.least(), 120 * kMiB);
  EXPECT_EQ(range.most(), 180 * kMiB);
  // 3 s at 120, 1 s at 180, 2 s at 150.
  EXPECT_EQ(range.Mean(6 * kSecond), 140 * kMiB);
}

}  // namespace
}  // namespace bdmpi
