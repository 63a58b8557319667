// A thread that turns slave exits (pidfds) and signals (a signalfd) into
// kEvent messages on the master's own request queue, so that the event loop
// blocks in a single mq_receive instead of polling several descriptors:
// the request path is the hot path.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/file_io.h"
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
  void WatchChild(UniqueFd pidfd, int slave);
  void Start();

 private:
  void Run();
  // A signal's event carries its sender's pid in `tag` (SIGUSR1: whom the
  // status answers, common/status_reply.h).
  void Report(int slave, int signal, int sender);

  // Members are destroyed in reverse: the thread (joined by the destructor)
  // goes before the descriptors it waits on.
  MessageQueue queue_;
  std::uint32_t token_;
  UniqueFd epoll_fd_;
  UniqueFd signal_fd_;
  UniqueFd stop_fd_;  // eventfd that ends the thread
  // By slave: a slot's next process closes its last one's.
  std::map<int, UniqueFd> pidfds_;
  std::thread thread_;
};

}  // namespace bdmpi
