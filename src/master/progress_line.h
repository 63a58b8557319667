// --progress: a status line on stderr, rewritten every second by a thread
// of its own from the latest figures the event loop published (the loop
// blocks in mq_receive and has no timer). Cleared when the job ends.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace bdmpi {

struct ProgressFigures {
  int running = 0;
  int runnable = 0;
  int blocked = 0;
  int finished = 0;           // finalized or exited
  std::uint64_t spilled = 0;  // bytes through spill files so far
  std::uint64_t written_back = 0;
  std::string top_call;       // the call most blocked ranks wait in
};

class ProgressLine {
 public:
  // `what`: "" on one node, "node 0 of 2" with several.
  ProgressLine(std::int64_t start_ns, std::string what);
  ~ProgressLine();  // stops the thread and clears the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void Publish(ProgressFigures figures);

 private:
  void Run();
  std::string Line(const ProgressFigures& now, const ProgressFigures& before,
                   double interval_s) const;

  std::int64_t start_ns_;
  std::string what_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  ProgressFigures latest_;
  std::thread thread_;
};

}  // namespace bdmpi
