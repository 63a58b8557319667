#include "slave/generalized_wait.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace bdmpi {
namespace {

struct Completions {
  std::mutex mutex;
  std::condition_variable completed;
  std::uint64_t count = 0;  // completions so far
};

Completions& State() {
  static Completions state;
  return state;
}

constexpr std::chrono::microseconds kFirstPause{20};
constexpr std::chrono::microseconds kLongestPause{1000};

}  // namespace

void CompleteGeneralized(const std::function<void()>& mark) {
  Completions& state = State();
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    mark();
    ++state.count;
  }
  state.completed.notify_all();
}

void AwaitGeneralized(const std::function<bool()>& done) {
  Completions& state = State();
  std::unique_lock<std::mutex> lock(state.mutex);
  state.completed.wait(lock, done);
}

void PollUntilGeneralized(const std::function<bool()>& poll) {
  Completions& state = State();
  for (auto pause = kFirstPause;; pause = std::min(2 * pause, kLongestPause)) {
    std::uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(state.mutex);
      seen = state.count;
    }
    // A completion from here on changes the count: the sleep below ends.
    if (poll()) return;
    std::unique_lock<std::mutex> lock(state.mutex);
    state.completed.wait_for(lock, pause, [&] { return state.count != seen; });
  }
}

}  // namespace bdmpi
