// MPI_THREAD_SERIALIZED and MPI_THREAD_MULTIPLE: the rank's one lock and
// how a thread waits for the master without holding it.
//
// At MULTIPLE every MPI entry point (Guard, errors.h) takes the rank's
// lock, once per thread however deeply calls nest (callbacks that call
// MPI), so the runtime's state (the handle tables, the request batch, the
// go-queue, the direct table's slave half) has one user at a time, as at
// FUNNELED. The thread that holds it is the only one that talks to the
// master: it posts and reads the reply of each request itself, so no
// reply needs handing to another thread.
//
// A call that would block at the master until something happens elsewhere
// (a receive, a wait, a probe, a synchronous send) does so only when the
// process has one thread: nothing else can then call MPI before it
// returns. With more threads it asks the master's non-blocking twin
// (TestRecv, Iprobe, TestAny, ...), and between two asks it lets go of the
// lock (Unlocked) and pauses (Backoff), so that another thread may send
// the message it waits for. A failed ask lets the node's other runnable
// ranks run first (the master's yield), so the rank keeps its running slot
// only while nobody else wants it. See docs/scheduling-and-memory.md,
// "Threads".
#pragma once

namespace bdmpi {
namespace threads {

// From MPI_Init_thread or MPI_Session_init at MPI_THREAD_MULTIPLE on;
// never off again.
void EnableLock();
bool LockOn();

// Held by Guard for the length of an MPI call: takes the lock at
// MULTIPLE in the thread's outermost call.
class Entry {
 public:
  Entry() {
    if (LockOn()) Enter();
  }
  ~Entry() {
    if (locked_) Leave();
  }
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;

 private:
  void Enter();
  void Leave();
  bool locked_ = false;
};

// While one lives, the calling thread does not hold the lock (if it held
// it): for a wait that other threads' calls must be able to end.
class Unlocked {
 public:
  Unlocked();
  ~Unlocked();
  Unlocked(const Unlocked&) = delete;
  Unlocked& operator=(const Unlocked&) = delete;

 private:
  bool released_ = false;
};

// Whether a call may block at the master: not when another thread of the
// process could need the lock (or the master) before the call returns.
// Counts the process's threads (/proc/self/task) only at MULTIPLE.
bool MayBlockAtMaster();

// Whether the process has threads besides the caller (a switch-out skips
// writing back storage-backed memory that they might be writing).
bool OtherThreadsExist();

// The pause before ask number `round` (0, 1, ...) of a polled wait, with
// the lock released: a yield at first, then sleeps growing to 200 us.
void Backoff(int round);

}  // namespace threads
}  // namespace bdmpi
