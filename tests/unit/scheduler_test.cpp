// The slave scheduler: the nrunning cap, FIFO and memory policies, yielded
// slaves going last, and forgetting slaves.
#include "master/sched/scheduler.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/error.h"
#include "master/options.h"

namespace bdmpi {
namespace {

// For kFifo: the residency of slaves must never be read.
double NeverCalled(int slave) {
  ADD_FAILURE() << "resident_fraction(" << slave << ") called under kFifo";
  return 0;
}

// Picks until the scheduler says no; returns the slaves in pick order.
std::vector<int> PickAll(Scheduler& scheduler) {
  std::vector<int> picked;
  while (std::optional<int> slave = scheduler.PickNext()) picked.push_back(*slave);
  return picked;
}

// Picks one slave, lets it stop at once, repeats: the order slaves would run
// in with one slot.
std::vector<int> RunOneAtATime(Scheduler& scheduler) {
  std::vector<int> order;
  while (std::optional<int> slave = scheduler.PickNext()) {
    order.push_back(*slave);
    scheduler.StopRunning(*slave);
  }
  return order;
}

// ------------------------------------------------------------ the cap

TEST(SchedulerTest, NothingRunnableNothingPicked) {
  Scheduler scheduler(2, SchedulePolicy::kFifo, NeverCalled);
  EXPECT_TRUE(scheduler.idle());
  EXPECT_EQ(scheduler.PickNext(), std::nullopt);
  EXPECT_EQ(scheduler.running(), 0);
}

TEST(SchedulerTest, NeverMoreThanNrunning) {
  for (int nrunning : {1, 2, 3, 5}) {
    Scheduler scheduler(nrunning, SchedulePolicy::kFifo, NeverCalled);
    for (int slave = 0; slave < 8; ++slave) scheduler.MakeRunnable(slave);
    std::vector<int> picked = PickAll(scheduler);
    EXPECT_EQ(static_cast<int>(picked.size()), nrunning);
    EXPECT_EQ(scheduler.running(), nrunning);
    EXPECT_FALSE(scheduler.idle());
    EXPECT_EQ(scheduler.PickNext(), std::nullopt) << "nrunning " << nrunning;
  }
}

TEST(SchedulerTest, NeverMoreThanNrunningUnderMemoryPolicy) {
  Scheduler scheduler(2, SchedulePolicy::kMemory,
                      [](int slave) { return slave / 10.0; });
  for (int slave = 0; slave < 6; ++slave) scheduler.MakeRunnable(slave);
  for (int slave = 0; slave < 6; ++slave) scheduler.MakeRunnableAfterYield(10 + slave);
  EXPECT_EQ(PickAll(scheduler).size(), 2u);
  EXPECT_EQ(scheduler.running(), 2);
}

TEST(SchedulerTest, StopRunningFreesASlot) {
  Scheduler scheduler(2, SchedulePolicy::kFifo, NeverCalled);
  for (int slave = 0; slave < 5; ++slave) scheduler.MakeRunnable(slave);
  EXPECT_EQ(PickAll(scheduler), (std::vector<int>{0, 1}));
  scheduler.StopRunning(0);
  EXPECT_EQ(scheduler.running(), 1);
  EXPECT_EQ(PickAll(scheduler), (std::vector<int>{2}));
  EXPECT_EQ(scheduler.running(), 2);
  scheduler.StopRunning(1);
  scheduler.StopRunning(2);
  EXPECT_EQ(scheduler.running(), 0);
  EXPECT_EQ(PickAll(scheduler), (std::vector<int>{3, 4}));
  EXPECT_TRUE(scheduler.idle());
}

TEST(SchedulerTest, StopRunningWithNobodyRunningIsAnInternalError) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  try {
    scheduler.StopRunning(3);
    FAIL() << "no exception";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), kErrIntern);
  }
  EXPECT_EQ(scheduler.running(), 0);
}

TEST(SchedulerTest, IdleMeansNobodyWaiting) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  scheduler.MakeRunnable(0);
  EXPECT_FALSE(scheduler.idle());
  ASSERT_EQ(scheduler.PickNext(), 0);
  // Running does not count as waiting.
  EXPECT_TRUE(scheduler.idle());
  scheduler.MakeRunnableAfterYield(1);
  EXPECT_FALSE(scheduler.idle());
}

// ------------------------------------------------------------ FIFO

TEST(SchedulerTest, FifoResumesInOrderOfBecomingRunnable) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  for (int slave : {4, 1, 3, 0, 2}) scheduler.MakeRunnable(slave);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{4, 1, 3, 0, 2}));
}

TEST(SchedulerTest, FifoWithSeveralSlots) {
  Scheduler scheduler(3, SchedulePolicy::kFifo, NeverCalled);
  for (int slave : {5, 2, 7, 1, 6}) scheduler.MakeRunnable(slave);
  EXPECT_EQ(PickAll(scheduler), (std::vector<int>{5, 2, 7}));
  scheduler.StopRunning(2);
  scheduler.MakeRunnable(2);  // blocked and woken again: goes to the back
  scheduler.StopRunning(5);
  EXPECT_EQ(PickAll(scheduler), (std::vector<int>{1, 6}));
  scheduler.StopRunning(7);
  EXPECT_EQ(PickAll(scheduler), (std::vector<int>{2}));
}

// ------------------------------------------------------------ memory policy

TEST(SchedulerTest, MemoryPolicyPicksHighestResidentFraction) {
  std::map<int, double> resident = {{0, 0.1}, {1, 0.9}, {2, 0.5}, {3, 0.7}};
  Scheduler scheduler(1, SchedulePolicy::kMemory,
                      [&](int slave) { return resident.at(slave); });
  for (int slave = 0; slave < 4; ++slave) scheduler.MakeRunnable(slave);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{1, 3, 2, 0}));
}

TEST(SchedulerTest, MemoryPolicyReadsResidencyAtPickTime) {
  std::map<int, double> resident = {{0, 0.2}, {1, 0.1}, {2, 0.3}};
  Scheduler scheduler(1, SchedulePolicy::kMemory,
                      [&](int slave) { return resident.at(slave); });
  for (int slave = 0; slave < 3; ++slave) scheduler.MakeRunnable(slave);
  ASSERT_EQ(scheduler.PickNext(), 2);
  scheduler.StopRunning(2);
  resident[1] = 1.0;  // paged in meanwhile
  EXPECT_EQ(scheduler.PickNext(), 1);
}

TEST(SchedulerTest, MemoryPolicyTiesGoFifo) {
  Scheduler scheduler(1, SchedulePolicy::kMemory, [](int) { return 0.5; });
  for (int slave : {3, 0, 2, 1}) scheduler.MakeRunnable(slave);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{3, 0, 2, 1}));
}

TEST(SchedulerTest, MemoryPolicyTiesAtTheTopGoFifo) {
  std::map<int, double> resident = {{5, 0.2}, {6, 0.8}, {7, 0.1}, {8, 0.8}};
  Scheduler scheduler(1, SchedulePolicy::kMemory,
                      [&](int slave) { return resident.at(slave); });
  for (int slave : {5, 6, 7, 8}) scheduler.MakeRunnable(slave);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{6, 8, 5, 7}));
}

TEST(SchedulerTest, MemoryPolicyWithZeroResidency) {
  // Fully swapped-out slaves (fraction 0) must still be picked.
  Scheduler scheduler(1, SchedulePolicy::kMemory, [](int) { return 0.0; });
  scheduler.MakeRunnable(4);
  scheduler.MakeRunnable(2);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{4, 2}));
}

// ------------------------------------------------------------ yielding

TEST(SchedulerTest, YieldedRunsOnlyWhenNobodyElseIsRunnable) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  scheduler.MakeRunnableAfterYield(0);
  scheduler.MakeRunnable(1);
  scheduler.MakeRunnableAfterYield(2);
  scheduler.MakeRunnable(3);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{1, 3, 0, 2}));
}

TEST(SchedulerTest, NewlyRunnableSlaveOvertakesYieldedOnes) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  scheduler.MakeRunnableAfterYield(0);
  scheduler.MakeRunnableAfterYield(1);
  ASSERT_EQ(scheduler.PickNext(), 0);
  scheduler.StopRunning(0);
  scheduler.MakeRunnable(2);
  scheduler.MakeRunnableAfterYield(0);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{2, 1, 0}));
}

TEST(SchedulerTest, YieldedRunsAloneWhenNothingElse) {
  Scheduler scheduler(2, SchedulePolicy::kFifo, NeverCalled);
  scheduler.MakeRunnableAfterYield(5);
  EXPECT_EQ(scheduler.PickNext(), 5);
  EXPECT_EQ(scheduler.running(), 1);
}

TEST(SchedulerTest, MemoryPolicyStillPrefersRunnableOverYielded) {
  // The yielded slave is fully resident, but a runnable one goes first.
  std::map<int, double> resident = {{0, 1.0}, {1, 0.0}, {2, 0.5}};
  Scheduler scheduler(1, SchedulePolicy::kMemory,
                      [&](int slave) { return resident.at(slave); });
  scheduler.MakeRunnableAfterYield(0);
  scheduler.MakeRunnable(1);
  scheduler.MakeRunnable(2);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{2, 1, 0}));
}

// ------------------------------------------------------------ Forget

TEST(SchedulerTest, ForgetRemovesRunnableSlave) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  for (int slave = 0; slave < 4; ++slave) scheduler.MakeRunnable(slave);
  scheduler.Forget(2);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{0, 1, 3}));
}

TEST(SchedulerTest, ForgetRemovesYieldedSlave) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  scheduler.MakeRunnableAfterYield(0);
  scheduler.MakeRunnableAfterYield(1);
  scheduler.Forget(0);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{1}));
}

TEST(SchedulerTest, ForgetLastSlaveMakesIdle) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  scheduler.MakeRunnable(3);
  scheduler.Forget(3);
  EXPECT_TRUE(scheduler.idle());
  EXPECT_EQ(scheduler.PickNext(), std::nullopt);
  EXPECT_EQ(scheduler.running(), 0);
}

TEST(SchedulerTest, ForgetUnknownSlaveChangesNothing) {
  Scheduler scheduler(2, SchedulePolicy::kFifo, NeverCalled);
  scheduler.MakeRunnable(0);
  scheduler.MakeRunnable(1);
  scheduler.Forget(7);
  EXPECT_EQ(PickAll(scheduler), (std::vector<int>{0, 1}));
}

TEST(SchedulerTest, ForgetDoesNotTouchRunningCount) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  scheduler.MakeRunnable(0);
  scheduler.MakeRunnable(1);
  ASSERT_EQ(scheduler.PickNext(), 0);
  // A running slave that dies is stopped, not forgotten.
  scheduler.Forget(0);
  EXPECT_EQ(scheduler.running(), 1);
  EXPECT_EQ(scheduler.PickNext(), std::nullopt);
  scheduler.StopRunning(0);
  EXPECT_EQ(scheduler.PickNext(), 1);
}

TEST(SchedulerTest, ForgottenSlaveIsNeverAskedForResidency) {
  Scheduler scheduler(1, SchedulePolicy::kMemory, [](int slave) {
    EXPECT_NE(slave, 1) << "residency of a forgotten slave read";
    return 0.5;
  });
  for (int slave = 0; slave < 3; ++slave) scheduler.MakeRunnable(slave);
  scheduler.Forget(1);
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{0, 2}));
}

// A yielded slave for which something arrived joins the runnable ones:
// it goes before the yielded slaves for which nothing did.
TEST(SchedulerYieldTest, PromotedPollerGoesBeforeTheOtherYieldedOnes) {
  Scheduler scheduler(1, SchedulePolicy::kFifo, NeverCalled);
  for (int slave : {0, 1, 2}) scheduler.MakeRunnableAfterYield(slave);
  EXPECT_TRUE(scheduler.Promote(2));
  EXPECT_FALSE(scheduler.Promote(2)) << "already runnable";
  EXPECT_FALSE(scheduler.Promote(5)) << "not waiting at all";
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{2, 0, 1}));
}

// Under the memory policy a yielded slave whose data is not resident lets
// the resident yielded ones go first, for at most kSwitchedOutPollerWaitNs
// after its yield.
TEST(SchedulerYieldTest, SwitchedOutPollerLetsResidentPollersGoFirstForAWhile) {
  std::int64_t now = 0;
  Scheduler scheduler(1, SchedulePolicy::kMemory,
                             [](int slave) { return slave == 0 ? 0.0 : 1.0; },
                             [&now] { return now; });
  for (int slave : {0, 1, 2}) scheduler.MakeRunnableAfterYield(slave);
  now = Scheduler::kSwitchedOutPollerWaitNs / 2;
  EXPECT_EQ(RunOneAtATime(scheduler), (std::vector<int>{1, 2, 0}));

  for (int slave : {0, 1}) scheduler.MakeRunnableAfterYield(slave);
  now += Scheduler::kSwitchedOutPollerWaitNs;
  EXPECT_EQ(scheduler.PickNext(), 0) << "it waited long enough";
}

}  // namespace
}  // namespace bdmpi

// Regression: under the memory policy the yielded slaves used to be picked
// by residency too, so the most resident of two polling slaves ran forever
// (tests/jobs iprobe hung with -nr 1).
TEST(SchedulerYieldTest, YieldedSlavesTakeTurnsUnderMemoryPolicy) {
  bdmpi::Scheduler scheduler(1, bdmpi::SchedulePolicy::kMemory,
                             [](int slave) { return slave == 0 ? 0.9 : 0.1; });
  scheduler.MakeRunnableAfterYield(0);
  scheduler.MakeRunnableAfterYield(1);
  ASSERT_EQ(scheduler.PickNext(), 0);
  scheduler.StopRunning(0);
  scheduler.MakeRunnableAfterYield(0);
  EXPECT_EQ(scheduler.PickNext(), 1);
}

