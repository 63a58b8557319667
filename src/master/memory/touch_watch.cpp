// The watcher of ranks admitted on what they are expected to touch
// (touch_watch.h).
#include "master/memory/touch_watch.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>

#include "common/process_memory.h"

namespace bdmpi {

TouchWatch::~TouchWatch() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TouchWatch::Watch(int index, int statm_fd, std::uint64_t limit) {
  UniqueFd copy(fcntl(statm_fd, F_DUPFD_CLOEXEC, 0));
  if (!copy) return;  // out of descriptors: counted at its next call only
  {
    std::lock_guard lock(mutex_);
    std::erase_if(entries_, [index](const Entry& entry) { return entry.index == index; });
    entries_.push_back({index, std::move(copy), limit});
    if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  }
  changed_.notify_all();
}

void TouchWatch::Unwatch(int index) {
  std::lock_guard lock(mutex_);
  std::erase_if(entries_, [index](const Entry& entry) { return entry.index == index; });
}

void TouchWatch::Run() {
  // Faults from this disk bring a few MiB per millisecond at most; an
  // allocation the rank fills is seen in its storage-backed bytes, which
  // the master counts at its next call as before.
  constexpr auto kInterval = std::chrono::milliseconds(1);
  static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  placement_.ApplyToCallingThread();  // else it stays where the master is
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (entries_.empty()) {
      changed_.wait(lock, [this] { return stop_ || !entries_.empty(); });
      continue;
    }
    bool passed = false;
    for (auto it = entries_.begin(); it != entries_.end();) {
      Statm statm;
      if (ReadStatm(it->statm.get(), statm) && statm.resident * page > it->limit) {
        // Once per watch: the event loop watches it again with its new count.
        passed = true;
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
    if (passed) {
      lock.unlock();
      wake_();
      lock.lock();
    }
    changed_.wait_for(lock, kInterval, [this] { return stop_; });
  }
}

}  // namespace bdmpi
