// --progress: a status line on stderr, rewritten every second by a thread
// of its own (the event loop blocks in mq_receive and has no timer), from
// the figures the event loop published or, with several nodes, from the
// job's sum that node 0's network thread keeps (Network::JobProgress).
// Cleared when the job ends.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "master/network/wire.h"

namespace bdmpi {

class ProgressLine {
 public:
  // `job`: where the job's figures come from; empty: from Publish.
  ProgressLine(std::int64_t start_ns, std::function<NodeProgress()> job);
  ~ProgressLine();  // stops the thread and clears the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void Publish(const NodeProgress& figures);

 private:
  void Run();
  std::string Line(const NodeProgress& now, const NodeProgress& before, double interval_s) const;

  std::int64_t start_ns_;
  std::function<NodeProgress()> job_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  NodeProgress latest_;
  std::thread thread_;
};

}  // namespace bdmpi
