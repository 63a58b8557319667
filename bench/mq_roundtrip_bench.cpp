// mq_roundtrip_bench -- the raw cost of one slave <-> master exchange.
//
// Process A mq_sends a 128-byte request on queue Q1; process B (forked)
// mq_receives it and mq_sends a 64-byte reply on Q2; A mq_receives the reply.
// That is what a slave and its master do for every blocking MPI call, so one
// round trip here is the floor under BDMPI's slave switch and small-message
// latency (bench/run_runtime_bench.sh divides by it).
//
// Placements: both processes pinned to one core (what the runtime does with
// -nr 1) or to two different cores.  Time is wall-clock per round trip.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

// Sizes of the runtime's request and reply messages.
struct Request {
  uint64_t seq;
  char payload[120];
};
struct Reply {
  uint64_t seq;
  char payload[56];
};
static_assert(sizeof(Request) == 128 && sizeof(Reply) == 64);

constexpr uint64_t kStop = ~uint64_t{0};

std::string ErrnoText(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// A message queue that exists only as an open descriptor: the name is
// unlinked right after creation, so no queue is left behind however the
// benchmark ends (both processes still share it through fork).
class MsgQueue {
 public:
  MsgQueue(const std::string& name, long msgsize) {
    mq_attr attr{};
    attr.mq_maxmsg = 8;
    attr.mq_msgsize = msgsize;
    fd_ = mq_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
    if (fd_ == static_cast<mqd_t>(-1))
      throw std::runtime_error(ErrnoText("mq_open " + name));
    mq_unlink(name.c_str());
  }
  MsgQueue(const MsgQueue&) = delete;
  MsgQueue& operator=(const MsgQueue&) = delete;
  ~MsgQueue() { mq_close(fd_); }

  // Both return false with errno set on failure; EINTR is passed up so the
  // caller can check on the peer.
  bool Send(const void* msg, size_t len) {
    return mq_send(fd_, static_cast<const char*>(msg), len, 0) == 0;
  }
  bool Receive(void* msg, size_t len) {
    ssize_t n = mq_receive(fd_, static_cast<char*>(msg), len, nullptr);
    if (n >= 0 && static_cast<size_t>(n) != len) {
      errno = EMSGSIZE;
      return false;
    }
    return n >= 0;
  }

 private:
  mqd_t fd_;
};

std::string UniqueName(const char* role) {
  static std::atomic<int> counter{0};
  return "/bdmpi-bench-mq-" + std::to_string(getpid()) + "-" +
         std::to_string(counter++) + "-" + role;
}

bool PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

// Restores the calling thread's CPU affinity when the benchmark ends.
class AffinityGuard {
 public:
  AffinityGuard() { ok_ = sched_getaffinity(0, sizeof saved_, &saved_) == 0; }
  ~AffinityGuard() {
    if (ok_) sched_setaffinity(0, sizeof saved_, &saved_);
  }
  std::vector<int> Cpus() const {
    std::vector<int> cpus;
    for (int c = 0; ok_ && c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &saved_)) cpus.push_back(c);
    return cpus;
  }

 private:
  cpu_set_t saved_;
  bool ok_;
};

// While alive, SIGCHLD has a handler without SA_RESTART, so the parent's
// blocking mq_receive returns EINTR if the echo process dies.
class SigchldInterrupts {
 public:
  SigchldInterrupts() {
    struct sigaction sa {};
    sa.sa_handler = [](int) {};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old_);
  }
  ~SigchldInterrupts() { sigaction(SIGCHLD, &old_, nullptr); }
  SigchldInterrupts(const SigchldInterrupts&) = delete;
  SigchldInterrupts& operator=(const SigchldInterrupts&) = delete;

 private:
  struct sigaction old_ {};
};

// Process B: echoes each request's sequence number until kStop.
[[noreturn]] void EchoLoop(MsgQueue& requests, MsgQueue& replies, int cpu,
                           pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent || !PinTo(cpu)) _exit(2);
  Request req{};
  Reply rep{};
  for (;;) {
    if (!requests.Receive(&req, sizeof req)) {
      if (errno == EINTR) continue;
      _exit(3);
    }
    if (req.seq == kStop) _exit(0);
    rep.seq = req.seq;
    while (!replies.Send(&rep, sizeof rep))
      if (errno != EINTR) _exit(4);
  }
}

// The forked echo process; killed and reaped on destruction unless it
// already exited.
class EchoProcess {
 public:
  EchoProcess(MsgQueue& requests, MsgQueue& replies, int cpu) {
    pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(ErrnoText("fork"));
    if (pid_ == 0) EchoLoop(requests, replies, cpu, parent);
  }
  EchoProcess(const EchoProcess&) = delete;
  EchoProcess& operator=(const EchoProcess&) = delete;
  ~EchoProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }

  // True if the process has ended; reaps it (status in *status).
  bool Exited(int* status) {
    if (pid_ <= 0) return true;
    if (waitpid(pid_, status, WNOHANG) != pid_) return false;
    pid_ = -1;
    return true;
  }

  // Waits for a clean exit after kStop; false if it failed.
  bool Join() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0)
      if (errno != EINTR) return false;
    pid_ = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

 private:
  pid_t pid_ = -1;
};

enum class Placement { kSameCore, kDifferentCores };

void BM_MqRoundTrip(benchmark::State& state, Placement placement) {
  AffinityGuard affinity;
  std::vector<int> cpus = affinity.Cpus();
  if (cpus.empty() ||
      (placement == Placement::kDifferentCores && cpus.size() < 2)) {
    state.SkipWithError("not enough CPUs in the affinity mask");
    return;
  }
  int cpu_a = cpus[0];
  int cpu_b = placement == Placement::kSameCore ? cpus[0] : cpus[1];
  try {
    SigchldInterrupts sigchld;
    MsgQueue requests(UniqueName("req"), sizeof(Request));
    MsgQueue replies(UniqueName("rep"), sizeof(Reply));
    EchoProcess echo(requests, replies, cpu_b);
    if (!PinTo(cpu_a)) throw std::runtime_error(ErrnoText("sched_setaffinity"));

    Request req{};
    Reply rep{};
    uint64_t seq = 0;
    for (auto _ : state) {
      req.seq = ++seq;
      while (!requests.Send(&req, sizeof req))
        if (errno != EINTR) throw std::runtime_error(ErrnoText("mq_send"));
      while (!replies.Receive(&rep, sizeof rep)) {
        int status;
        if (errno != EINTR) throw std::runtime_error(ErrnoText("mq_receive"));
        if (echo.Exited(&status))
          throw std::runtime_error("echo process died, status " +
                                   std::to_string(status));
      }
      if (rep.seq != seq) throw std::runtime_error("reply out of sequence");
    }
    req.seq = kStop;
    if (!requests.Send(&req, sizeof req) || !echo.Join())
      throw std::runtime_error("echo process did not stop cleanly");
    state.SetLabel("cpu " + std::to_string(cpu_a) + "<->" +
                   std::to_string(cpu_b));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

BENCHMARK_CAPTURE(BM_MqRoundTrip, same_core, Placement::kSameCore)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_MqRoundTrip, different_cores, Placement::kDifferentCores)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
