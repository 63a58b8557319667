#include "master/launch/event_watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <utility>

#include "common/error.h"
#include "common/protocol.h"

namespace bdmpi {
namespace {

// Tags above every slave index.
constexpr std::uint64_t kTagSignal = ~std::uint64_t{0};
constexpr std::uint64_t kTagStop = kTagSignal - 1;

void Add(int epoll_fd, int fd, std::uint64_t tag, std::uint32_t events) {
  epoll_event event{};
  event.events = events;
  event.data.u64 = tag;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0)
    ThrowSystemError("epoll_ctl", errno);
}

}  // namespace

EventWatcher::EventWatcher(const std::string& request_queue, std::uint32_t token)
    // Non-blocking: when the queue is full the thread must still notice a
    // stop request (the event loop may have stopped draining it).
    : queue_(MessageQueue::Open(request_queue, O_WRONLY | O_NONBLOCK)), token_(token) {
  // Each descriptor is owned as soon as it exists: a later failure here
  // throws, and the members opened so far close themselves.
  epoll_fd_.reset(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_fd_) ThrowSystemError("epoll_create1", errno);
  sigset_t signals;
  sigemptyset(&signals);
  // SIGUSR1: print the ranks' status (Master::PrintRankStatus). SIGUSR2:
  // bdmpiexec, signalled, ends the job through srun (Master::OnEvent).
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) sigaddset(&signals, sig);
  signal_fd_.reset(signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signal_fd_) ThrowSystemError("signalfd", errno);
  stop_fd_.reset(eventfd(0, EFD_CLOEXEC));
  if (!stop_fd_) ThrowSystemError("eventfd", errno);
  Add(epoll_fd_.get(), signal_fd_.get(), kTagSignal, EPOLLIN);
  Add(epoll_fd_.get(), stop_fd_.get(), kTagStop, EPOLLIN);
}

EventWatcher::~EventWatcher() {
  if (thread_.joinable()) {
    std::uint64_t one = 1;
    // An eventfd write of 1 cannot fail short of a bad descriptor.
    ssize_t ignored = write(stop_fd_.get(), &one, sizeof one);
    (void)ignored;
    thread_.join();
  }
}

void EventWatcher::WatchChild(UniqueFd pidfd, int slave) {
  // A pidfd stays readable after the exit: report it once.
  Add(epoll_fd_.get(), pidfd.get(), static_cast<std::uint64_t>(slave),
      EPOLLIN | EPOLLONESHOT);
  pidfds_[slave] = std::move(pidfd);
}

void EventWatcher::Start() { thread_ = std::thread([this] { Run(); }); }

void EventWatcher::Run() {
  epoll_event events[16];
  for (;;) {
    int n = epoll_wait(epoll_fd_.get(), events, 16, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    for (int i = 0; i < n; ++i) {
      std::uint64_t tag = events[i].data.u64;
      if (tag == kTagStop) return;
      if (tag == kTagSignal) {
        signalfd_siginfo info{};
        while (read(signal_fd_.get(), &info, sizeof info) == sizeof info)
          Report(-1, static_cast<int>(info.ssi_signo), static_cast<int>(info.ssi_pid));
      } else {
        Report(static_cast<int>(tag), 0, 0);
      }
    }
  }
}

void EventWatcher::Report(int slave, int signal, int sender) {
  RequestMsg event;
  event.type = MsgType::kEvent;
  event.token = token_;
  event.peer = slave;
  event.code = signal;
  event.tag = sender;
  RequestBatch message;
  message.Append(event, nullptr);
  try {
    while (!queue_.TrySend(message.data(), message.size())) {
      pollfd stop{stop_fd_.get(), POLLIN, 0};
      if (poll(&stop, 1, 1) > 0) return;  // shutting down: nobody listens
    }
  } catch (const Error&) {
    // The queue is gone only when the master is shutting down.
  }
}

}  // namespace bdmpi
