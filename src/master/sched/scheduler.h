// Which slaves may run: at most `nrunning` at once; among the runnable ones
// the policy picks the next. The paper's policy ("memory") resumes the slave
// with the largest fraction of its memory already resident, to pay the least
// for paging it back in; "fifo" resumes in the order slaves became runnable.
// A slave that yields (a Test or Iprobe that found nothing) goes behind every
// other runnable slave so that polling loops cannot starve the others.
#pragma once

#include <deque>
#include <functional>
#include <optional>

#include "master/options.h"

namespace bdmpi {

class Scheduler {
 public:
  // resident_fraction(slave) in [0, 1]; used by the memory policy.
  Scheduler(int nrunning, SchedulePolicy policy,
            std::function<double(int)> resident_fraction);

  void MakeRunnable(int slave);
  void MakeRunnableAfterYield(int slave);
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
  int running_ = 0;
  std::deque<int> runnable_;
  std::deque<int> yielded_;
};

}  // namespace bdmpi
