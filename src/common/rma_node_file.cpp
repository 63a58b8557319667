// The window's node file: its locks and regions; see rma_node_file.h.
#include "common/rma_node_file.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace bdmpi::rma {
namespace {

bool Compatible(const TargetState& state, bool exclusive) {
  return exclusive ? state.exclusive < 0 && state.shared == 0 : state.exclusive < 0;
}

void Take(TargetState& state, int rank, bool exclusive) {
  if (exclusive)
    state.exclusive = rank;
  else
    ++state.shared;
}

}  // namespace

void LockControl(ControlBlock* control) {
  if (pthread_mutex_lock(&control->mutex) == EOWNERDEAD) pthread_mutex_consistent(&control->mutex);
}

bool TakeOrQueue(char* mapping, int slot, int rank, bool exclusive) {
  TargetState& state = StatesAt(mapping)[slot];
  if (state.queued == 0 && Compatible(state, exclusive)) {
    Take(state, rank, exclusive);
    return true;
  }
  QueueAt(mapping, slot)[state.queued++] = (rank << 1) | (exclusive ? 1 : 0);
  return false;
}

std::vector<int> ReleaseAndGrant(char* mapping, int slot, bool exclusive) {
  TargetState& state = StatesAt(mapping)[slot];
  if (exclusive)
    state.exclusive = -1;
  else
    --state.shared;
  std::vector<int> granted;
  std::int32_t* queue = QueueAt(mapping, slot);
  while (state.queued > 0) {
    bool wants_exclusive = (queue[0] & 1) != 0;
    if (!Compatible(state, wants_exclusive)) break;
    int waiter = queue[0] >> 1;
    Take(state, waiter, wants_exclusive);
    granted.push_back(waiter);
    std::copy(queue + 1, queue + state.queued, queue);
    --state.queued;
  }
  return granted;
}

bool InAttachedRegion(char* mapping, int slot, std::uint64_t lo, std::uint64_t hi) {
  const TargetState& state = StatesAt(mapping)[slot];
  const Region* regions = RegionsAt(mapping, slot);
  for (int i = 0; i < state.attached; ++i) {
    if (lo >= regions[i].base && hi <= regions[i].base + regions[i].size) return true;
  }
  return false;
}

int MoveFileRuns(int fd, std::uint64_t base, const TargetRun* runs, std::size_t count,
                 std::byte* local, bool to_file) {
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t offset = base + runs[i].offset;
    std::uint64_t left = runs[i].length;
    while (left > 0) {
      ssize_t moved = to_file ? pwrite(fd, local, left, static_cast<off_t>(offset))
                              : pread(fd, local, left, static_cast<off_t>(offset));
      if (moved < 0 && errno == EINTR) continue;
      if (moved < 0) return errno;
      if (moved == 0) return EFAULT;
      local += moved;
      offset += static_cast<std::uint64_t>(moved);
      left -= static_cast<std::uint64_t>(moved);
    }
  }
  return 0;
}

std::string DescribeRmaWait(RmaWait wait, int rank, int detail) {
  std::string of = "rank " + std::to_string(rank);
  switch (wait) {
    case RmaWait::kFence:
      return "MPI_Win_fence";
    case RmaWait::kStart:
      return "MPI_Win_start(waiting for " + of + "'s MPI_Win_post)";
    case RmaWait::kWait:
      return "MPI_Win_wait(waiting for " + of + "'s MPI_Win_complete)";
    case RmaWait::kLock:
      return std::string("MPI_Win_lock(") +
             (detail != 0 ? "MPI_LOCK_EXCLUSIVE, " : "MPI_LOCK_SHARED, ") + of + ")";
    case RmaWait::kLockAll:
      return "MPI_Win_lock_all(waiting for " + of + "'s lock)";
    case RmaWait::kFree:
      return "MPI_Win_free";
    case RmaWait::kOperation:
      break;
    case RmaWait::kNone:
      return "a one-sided call";
  }
  const char* call = "a one-sided operation";
  switch (static_cast<RemoteKind>(detail & ~kFetchBit)) {
    case RemoteKind::kPut: call = "MPI_Put"; break;
    case RemoteKind::kGet: call = "MPI_Get"; break;
    case RemoteKind::kAccumulate:
      call = (detail & kFetchBit) != 0 ? "MPI_Get_accumulate/MPI_Fetch_and_op" : "MPI_Accumulate";
      break;
    case RemoteKind::kCompareAndSwap: call = "MPI_Compare_and_swap"; break;
    case RemoteKind::kLock: call = "MPI_Win_lock"; break;
    case RemoteKind::kUnlock: call = "MPI_Win_unlock"; break;
  }
  return std::string(call) + "(" + of + ", applied by its node's master)";
}

}  // namespace bdmpi::rma
