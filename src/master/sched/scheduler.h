// Which slaves may run: at most `nrunning` at once; among the runnable ones
// the policy picks the next. The paper's policy ("memory") resumes the slave
// with the largest fraction of its memory already resident, to pay the least
// for paging it back in; "fifo" resumes in the order slaves became runnable.
// A slave that yields (a Test or Iprobe that found nothing) goes behind every
// other runnable slave so that polling loops cannot starve the others, and
// the yielded ones run in turn; one for which something arrives joins the
// runnable ones (Promote). Under the memory policy a yielded slave whose
// data is not resident lets the resident yielded ones go first for up to
// kSwitchedOutPollerWaitNs: its turn would read its data back only to
// find nothing again (Graph500's ranks all poll while they wait).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "master/options.h"

namespace bdmpi {

class Scheduler {
 public:
  // resident_fraction(slave) in [0, 1]; used by the memory policy.
  // now_ns: a monotonic clock (the tests' own; MonotonicNs by default).
  Scheduler(int nrunning, SchedulePolicy policy,
            std::function<double(int)> resident_fraction,
            std::function<std::int64_t()> now_ns = nullptr);

  // How long a yielded slave whose data is not resident waits for the
  // resident yielded ones at most.
  static constexpr std::int64_t kSwitchedOutPollerWaitNs = 50'000'000;

  void MakeRunnable(int slave);
  void MakeRunnableAfterYield(int slave);
  // A yielded slave for which something arrived: from now on it is picked
  // as any runnable one (by the policy, before the yielded ones). False
  // when it is not among the yielded.
  bool Promote(int slave);
  // The slave stopped running (blocked, yielded, finalized or died).
  void StopRunning(int slave);
  // Forgets a slave that died while runnable.
  void Forget(int slave);
  // If a slot is free and someone is runnable, takes the next slave, counts
  // it as running and returns it.
  std::optional<int> PickNext();
  // The slave PickNext would take once a slot is free (read-ahead).
  std::optional<int> PeekNext();

  int running() const { return running_; }
  int limit() const { return nrunning_; }
  // At most `nrunning` from now on (-nr auto, once the master knows its
  // cores).
  void SetLimit(int nrunning) { nrunning_ = nrunning; }
  // PickNext would start a slave.
  bool CanPick() const { return running_ < nrunning_ && !idle(); }
  bool idle() const { return runnable_.empty() && yielded_.empty(); }

 private:
  // The next slave's place in its queue; queue is null when nobody waits.
  std::deque<int>::iterator Choose(std::deque<int>*& queue);

  int nrunning_;
  SchedulePolicy policy_;
  std::function<double(int)> resident_fraction_;
  std::function<std::int64_t()> now_ns_;
  int running_ = 0;
  std::deque<int> runnable_;
  std::deque<int> yielded_;
  std::vector<std::int64_t> yielded_at_;  // by slave: when it last yielded
};

}  // namespace bdmpi
