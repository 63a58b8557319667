#include "master/observe/progress_line.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "common/run_report.h"
#include "master/observe/job_recorder.h"

namespace bdmpi {

ProgressLine::ProgressLine(std::int64_t start_ns, std::function<NodeProgress()> job)
    : start_ns_(start_ns), job_(std::move(job)), thread_([this] { Run(); }) {}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
  // "\r" and erase to the end of the line: the next output starts clean.
  static const char kClear[] = "\r\033[K";
  ssize_t ignored = write(STDERR_FILENO, kClear, sizeof kClear - 1);
  (void)ignored;
}

void ProgressLine::Publish(const NodeProgress& figures) {
  std::lock_guard<std::mutex> lock(mutex_);
  latest_ = figures;
}

void ProgressLine::Run() {
  constexpr auto kInterval = std::chrono::seconds(1);
  NodeProgress before;
  for (;;) {
    NodeProgress now;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (stop_cv_.wait_for(lock, kInterval, [this] { return stop_; })) return;
      now = latest_;
    }
    if (job_) now = job_();
    std::string line = Line(now, before, 1.0);
    before = now;
    ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
  }
}

std::string ProgressLine::Line(const NodeProgress& now, const NodeProgress& before,
                               double interval_s) const {
  double elapsed = static_cast<double>(MonotonicNs() - start_ns_) / 1e9;
  double spill_rate = static_cast<double>(now.spilled - before.spilled) / interval_s;
  double back_rate = static_cast<double>(now.written_back - before.written_back) / interval_s;
  char text[512];
  std::snprintf(text, sizeof text,
                "\r\033[Kbdmpi: %.0f s, ranks %d running %d runnable %d blocked %d done; "
                "spill %s (%s/s), written back %s (%s/s)%s%s",
                elapsed, now.running, now.runnable,
                now.blocked, now.finished, HumanBytes(now.spilled).c_str(),
                HumanBytes(static_cast<std::uint64_t>(spill_rate)).c_str(),
                HumanBytes(now.written_back).c_str(),
                HumanBytes(static_cast<std::uint64_t>(back_rate)).c_str(),
                now.top_call[0] == '\0' ? "" : "; most wait in ", now.top_call);
  return text;
}

}  // namespace bdmpi
