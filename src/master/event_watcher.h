// A thread that turns slave exits (pidfds) and signals (a signalfd) into
// kEvent messages on the master's own request queue, so that the event loop
// blocks in a single mq_receive instead of polling several descriptors:
// the request path is the hot path.
#pragma once

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/message_queue.h"

namespace bdmpi {

class EventWatcher {
 public:
  // Reports to the queue `request_queue`, stamping each event with `token`
  // (the master's own: slaves share that queue); watches SIGTERM, SIGINT,
  // SIGHUP, which the caller must have blocked in every thread.
  EventWatcher(const std::string& request_queue, std::uint32_t token);
  ~EventWatcher();
  EventWatcher(const EventWatcher&) = delete;
  EventWatcher& operator=(const EventWatcher&) = delete;

  // Reports once when the process behind `pidfd` exits; takes the fd.
  void WatchChild(int pidfd, int slave);
  void Start();

 private:
  void Run();
  void Report(int slave, int signal);

  MessageQueue queue_;
  std::uint32_t token_;
  int epoll_fd_ = -1;
  int signal_fd_ = -1;
  int stop_fd_ = -1;  // eventfd that ends the thread
  std::vector<int> pidfds_;
  std::thread thread_;
};

}  // namespace bdmpi
