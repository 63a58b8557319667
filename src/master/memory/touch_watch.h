// The running ranks that were admitted on an estimate of what they touch
// (touch_estimate.h), watched from a thread of their own: the event loop
// blocks in mq_receive and sees a rank only at its MPI calls, while a rank
// that touches more than it was admitted on must be counted at once, or
// the node would pass its budget unnoticed (and the cgroup reclaim or
// swap). Every millisecond the thread reads each watched rank's resident
// size (statm, a few microseconds) and, when one has passed its limit,
// wakes the event loop once (through the request queue, as the network
// thread does), which counts the rank larger and makes room
// (NodeMemory::OnTouchWatch). It sleeps while nobody is watched.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/unique_fd.h"
#include "master/sched/thread_placement.h"

namespace bdmpi {

class TouchWatch {
 public:
  // `wake` is called from the thread when a rank passed its limit. The
  // thread runs where the master ran before it pinned itself, as an
  // ordinary task (`placement`): pinned to the core of the master and of
  // the rank it serves with -nr 1, it would take that core from the rank
  // every millisecond.
  TouchWatch(std::function<void()> wake, const ThreadPlacement& placement)
      : wake_(std::move(wake)), placement_(placement) {}
  ~TouchWatch();  // stops the thread
  TouchWatch(const TouchWatch&) = delete;
  TouchWatch& operator=(const TouchWatch&) = delete;

  // Watches the rank `index` whose statm is `statm_fd` (duplicated) until
  // its resident bytes pass `limit`; replaces an earlier watch of it.
  void Watch(int index, int statm_fd, std::uint64_t limit);
  void Unwatch(int index);

 private:
  struct Entry {
    int index;
    UniqueFd statm;
    std::uint64_t limit;
  };
  void Run();

  std::function<void()> wake_;
  ThreadPlacement placement_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Entry> entries_;
  bool stop_ = false;
  std::thread thread_;  // started at the first watch
};

}  // namespace bdmpi
