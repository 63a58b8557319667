// CoreBinder and HandoverHold (master/sched/core_binder.h, master/sched/handover_hold.h):
// where a resumed slave runs with -nr > 1 and when the master looks again.
// Binding is counted through a fake: every call is a system call (and a
// migration) in bdmprun, the measured cost of -nr > 1 (core_binder.h).
#include "master/sched/core_binder.h"

#include <gtest/gtest.h>

#include <vector>

#include "master/sched/handover_hold.h"

namespace bdmpi {
namespace {

struct BindCalls {
  std::vector<int> cores;  // the core of every call, in order
  CoreBinder::BindFunction Function() {
    return [this](pid_t, int core) {
      cores.push_back(core);
      return true;
    };
  }
};

TEST(CoreBinderTest, ASlaveThatStaysOnItsCoreIsNotBoundAgain) {
  BindCalls calls;
  CoreBinder binder(2, calls.Function());
  // Two slaves handing over to each other (a ping-pong with -nr 2): the
  // first binds each once; the thousand resumes after that bind nothing.
  int core0 = binder.Bind(100, -1);
  int core1 = binder.Bind(101, -1);
  EXPECT_NE(core0, core1);
  for (int round = 0; round < 1000; ++round) {
    binder.Release(core0);
    EXPECT_EQ(binder.Bind(100, core0), core0);
    binder.Release(core1);
    EXPECT_EQ(binder.Bind(101, core1), core1);
  }
  EXPECT_EQ(calls.cores.size(), 2u);
}

TEST(CoreBinderTest, ThePreferredCoreWinsWhenFree) {
  BindCalls calls;
  CoreBinder binder(2, calls.Function());
  // Bound to core 1 before, but the master's core 0 is free: the slave moves
  // there, where a hand-over to it is a wake-up on the master's own core.
  EXPECT_EQ(binder.Bind(100, /*bound_core=*/1, /*preferred_core=*/0), 0);
  EXPECT_EQ(calls.cores, std::vector<int>{0});
  // Core 0 is busy now: the next slave keeps its own free core, unbound.
  EXPECT_EQ(binder.Bind(101, /*bound_core=*/1, /*preferred_core=*/0), 1);
  EXPECT_EQ(calls.cores.size(), 1u);
  // Both as busy: the master's core again (oversubscribed, as -nr asks).
  EXPECT_EQ(binder.Bind(102, /*bound_core=*/1, /*preferred_core=*/0), 0);
  EXPECT_EQ(calls.cores, (std::vector<int>{0, 0}));
}

TEST(CoreBinderTest, ABusyCoreIsLeftForAnIdleOne) {
  BindCalls calls;
  CoreBinder binder(3, calls.Function());
  binder.Bind(100, -1);
  binder.Bind(101, -1);
  // Its old core 0 runs another slave while core 2 idles: it moves.
  EXPECT_EQ(binder.Bind(102, /*bound_core=*/0), 2);
  EXPECT_EQ(binder.load(2), 1);
}

TEST(CoreBinderTest, AFailedBindLeavesTheLoadAlone) {
  CoreBinder binder(2, [](pid_t, int) { return false; });
  EXPECT_EQ(binder.Bind(100, -1), -1);
  EXPECT_EQ(binder.load(0), 0);
  EXPECT_EQ(binder.load(1), 0);
}

TEST(HandoverHoldTest, DisabledUntilEnabled) {
  HandoverHold hold;
  EXPECT_FALSE(hold.enabled());
  EXPECT_FALSE(hold.NextDeadline().has_value());
  hold.Enable(std::chrono::microseconds(100), std::chrono::microseconds(250));
  EXPECT_TRUE(hold.enabled());
  EXPECT_EQ(hold.spread_after_ns(), 250'000);
}

TEST(HandoverHoldTest, TheEarlierOfHoldAndSpreadIsTheDeadline) {
  HandoverHold hold;
  hold.Enable(std::chrono::microseconds(100), std::chrono::microseconds(250));
  hold.Hold(/*sender=*/3, /*now=*/1'000'000);
  EXPECT_TRUE(hold.holding());
  EXPECT_EQ(hold.sender(), 3);
  EXPECT_EQ(hold.NextDeadline(), 1'100'000);
  EXPECT_FALSE(hold.HoldExpired(1'099'999));
  EXPECT_TRUE(hold.HoldExpired(1'100'000));
  hold.SpreadAt(1'050'000);
  hold.SpreadAt(1'080'000);  // later than the one asked for: ignored
  EXPECT_EQ(hold.NextDeadline(), 1'050'000);
  hold.EndHold();
  EXPECT_FALSE(hold.holding());
  EXPECT_EQ(hold.NextDeadline(), 1'050'000);
  hold.ClearSpread();
  EXPECT_FALSE(hold.NextDeadline().has_value());
}

}  // namespace
}  // namespace bdmpi
