// RMA synchronization; see sync.h.
#include "slave/rma/sync.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/rma/remote.h"

namespace bdmpi::rma {
namespace {

// Tags of the window's own communicator.
constexpr int kTagPost = 1;      // target -> origin: MPI_Win_post
constexpr int kTagComplete = 2;  // origin -> target: MPI_Win_complete
// 16 and up: GrantTag (remote.h), a passive-target lock granted.
constexpr int kTagYield = 4;     // never sent: probed for to yield
constexpr int kTagFenceWake = 5; // last rank into a node's fence -> its sleepers

constexpr int kKnownAsserts =
    MPI_MODE_NOCHECK | MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT | MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED;

void Barrier() { std::atomic_thread_fence(std::memory_order_seq_cst); }

void CheckAssert(int assert) {
  if ((assert & ~kKnownAsserts) != 0)
    throw Error(MPI_ERR_ASSERT, "unknown assertion bits " + std::to_string(assert & ~kKnownAsserts));
}

void CheckTargetRank(const Window& win, int rank) {
  if (rank < 0 || rank >= win.size)
    throw Error(MPI_ERR_RANK,
                "rank " + std::to_string(rank) + " is not in the window (" + std::to_string(win.size) +
                    " ranks)");
}

// The window ranks of `group`'s members.
std::vector<int> RanksOf(const Window& win, MPI_Group group) {
  int n = 0;
  Check(PMPI_Group_size(group, &n), "MPI_Group_size");
  std::vector<int> in(static_cast<std::size_t>(n));
  std::vector<int> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  MPI_Group own = MPI_GROUP_NULL;
  Check(PMPI_Comm_group(win.comm, &own), "MPI_Comm_group");
  int code = PMPI_Group_translate_ranks(group, n, in.data(), own, out.data());
  PMPI_Group_free(&own);
  Check(code, "MPI_Group_translate_ranks");
  for (int r : out)
    if (r == MPI_UNDEFINED)
      throw Error(MPI_ERR_GROUP, "the group holds a process that is not in the window");
  return out;
}

void Notify(const Window& win, int rank, int tag) {
  Check(PMPI_Send(nullptr, 0, MPI_BYTE, rank, tag, win.comm), "MPI_Send");
}

// Waits for a message of the window's communicator in the one-sided call
// `wait` (for rank `rank`), which the deadlock report names.
void Await(const Window& win, int source, int tag, RmaWait wait, int rank, int detail = 0) {
  TellWait(win, wait, rank, detail);
  Check(PMPI_Recv(nullptr, 0, MPI_BYTE, source, tag, win.comm, MPI_STATUS_IGNORE), "MPI_Recv");
}

// Takes a lock on a target of this node, waiting (a blocking point)
// behind the queue. Another node's target's lock goes with the epoch's
// first batch of operations to it (remote.h).
void Acquire(Window& win, int target, bool exclusive, RmaWait wait) {
  bool taken = false;
  {
    ControlLock lock(win.control);
    taken = TakeOrQueue(win.mapping, win.peers[static_cast<std::size_t>(target)].slot, win.rank,
                        exclusive);
  }
  // Else the rank that releases it takes it for us and says so.
  if (!taken) Await(win, MPI_ANY_SOURCE, GrantTag(target), wait, target, exclusive ? 1 : 0);
}

void Release(Window& win, int target, bool exclusive) {
  std::vector<int> granted;
  {
    ControlLock lock(win.control);
    granted =
        ReleaseAndGrant(win.mapping, win.peers[static_cast<std::size_t>(target)].slot, exclusive);
  }
  for (int waiter : granted) Notify(win, waiter, GrantTag(target));
}

// Programs wait for another rank's store by polling their memory with
// MPI_Win_sync, a get with a flush, or a lock, a get and an unlock, in a
// loop: an empty probe lets the master run the others first, as it does
// for MPI_Iprobe, or with -nr 1 the rank that would store never runs.
// A yield costs a round trip to the master, so only every kPollsPerYield-th
// flush or sync, and every kUnlocksPerYield-th unlock, yields: a polling
// loop still lets the others run, a flush per operation costs little.
// The yield also sends the operations still batched for other nodes'
// targets (SendPendingRemote): the store the loop polls for may wait on
// one of them.
constexpr unsigned kPollsPerYield = 32;
// An empty lock epoch costs a microsecond or less: a yield every 32nd
// would triple it.
constexpr unsigned kUnlocksPerYield = 256;

void Yield(Window& win, unsigned* count = nullptr, unsigned every = kPollsPerYield) {
  if (++*(count != nullptr ? count : &win.polls) % every != 0) return;
  SendPendingRemote(win);
  int flag = 0;
  Check(PMPI_Iprobe(MPI_ANY_SOURCE, kTagYield, win.comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
}

bool InPassiveEpoch(const Window& win) { return win.lock_all || !win.locks.empty(); }

// The fence of a window whose ranks are all on this node: a barrier in
// the node's file, no message when the ranks run together. The last rank
// to arrive starts the next epoch (a new generation); the others poll for
// it briefly (Window::fence_poll_us), then, if it has not come, sign up as sleepers (under the
// mutex, so the last rank cannot miss them) and wait in a receive for its
// message: with fewer running slots than ranks the master must run the
// others, which only a blocking call lets it do.
void NodeFence(Window& win) {
  ControlBlock* control = win.control;
  std::atomic_ref<std::uint32_t> generation(control->fence_generation);
  std::atomic_ref<std::uint32_t> arrived(control->fence_arrived);
  std::uint32_t epoch = generation.load(std::memory_order_acquire);
  if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<std::uint32_t>(win.size)) {
    arrived.store(0, std::memory_order_relaxed);
    std::vector<int> sleepers;
    {
      ControlLock lock(control);
      generation.store(epoch + 1, std::memory_order_release);
      std::int32_t* listed = FenceSleepersAt(win.mapping);
      sleepers.assign(listed, listed + control->fence_sleepers);
      control->fence_sleepers = 0;
    }
    for (int sleeper : sleepers) Notify(win, sleeper, kTagFenceWake);
    return;
  }
  // A busy poll: sched_yield on a loaded machine gives the core away for
  // a whole time slice, far longer than the poll.
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(win.fence_poll_us);
  while (generation.load(std::memory_order_acquire) == epoch &&
         std::chrono::steady_clock::now() < until) {
  }
  if (generation.load(std::memory_order_acquire) != epoch) return;
  bool sleep = false;
  {
    ControlLock lock(control);
    if (generation.load(std::memory_order_acquire) == epoch) {
      FenceSleepersAt(win.mapping)[control->fence_sleepers++] = win.rank;
      sleep = true;
    }
  }
  if (sleep) Await(win, MPI_ANY_SOURCE, kTagFenceWake, RmaWait::kFence, -1);
}

}  // namespace

void Fence(Window& win, int assert) {
  CheckAssert(assert);
  if (win.started || win.posted || InPassiveEpoch(win))
    throw Error(MPI_ERR_RMA_SYNC,
                "MPI_Win_fence inside a post/start or lock epoch of the same window");
  // The epoch's operations on other nodes' targets are complete first.
  FlushRemote(win, -1, false);
  Barrier();
  if (win.one_node) {
    NodeFence(win);
  } else {
    TellWait(win, RmaWait::kFence, -1, 0);
    Check(PMPI_Barrier(win.comm), "MPI_Barrier");
  }
  Barrier();
  win.fence_epoch = (assert & MPI_MODE_NOSUCCEED) == 0;
}

void Post(Window& win, MPI_Group group, int assert) {
  CheckAssert(assert);
  if (win.posted) throw Error(MPI_ERR_RMA_SYNC, "MPI_Win_post: the window is already exposed");
  std::vector<int> origins = RanksOf(win, group);
  Barrier();
  if ((assert & MPI_MODE_NOCHECK) == 0)
    for (int origin : origins) Notify(win, origin, kTagPost);
  win.posted = true;
  win.exposure_waiting = std::move(origins);
}

void Start(Window& win, MPI_Group group, int assert) {
  CheckAssert(assert);
  if (win.started) throw Error(MPI_ERR_RMA_SYNC, "MPI_Win_start: an access epoch is already open");
  std::vector<int> targets = RanksOf(win, group);
  if ((assert & MPI_MODE_NOCHECK) == 0)
    for (int target : targets) Await(win, target, kTagPost, RmaWait::kStart, target);
  Barrier();
  win.started = true;
  win.access_group = std::move(targets);
}

void Complete(Window& win) {
  if (!win.started) throw Error(MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start");
  for (int target : win.access_group)
    if (OnOtherNode(win, target)) FlushRemote(win, target, false);
  Barrier();
  for (int target : win.access_group) Notify(win, target, kTagComplete);
  win.started = false;
  win.access_group.clear();
}

void Wait(Window& win) {
  if (!win.posted) throw Error(MPI_ERR_RMA_SYNC, "MPI_Win_wait without MPI_Win_post");
  for (int origin : win.exposure_waiting) Await(win, origin, kTagComplete, RmaWait::kWait, origin);
  Barrier();
  win.posted = false;
  win.exposure_waiting.clear();
}

bool Test(Window& win) {
  if (!win.posted) throw Error(MPI_ERR_RMA_SYNC, "MPI_Win_test without MPI_Win_post");
  auto& waiting = win.exposure_waiting;
  for (auto it = waiting.begin(); it != waiting.end();) {
    int flag = 0;
    Check(PMPI_Iprobe(*it, kTagComplete, win.comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
    if (flag) {
      Await(win, *it, kTagComplete, RmaWait::kWait, *it);
      it = waiting.erase(it);
    } else {
      ++it;
    }
  }
  if (!waiting.empty()) return false;
  Barrier();
  win.posted = false;
  return true;
}

void Lock(Window& win, int lock_type, int target, int assert) {
  CheckAssert(assert);
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
    throw Error(MPI_ERR_LOCKTYPE, "the lock type is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED");
  if (target == MPI_PROC_NULL) return;
  CheckTargetRank(win, target);
  if (win.lock_all || win.locks.count(target) != 0)
    throw Error(MPI_ERR_RMA_SYNC,
                "rank " + std::to_string(target) + " is already locked by this rank in this window");
  bool nocheck = (assert & MPI_MODE_NOCHECK) != 0;
  if (!nocheck && OnOtherNode(win, target))
    LockLater(win, target, lock_type, false);
  else if (!nocheck)
    Acquire(win, target, lock_type == MPI_LOCK_EXCLUSIVE, RmaWait::kLock);
  Barrier();
  win.locks[target] = lock_type | (nocheck ? kNoCheck : 0);
}

void Unlock(Window& win, int target) {
  if (target == MPI_PROC_NULL) return;
  CheckTargetRank(win, target);
  auto found = win.locks.find(target);
  if (found == win.locks.end())
    throw Error(MPI_ERR_RMA_SYNC,
                "MPI_Win_unlock: rank " + std::to_string(target) + " is not locked by this rank");
  Barrier();
  int lock = found->second;
  win.locks.erase(found);
  if (OnOtherNode(win, target))
    EndRemote(win, target);
  else if ((lock & kNoCheck) == 0)
    Release(win, target, (lock & ~kNoCheck) == MPI_LOCK_EXCLUSIVE);
  // Programs poll with lock, get, unlock too (MPICH's linked-list tests).
  Yield(win, &win.unlocks, kUnlocksPerYield);
}

void LockAll(Window& win, int assert) {
  CheckAssert(assert);
  if (InPassiveEpoch(win))
    throw Error(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all: this rank already holds locks in the window");
  bool nocheck = (assert & MPI_MODE_NOCHECK) != 0;
  if (!nocheck)
    for (int target = 0; target < win.size; ++target) {
      if (OnOtherNode(win, target))
        LockLater(win, target, MPI_LOCK_SHARED, true);
      else
        Acquire(win, target, false, RmaWait::kLockAll);
    }
  Barrier();
  win.lock_all = true;
  win.lock_all_nocheck = nocheck;
}

void UnlockAll(Window& win) {
  if (!win.lock_all) throw Error(MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all without MPI_Win_lock_all");
  Barrier();
  win.lock_all = false;
  // Every target is released even when one's batch fails: the first error
  // is raised after.
  // This node's targets first: their operations are complete, and their
  // waiters need not wait for the other nodes' answers.
  std::optional<Error> failed;
  for (int target = 0; target < win.size; ++target) {
    try {
      if (!OnOtherNode(win, target) && !win.lock_all_nocheck) Release(win, target, false);
    } catch (const Error& error) {
      if (!failed) failed = error;
    }
  }
  try {
    EndRemoteAll(win);
  } catch (const Error& error) {
    if (!failed) failed = error;
  }
  if (failed) throw *failed;
  Yield(win, &win.unlocks, kUnlocksPerYield);
}

void Flush(Window& win, int target, bool local) {
  if (target >= 0) {
    CheckTargetRank(win, target);
    if (!win.lock_all && win.locks.count(target) == 0)
      throw Error(MPI_ERR_RMA_SYNC, "flushing rank " + std::to_string(target) +
                                        " outside a passive-target epoch to it");
  } else if (!InPassiveEpoch(win)) {
    throw Error(MPI_ERR_RMA_SYNC, "flushing outside a passive-target epoch");
  }
  if (target < 0 || OnOtherNode(win, target)) FlushRemote(win, target, local);
  Barrier();
  Yield(win);
}

void Sync(Window& win) {
  Barrier();
  Yield(win);
}

}  // namespace bdmpi::rma
