#include "slave/runtime/threads.h"

#include <sched.h>
#include <sys/stat.h>
#include <time.h>

#include <atomic>
#include <mutex>

namespace bdmpi {
namespace threads {
namespace {

std::atomic<bool> g_lock_on{false};

std::mutex& RankLock() {
  static std::mutex lock;
  return lock;
}

// MPI calls of this thread under way, outermost first: only the outermost
// takes the lock. `holding`: whether it holds it now (an Unlocked lets go).
thread_local int t_depth = 0;
thread_local bool t_holding = false;

// The process's threads: the task directory has two links more than that.
// One stat of procfs, about a microsecond; only blocking calls at MULTIPLE
// ask.
long ThreadCount() {
  struct stat task {};
  if (stat("/proc/self/task", &task) != 0) return 2;  // unknown: assume others
  return static_cast<long>(task.st_nlink) - 2;
}

}  // namespace

void EnableLock() { g_lock_on.store(true, std::memory_order_release); }

bool LockOn() { return g_lock_on.load(std::memory_order_acquire); }

void Entry::Enter() {
  locked_ = true;
  if (t_depth++ > 0) return;
  RankLock().lock();
  t_holding = true;
}

void Entry::Leave() {
  if (--t_depth > 0) return;
  if (t_holding) RankLock().unlock();
  t_holding = false;
}

Unlocked::Unlocked() {
  if (!t_holding) return;
  RankLock().unlock();
  t_holding = false;
  released_ = true;
}

Unlocked::~Unlocked() {
  if (!released_) return;
  RankLock().lock();
  t_holding = true;
}

bool MayBlockAtMaster() { return !LockOn() || ThreadCount() <= 1; }

bool OtherThreadsExist() { return ThreadCount() > 1; }

void Backoff(int round) {
  if (round < 8) {
    sched_yield();
    return;
  }
  long micros = 10L << (round - 8 < 5 ? round - 8 : 5);  // 10 .. 320
  if (micros > 200) micros = 200;
  timespec pause{0, micros * 1000};
  nanosleep(&pause, nullptr);
}

}  // namespace threads
}  // namespace bdmpi
