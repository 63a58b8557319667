#include "master/sched/scheduler.h"

#include <algorithm>
#include <utility>

#include "common/error.h"

namespace bdmpi {

Scheduler::Scheduler(int nrunning, SchedulePolicy policy,
                     std::function<double(int)> resident_fraction)
    : nrunning_(nrunning),
      policy_(policy),
      resident_fraction_(std::move(resident_fraction)) {}

void Scheduler::MakeRunnable(int slave) { runnable_.push_back(slave); }

void Scheduler::MakeRunnableAfterYield(int slave) { yielded_.push_back(slave); }

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
  // is a choice to make. Yielded slaves go strictly in turn, or the most
  // resident poller would be picked again and again.
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
