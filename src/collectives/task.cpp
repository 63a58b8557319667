#include "collectives/task.h"

#include <algorithm>

namespace bdmpi::coll {
namespace {

class TaskOperation final : public Operation {
 public:
  TaskOperation(Transport& t, Task task) : task_(std::move(task)) {
    driver_.transport = &t;
    task_.handle().promise().driver = &driver_;
    driver_.resume = task_.handle();
  }

  bool Progress() override {
    Task::Handle root = task_.handle();
    if (root.done()) return Finished(root);
    std::erase_if(driver_.pending,
                  [&](RequestId id) { return driver_.transport->Test(id); });
    if (!driver_.pending.empty()) return false;
    // Runs until the innermost task waits for requests again or the root
    // task returns.
    driver_.resume.resume();
    return root.done() && Finished(root);
  }

 private:
  static bool Finished(Task::Handle root) {
    if (root.promise().error) std::rethrow_exception(root.promise().error);
    return true;
  }

  TaskDriver driver_;
  Task task_;
};

}  // namespace

std::unique_ptr<Operation> MakeOperation(Transport& t, Task task) {
  return std::make_unique<TaskOperation>(t, std::move(task));
}

}  // namespace bdmpi::coll
