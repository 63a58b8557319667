// How a polling loop paces its tests (src/slave/request/polling_pace.*):
// yields while young, sleeps a growing share of the time it has waited,
// and starts over when the program works between tests or a test finds
// something.
#include "slave/request/polling_pace.h"

#include <gtest/gtest.h>

#include <chrono>

namespace bdmpi {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using Time = PollingPace::Clock::time_point;

constexpr Time kStart{std::chrono::seconds(100)};
constexpr nanoseconds kTest = std::chrono::microseconds(1);

// Tests of `kTest` each, back to back, from `from` until `until`; returns
// the pause the last one asked for.
nanoseconds LoopUntil(PollingPace& pace, Time from, Time until) {
  nanoseconds pause{0};
  for (Time start = from; start < until; start += kTest + pause) {
    pause = pace.AfterVainTest(start, start + kTest);
    if (pause.count() > 0) pace.Paused(start + kTest + pause);
  }
  return pause;
}

TEST(PollingPace, AYoungLoopYields) {
  PollingPace pace;
  EXPECT_EQ(LoopUntil(pace, kStart, kStart + milliseconds(1)), nanoseconds(0));
}

TEST(PollingPace, ALongLoopSleepsAShareOfWhatItWaitedWithinBounds) {
  PollingPace pace;
  nanoseconds first = LoopUntil(pace, kStart, kStart + PollingPace::kSleepAfter + kTest);
  EXPECT_EQ(first, PollingPace::kMinSleep > PollingPace::kSleepAfter / PollingPace::kWaitedShare
                       ? PollingPace::kMinSleep
                       : PollingPace::kSleepAfter / PollingPace::kWaitedShare);
  nanoseconds at_8ms = LoopUntil(pace, kStart + PollingPace::kSleepAfter + 2 * kTest + first,
                                 kStart + milliseconds(8));
  EXPECT_GT(at_8ms, first);
  EXPECT_LE(at_8ms, nanoseconds(milliseconds(8)) / PollingPace::kWaitedShare);
  nanoseconds at_1s = LoopUntil(pace, kStart + milliseconds(8) + at_8ms + kTest,
                                kStart + std::chrono::seconds(1));
  EXPECT_EQ(at_1s, PollingPace::kMaxSleep);
}

TEST(PollingPace, WorkBetweenTestsStartsTheLoopOver) {
  PollingPace pace;
  Time end = kStart + milliseconds(50);
  ASSERT_GT(LoopUntil(pace, kStart, end).count(), 0);
  Time after_work = end + PollingPace::kMaxSleep + PollingPace::kTightGap + microseconds(30);
  EXPECT_EQ(pace.AfterVainTest(after_work, after_work + kTest), nanoseconds(0));
}

TEST(PollingPace, AFindingStartsTheLoopOver) {
  PollingPace pace;
  Time end = kStart + milliseconds(50);
  ASSERT_GT(LoopUntil(pace, kStart, end).count(), 0);
  pace.AfterTest(end + PollingPace::kMaxSleep, /*vain=*/false);
  Time next = end + PollingPace::kMaxSleep + kTest;
  EXPECT_EQ(pace.AfterVainTest(next, next + kTest), nanoseconds(0));
}

TEST(PollingPace, AVainAskOfTheMasterKeepsTheLoopGoing) {
  PollingPace pace;
  Time end = kStart + milliseconds(50);
  nanoseconds before = LoopUntil(pace, kStart, end);
  ASSERT_GT(before.count(), 0);
  // The master's answer took 100 us, longer than the gap a loop allows.
  Time asked = end + before + kTest + microseconds(100);
  pace.AfterTest(asked, /*vain=*/true);
  EXPECT_GE(pace.AfterVainTest(asked + kTest, asked + 2 * kTest), before);
}

}  // namespace
}  // namespace bdmpi
