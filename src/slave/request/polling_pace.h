// How a rank paces a loop of tests that find nothing (MPI_Test and its
// kin, answered "not yet" by the rank itself).
//
// Between two such tests the rank lets another process have its core
// (sched_yield): the sender, or the master that carries its message, may
// be waiting for it. A loop that has gone on for long, its tests following
// each other closely, sleeps instead: a yielding loop keeps its core busy
// with system calls, and on a machine shared with other jobs the kernel
// was seen to leave their processes on that core next to no time for tens
// of seconds (docs/data-path.md, "Tests without the master"). The sleep
// grows with the time the loop has waited, so that it delays the message
// it waits for by at most a small share of that time.
#pragma once

#include <chrono>

namespace bdmpi {

class PollingPace {
 public:
  using Clock = std::chrono::steady_clock;

  // A test that follows the previous one's end within this gap continues
  // a loop; a longer gap means the program did other work in between.
  static constexpr std::chrono::nanoseconds kTightGap = std::chrono::microseconds(20);
  // A loop sleeps once it has waited this long...
  static constexpr std::chrono::nanoseconds kSleepAfter = std::chrono::milliseconds(2);
  // ... for 1/kWaitedShare of the time waited, within these bounds.
  static constexpr int kWaitedShare = 64;
  static constexpr std::chrono::nanoseconds kMinSleep = std::chrono::microseconds(10);
  static constexpr std::chrono::nanoseconds kMaxSleep = std::chrono::microseconds(200);

  // After a test that began at `start`, ended at `end` and found nothing:
  // how long to sleep, or zero to yield.
  std::chrono::nanoseconds AfterVainTest(Clock::time_point start, Clock::time_point end);
  // After a test that found something, or one that asked the master (its
  // answer paced it): `vain` tells whether the loop goes on.
  void AfterTest(Clock::time_point end, bool vain);
  // The end of the yield or sleep after a vain test: the next test's gap
  // counts from here (a yield may give the core away for long).
  void Paused(Clock::time_point end) { last_end_ = end; }

 private:
  bool looping_ = false;
  Clock::time_point loop_start_{};
  Clock::time_point last_end_{};
};

}  // namespace bdmpi
