#include "slave/request/generalized_wait.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "common/error.h"
#include "slave/runtime/threads.h"

namespace bdmpi {
namespace {

struct Completions {
  std::mutex mutex;
  std::condition_variable completed;
  std::uint64_t count = 0;  // completions so far
  std::unordered_map<MPI_Request, std::shared_ptr<GeneralizedState>> registry;
  std::vector<MPI_Request> released;
  // Whether `released` may hold any: read without the mutex by every new
  // request (a stream of MPI_Isend makes one per message, and the mutex
  // was two locked instructions each time for a list that is almost
  // always empty).
  std::atomic<bool> any_released{false};
};

Completions& PendingCompletions() {
  static Completions state;
  return state;
}

constexpr std::chrono::microseconds kFirstPause{20};
constexpr std::chrono::microseconds kLongestPause{1000};

}  // namespace

void RegisterGeneralized(MPI_Request request, std::shared_ptr<GeneralizedState> generalized) {
  Completions& state = PendingCompletions();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.registry[request] = std::move(generalized);
}

std::shared_ptr<GeneralizedState> CompleteGeneralized(MPI_Request request) {
  Completions& state = PendingCompletions();
  std::shared_ptr<GeneralizedState> freed;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    auto found = state.registry.find(request);
    if (found == state.registry.end())
      throw Error(kErrRequest, "not a generalized request (or one completed and retired)");
    GeneralizedState& generalized = *found->second;
    if (generalized.complete) throw Error(kErrRequest, "MPI_Grequest_complete called twice");
    generalized.complete = true;
    ++state.count;
    if (generalized.freed) {
      freed = std::move(found->second);
      state.registry.erase(found);
      state.released.push_back(request);
      state.any_released.store(true, std::memory_order_release);
    }
  }
  state.completed.notify_all();
  return freed;
}

bool GeneralizedComplete(const GeneralizedState& generalized) {
  Completions& state = PendingCompletions();
  std::lock_guard<std::mutex> lock(state.mutex);
  return generalized.complete;
}

bool FreeGeneralizedLater(MPI_Request request) {
  Completions& state = PendingCompletions();
  std::lock_guard<std::mutex> lock(state.mutex);
  auto found = state.registry.find(request);
  if (found == state.registry.end()) return true;
  if (found->second->complete) {
    state.registry.erase(found);
    return true;
  }
  found->second->freed = true;
  return false;
}

void ForgetGeneralized(MPI_Request request) {
  Completions& state = PendingCompletions();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.registry.erase(request);
}

std::vector<MPI_Request> TakeReleasedGeneralized() {
  Completions& state = PendingCompletions();
  if (!state.any_released.load(std::memory_order_acquire)) return {};
  std::lock_guard<std::mutex> lock(state.mutex);
  std::vector<MPI_Request> released;
  released.swap(state.released);
  state.any_released.store(false, std::memory_order_relaxed);
  return released;
}

void AwaitGeneralized(const GeneralizedState& generalized) {
  Completions& state = PendingCompletions();
  // The completing thread's MPI_Grequest_complete takes the rank's lock.
  threads::Unlocked unlocked;
  std::unique_lock<std::mutex> lock(state.mutex);
  state.completed.wait(lock, [&generalized] { return generalized.complete; });
}

void PollUntilGeneralized(const std::function<bool()>& poll) {
  Completions& state = PendingCompletions();
  for (auto pause = kFirstPause;; pause = std::min(2 * pause, kLongestPause)) {
    std::uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(state.mutex);
      seen = state.count;
    }
    // A completion from here on changes the count: the sleep below ends.
    if (poll()) return;
    threads::Unlocked unlocked;  // as in AwaitGeneralized
    std::unique_lock<std::mutex> lock(state.mutex);
    state.completed.wait_for(lock, pause, [&] { return state.count != seen; });
  }
}

}  // namespace bdmpi
