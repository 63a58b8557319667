// One-sided communication: what the ranks of a node and their master share
// of a window (docs/one-sided.md). Every window has, per node, one file in
// the node's spill directory: a control block (a robust process-shared
// mutex, each local rank's passive-target lock state and lock queue, each
// local rank's attached regions) and, for MPI_Win_allocate and
// MPI_Win_allocate_shared, the local ranks' window memory. The ranks map
// it; a master maps it to apply the operations of origins on other nodes
// (master/rma/rma_forward.h), which reach it as RemoteOp messages.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace bdmpi::rma {

// Attached regions a rank of a dynamic window may have at once (more is
// MPI_ERR_RMA_ATTACH); 16 KiB of the control block per rank.
inline constexpr int kMaxAttached = 1024;

struct Region {
  std::uint64_t base = 0;  // address in the target's process
  std::uint64_t size = 0;
};

// What the control block holds for one rank of the window on this node.
struct TargetState {
  std::int32_t exclusive = -1;  // window rank holding it exclusively
  std::int32_t shared = 0;      // holders of shared locks
  std::int32_t queued = 0;      // waiters in `queue` (its first entries)
  std::int32_t attached = 0;    // regions attached (dynamic windows)
  // MPI_Win_allocate: the rank's window memory (its segment of the file)
  // is written back and dropped, the rank switched out. Others then reach
  // it with pread/pwrite on the file rather than through their mappings,
  // which would keep its pages in memory (an atomic: written by the
  // rank, read by the others without the mutex).
  std::uint32_t released = 0;
  std::uint32_t pad = 0;
};

// The start of the node's file. After it: the states, one per local rank;
// the fence's sleepers, one entry per local rank; the lock queues, for
// each local rank window-size entries of (rank << 1 | exclusive); for a
// dynamic window, kMaxAttached regions per local rank.
struct ControlBlock {
  pthread_mutex_t mutex;  // robust, process-shared; guards all of it
  std::int32_t local_ranks = 0;
  std::int32_t window_size = 0;
  // The fence of a window whose ranks are all on this node
  // (slave/rma/sync.cpp): ranks arrived, the epoch's number (atomics), and
  // how many ranks wait in a receive for the last one's message (mutex).
  std::uint32_t fence_arrived = 0;
  std::uint32_t fence_generation = 0;
  std::int32_t fence_sleepers = 0;
};

inline TargetState* StatesAt(char* mapping) {
  return reinterpret_cast<TargetState*>(mapping + sizeof(ControlBlock));
}

inline std::int32_t* FenceSleepersAt(char* mapping) {
  const auto* control = reinterpret_cast<const ControlBlock*>(mapping);
  return reinterpret_cast<std::int32_t*>(
      mapping + sizeof(ControlBlock) +
      static_cast<std::size_t>(control->local_ranks) * sizeof(TargetState));
}

inline std::int32_t* QueueAt(char* mapping, int slot) {
  const auto* control = reinterpret_cast<const ControlBlock*>(mapping);
  return FenceSleepersAt(mapping) + static_cast<std::size_t>(control->local_ranks) +
         static_cast<std::size_t>(slot) * static_cast<std::size_t>(control->window_size);
}

inline std::uint64_t RegionsOffset(int local_ranks, int window_size) {
  std::uint64_t at = sizeof(ControlBlock) +
                     static_cast<std::uint64_t>(local_ranks) * sizeof(TargetState) +
                     static_cast<std::uint64_t>(local_ranks) * sizeof(std::int32_t) +
                     static_cast<std::uint64_t>(local_ranks) *
                         static_cast<std::uint64_t>(window_size) * sizeof(std::int32_t);
  return (at + alignof(Region) - 1) / alignof(Region) * alignof(Region);
}

inline Region* RegionsAt(char* mapping, int slot) {
  const auto* control = reinterpret_cast<const ControlBlock*>(mapping);
  return reinterpret_cast<Region*>(mapping +
                                   RegionsOffset(control->local_ranks, control->window_size)) +
         static_cast<std::size_t>(slot) * kMaxAttached;
}

// Takes the mutex (a holder that died leaves it to the next: the job ends
// for that anyway).
void LockControl(ControlBlock* control);

// Passive-target locks, with the control block's mutex held. TakeOrQueue:
// true when `rank` now holds slot's lock, false when it was queued (the
// rank that releases the lock before it grants it with a message).
bool TakeOrQueue(char* mapping, int slot, int rank, bool exclusive);
// Releases a lock of slot's and takes it for the waiters it can have now,
// in queue order (a run of shared ones, or one exclusive): returns them.
std::vector<int> ReleaseAndGrant(char* mapping, int slot, bool exclusive);

// Whether [lo, hi) lies in one region slot attached (mutex held).
bool InAttachedRegion(char* mapping, int slot, std::uint64_t lo, std::uint64_t hi);

struct TargetRun;
// Moves the bytes of `runs` (count of them, at file offsets base +
// run.offset) between `local` (contiguous) and the window's file `fd`:
// into the file when `to_file`, else out of it (pwrite / pread, resumed
// after a partial transfer or EINTR). Returns 0, or the errno (EFAULT for
// a run past the end of the file).
int MoveFileRuns(int fd, std::uint64_t base, const TargetRun* runs, std::size_t count,
                 std::byte* local, bool to_file);

// Operations on a target of another node, sent by their origin on the
// window's communicator to the target with tag kTagRemoteOp, in one
// message per flush or epoch end (a batch: one or more records, each a
// RemoteOp, its runs and its data); the target's master takes it out of
// the message stream, applies its records in order without the target
// running and answers the origin with tag kTagRemoteReply (a RemoteReply,
// then the data fetched, then the ranks an unlock granted the lock to).
// Both tags are negative, so no program's message carries them.
inline constexpr int kTagRemoteOp = -0x5241;
inline constexpr int kTagRemoteReply = -0x5242;

enum class RemoteKind : std::int32_t {
  kPut = 1,
  kGet = 2,
  kAccumulate = 3,  // with fetch when `fetch`: Get_accumulate, Fetch_and_op
  kCompareAndSwap = 4,
  kLock = 5,        // only a batch's first record: when queued, the rest waits
  kUnlock = 6,      // only a batch's last record
};

// One record of a batch. Followed by `runs` TargetRuns (where the
// target's bytes are, relative to `base`), then `data_bytes` of data: a
// put's or an accumulate's origin elements in wire form; a
// compare-and-swap's compare value, then its new value.
struct RemoteOp {
  RemoteKind kind = RemoteKind::kPut;
  std::int32_t target = 0;       // window rank
  std::int32_t slot = 0;         // the target's index among its node's ranks
  std::int32_t pid = 0;          // the target's process, for program memory
  std::uint64_t file_id = 0;     // the window's file on the target's node
  std::uint64_t file_inode = 0;
  std::uint64_t file_bytes = 0;  // its size
  // Where the runs start: an offset in the file (in_file), else an
  // address in the target's process.
  std::uint64_t base = 0;
  std::int32_t in_file = 0;
  std::int32_t dynamic = 0;      // check the runs against attached regions
  std::int32_t fetch = 0;        // accumulate: answer the target's old bytes
  std::int32_t exclusive = 0;    // lock, unlock
  std::int32_t rank = 0;         // lock, unlock: the origin's window rank
  std::uint16_t datatype = 0;    // accumulate: DatatypeId of its elements
  std::uint16_t op = 0;          // accumulate: OpId
  std::uint64_t runs = 0;
  std::uint64_t bytes = 0;       // target bytes the runs cover
  std::uint64_t data_bytes = 0;
};

struct TargetRun {
  std::uint64_t offset = 0;  // from RemoteOp::base
  std::uint64_t length = 0;
};

// The answer to a batch. Followed by `fetched` bytes (those of its gets,
// fetching accumulates and compare-and-swaps, in record order), then
// `granted` int32 window ranks its unlock granted the lock to. After an
// error the records that follow are not applied, but its unlock is.
struct RemoteReply {
  std::int32_t error = 0;        // MPI error class, 0 when applied
  std::int32_t lock_queued = 0;  // its lock is queued: nothing after it applied
  std::uint64_t fetched = 0;
  std::uint64_t granted = 0;
  char text[240] = {};           // why, when error != 0
};

// What a rank waits for in a one-sided call. It tells its master
// (MsgType::kRmaWaitIn, RmaWaitArgs) before it waits on the window's
// communicator, so that the deadlock report names the call rather than the
// receive or barrier it waits in.
enum class RmaWait : std::int32_t {
  kNone = 0,
  kFence = 1,      // the others' fences
  kStart = 2,      // `rank`'s MPI_Win_post
  kWait = 3,       // `rank`'s MPI_Win_complete
  kLock = 4,       // `rank`'s lock (detail: 1 exclusive, 0 shared)
  kLockAll = 5,    // `rank`'s shared lock
  kFree = 6,       // the others' MPI_Win_free
  kOperation = 7,  // `rank`'s master applying an operation (detail: RemoteKind,
                   // plus kFetchBit for a fetching accumulate)
};
inline constexpr int kFetchBit = 0x100;

// "MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank 0)", for the deadlock report.
std::string DescribeRmaWait(RmaWait wait, int rank, int detail);

static_assert(std::is_trivially_copyable_v<RemoteOp>);
static_assert(std::is_trivially_copyable_v<RemoteReply>);

}  // namespace bdmpi::rma
