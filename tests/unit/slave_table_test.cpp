// The slave table (master/sched/slave_table.h): records by index, world rank and
// token, the count of live slaves, and the scheduling glue (runnable,
// yielded, running slots).
#include "master/sched/slave_table.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/error.h"

namespace bdmpi {
namespace {

// With kFifo the residency of a slave is never read.
SlaveTable Fifo(int nrunning) {
  return SlaveTable(nrunning, SchedulePolicy::kFifo, [](int) { return 0.0; });
}

// The world ranks of the slaves StartNext hands out until it says no.
std::vector<int> StartAll(SlaveTable& table) {
  std::vector<int> started;
  while (Slave* slave = table.StartNext()) started.push_back(slave->world_rank);
  return started;
}

TEST(SlaveTableTest, CreatesRecordsOfConsecutiveWorldRanks) {
  SlaveTable table = Fifo(1);
  table.Create(3, 10, /*reserved_token=*/0);
  ASSERT_EQ(table.size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(table[i].index, i);
    EXPECT_EQ(table[i].world_rank, 10 + i);
    EXPECT_EQ(table[i].state, SlaveState::kStarting);
  }
  EXPECT_EQ(table.live(), 0);  // none started yet
}

TEST(SlaveTableTest, FindsSlavesByWorldRankOnThisNodeOnly) {
  SlaveTable table = Fifo(1);
  table.Create(4, 8, 0);
  EXPECT_EQ(table.ByWorldRank(8), &table[0]);
  EXPECT_EQ(table.ByWorldRank(11), &table[3]);
  EXPECT_EQ(table.ByWorldRank(7), nullptr);   // the node before
  EXPECT_EQ(table.ByWorldRank(12), nullptr);  // the node after
  const SlaveTable& view = table;
  EXPECT_EQ(view.ByWorldRank(9), &table[1]);
}

TEST(SlaveTableTest, TokensAreDistinctAndNeverTheReservedOne) {
  SlaveTable table = Fifo(1);
  table.Create(64, 0, /*reserved_token=*/12345);
  std::set<std::uint32_t> tokens;
  for (const Slave& slave : table) {
    EXPECT_NE(slave.token, 12345u);
    EXPECT_NE(slave.token, 0u);
    tokens.insert(slave.token);
    EXPECT_EQ(table.ByToken(slave.token), &slave);
  }
  EXPECT_EQ(tokens.size(), 64u);
  EXPECT_EQ(table.ByToken(12345), nullptr);
}

TEST(SlaveTableTest, CountsLiveSlavesUntilReaped) {
  SlaveTable table = Fifo(1);
  table.Create(2, 0, 0);
  table.CountStarted();
  table.CountStarted();
  EXPECT_EQ(table.live(), 2);
  table.MarkExited(table[1]);
  EXPECT_EQ(table[1].state, SlaveState::kExited);
  EXPECT_EQ(table.live(), 1);
}

TEST(SlaveTableTest, StartsRunnableSlavesUpToTheRunningSlots) {
  SlaveTable table = Fifo(2);
  table.Create(4, 0, 0);
  EXPECT_TRUE(table.idle());
  EXPECT_EQ(table.StartNext(), nullptr);
  for (int i = 0; i < 4; ++i) table.MakeRunnable(table[i]);
  EXPECT_FALSE(table.idle());
  EXPECT_EQ(StartAll(table), (std::vector<int>{0, 1}));
  EXPECT_EQ(table.running(), 2);
  table.StopRunning(table[0]);
  EXPECT_EQ(table[0].core, -1);
  EXPECT_EQ(StartAll(table), (std::vector<int>{2}));
  table.StopRunning(table[1]);
  table.StopRunning(table[2]);
  EXPECT_EQ(StartAll(table), (std::vector<int>{3}));
  EXPECT_TRUE(table.idle());
}

TEST(SlaveTableTest, AYieldedSlaveRunsAfterTheOtherRunnableOnes) {
  SlaveTable table = Fifo(1);
  table.Create(3, 0, 0);
  table.MakeRunnableAfterYield(table[0]);
  table.MakeRunnable(table[1]);
  table.MakeRunnable(table[2]);
  std::vector<int> order;
  while (Slave* slave = table.StartNext()) {
    order.push_back(slave->index);
    table.StopRunning(*slave);
  }
  EXPECT_EQ(order, (std::vector<int>{1, 2, 0}));
}

TEST(SlaveTableTest, AForgottenSlaveIsNeverStarted) {
  SlaveTable table = Fifo(1);
  table.Create(2, 0, 0);
  table.MakeRunnable(table[0]);
  table.MakeRunnable(table[1]);
  table.MarkExited(table[0]);
  table.Forget(table[0]);
  EXPECT_EQ(StartAll(table), (std::vector<int>{1}));
}

TEST(SlaveTableTest, StoppingWhenNobodyRunsIsAnError) {
  SlaveTable table = Fifo(1);
  table.Create(1, 0, 0);
  EXPECT_THROW(table.StopRunning(table[0]), Error);
}

TEST(SlaveTableTest, TheMemoryPolicyPicksTheMostResidentSlave) {
  std::vector<double> resident = {0.1, 0.9, 0.5};
  SlaveTable table(1, SchedulePolicy::kMemory, [&](int index) { return resident[index]; });
  table.Create(3, 0, 0);
  for (int i = 0; i < 3; ++i) table.MakeRunnable(table[i]);
  Slave* first = table.StartNext();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->index, 1);
}

}  // namespace
}  // namespace bdmpi
