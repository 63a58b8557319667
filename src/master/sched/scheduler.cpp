#include "master/sched/scheduler.h"

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "master/observe/job_recorder.h"

namespace bdmpi {

Scheduler::Scheduler(int nrunning, SchedulePolicy policy,
                     std::function<double(int)> resident_fraction,
                     std::function<std::int64_t()> now_ns)
    : nrunning_(nrunning),
      policy_(policy),
      resident_fraction_(std::move(resident_fraction)),
      now_ns_(now_ns ? std::move(now_ns) : MonotonicNs) {}

void Scheduler::MakeRunnable(int slave) { runnable_.push_back(slave); }

void Scheduler::MakeRunnableAfterYield(int slave) {
  yielded_.push_back(slave);
  if (static_cast<std::size_t>(slave) >= yielded_at_.size()) yielded_at_.resize(slave + 1, 0);
  yielded_at_[slave] = now_ns_();
}

bool Scheduler::Promote(int slave) {
  auto it = std::ranges::find(yielded_, slave);
  if (it == yielded_.end()) return false;
  yielded_.erase(it);
  runnable_.push_back(slave);
  return true;
}

void Scheduler::StopRunning(int slave) {
  BDMPI_ENFORCE(running_ > 0, "slave " + std::to_string(slave) +
                                  " stops but nobody is running");
  --running_;
}

void Scheduler::Forget(int slave) {
  std::erase(runnable_, slave);
  std::erase(yielded_, slave);
}

std::optional<int> Scheduler::PickNext() {
  if (running_ >= nrunning_) return std::nullopt;
  std::deque<int>* queue = nullptr;
  std::deque<int>::iterator pick = Choose(queue);
  if (queue == nullptr) return std::nullopt;
  int slave = *pick;
  queue->erase(pick);
  ++running_;
  return slave;
}

std::optional<int> Scheduler::PeekNext() {
  std::deque<int>* queue = nullptr;
  std::deque<int>::iterator pick = Choose(queue);
  if (queue == nullptr) return std::nullopt;
  return *pick;
}

std::deque<int>::iterator Scheduler::Choose(std::deque<int>*& queue) {
  queue = runnable_.empty() ? &yielded_ : &runnable_;
  if (queue->empty()) {
    queue = nullptr;
    return {};
  }
  auto pick = queue->begin();
  // Reading residency costs a few microseconds per slave: only when there
  // is a choice to make. Yielded slaves go in turn, or the most resident
  // poller would be picked again and again; but one whose data is not
  // resident lets the resident ones go first for a while (the header).
  if (policy_ == SchedulePolicy::kMemory && queue == &yielded_ && queue->size() > 1 &&
      now_ns_() - yielded_at_[*pick] < kSwitchedOutPollerWaitNs &&
      resident_fraction_(*pick) < 1.0) {
    for (auto it = std::next(queue->begin()); it != queue->end(); ++it) {
      if (resident_fraction_(*it) >= 1.0) {
        pick = it;
        break;
      }
    }
  }
  if (policy_ == SchedulePolicy::kMemory && queue == &runnable_ && queue->size() > 1) {
    double best = -1;
    for (auto it = queue->begin(); it != queue->end(); ++it) {
      double fraction = resident_fraction_(*it);
      if (fraction > best) {
        best = fraction;
        pick = it;
      }
    }
  }
  return pick;
}

}  // namespace bdmpi
