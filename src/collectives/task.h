// The algorithms are written as C++20 coroutines: the compiler turns each into
// the state machine that Operation::Progress advances, so that a pipelined
// algorithm reads like its blocking version while never blocking. A Task
// suspends only at `co_await Await...(requests)`; the operation then tests
// those requests on each Progress call and resumes the task when all have
// completed. A Task may `co_await` another Task as a sub-step.
#pragma once

#include <coroutine>
#include <exception>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// What the innermost suspended coroutine of one operation waits for.
struct TaskDriver {
  Transport* transport = nullptr;
  std::vector<RequestId> pending;
  std::coroutine_handle<> resume;
};

class [[nodiscard]] Task {
 public:
  struct promise_type;
  using Handle = std::coroutine_handle<promise_type>;

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    // Symmetric transfer back to the awaiting task, if any.
    std::coroutine_handle<> await_suspend(Handle h) noexcept {
      std::coroutine_handle<> parent = h.promise().parent;
      if (!parent) return std::noop_coroutine();
      h.promise().driver->resume = parent;
      return parent;
    }
    void await_resume() noexcept {}
  };

  struct promise_type {
    TaskDriver* driver = nullptr;
    std::coroutine_handle<> parent;
    std::exception_ptr error;

    Task get_return_object() { return Task(Handle::from_promise(*this)); }
    // Lazy: nothing runs (and nothing is posted) before the first Progress.
    std::suspend_always initial_suspend() noexcept { return {}; }
    FinalAwaiter final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { error = std::current_exception(); }
  };

  struct SubtaskAwaiter {
    Handle child;
    bool await_ready() noexcept { return false; }
    std::coroutine_handle<> await_suspend(Handle parent) noexcept {
      child.promise().driver = parent.promise().driver;
      child.promise().parent = parent;
      child.promise().driver->resume = child;
      return child;
    }
    void await_resume() {
      if (child.promise().error) std::rethrow_exception(child.promise().error);
    }
  };

  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  SubtaskAwaiter operator co_await() && noexcept { return {handle_}; }
  Handle handle() const { return handle_; }

 private:
  explicit Task(Handle handle) : handle_(handle) {}
  Handle handle_;
};

// Suspends until every request in `requests` has completed. The span's
// storage must live in the coroutine frame (or the awaiter) while suspended.
class RequestsAwaiter {
 public:
  explicit RequestsAwaiter(std::span<const RequestId> requests)
      : requests_(requests) {}
  bool await_ready() noexcept { return requests_.empty(); }
  bool await_suspend(Task::Handle h) {
    TaskDriver& driver = *h.promise().driver;
    for (RequestId id : requests_)
      if (!driver.transport->Test(id)) driver.pending.push_back(id);
    if (driver.pending.empty()) return false;  // all done: do not suspend
    driver.resume = h;
    return true;
  }
  void await_resume() noexcept {}

 private:
  std::span<const RequestId> requests_;
};

// co_await Await(id): one request.
class Await : public RequestsAwaiter {
 public:
  explicit Await(RequestId id) : RequestsAwaiter({&id_, 1}), id_(id) {}
  Await(const Await&) = delete;

 private:
  RequestId id_;
};

// co_await AwaitAll(ids): every request in ids, which is emptied.
class AwaitAll : public RequestsAwaiter {
 public:
  explicit AwaitAll(std::vector<RequestId>& ids)
      : RequestsAwaiter(ids), ids_(ids) {}
  void await_resume() noexcept { ids_.clear(); }

 private:
  std::vector<RequestId>& ids_;
};

// Runs `task` as an Operation on transport `t`.
std::unique_ptr<Operation> MakeOperation(Transport& t, Task task);

}  // namespace bdmpi::coll
