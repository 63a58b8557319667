// One-sided communication: windows (MPI-3.1 chapter 11). The design, and
// why, is in docs/one-sided.md. In short: every window has, per node, one
// file in the node's spill directory that all of the window's ranks of the
// node map MAP_SHARED (common/rma_node_file.h). It starts with a control
// block (a process-shared mutex, each rank's lock state and lock queue,
// each rank's attached regions) and, for MPI_Win_allocate and
// MPI_Win_allocate_shared, holds the ranks' window memory after it. An
// origin applies an operation on its node itself, with no help from the
// target: to memory in the file with memcpy through its own mapping (or
// pread/pwrite on the file while an MPI_Win_allocate target is switched
// out and its memory written back), to memory in the target's process
// (MPI_Win_create, MPI_Win_attach) with process_vm_readv/writev. The
// target's master applies those of origins on other nodes. So a
// switched-out target never runs for it.
#pragma once

#include <mpi.h>
#include <pthread.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/rma_node_file.h"
#include "common/unique_fd.h"
#include "slave/memory/arena.h"

namespace bdmpi {
struct TypeInfo;
}

namespace bdmpi::rma {

inline constexpr int kNoCheck = 0x100;

// A failed MPI call the window code makes itself, as an error (bdmpi::Error)
// of the program's call that made it.
void Check(int code, const char* what);

// Where a fetching operation on another node's target puts its answer
// (slave/rma/remote.cpp): the origin buffer, and its type when not dense.
struct RemoteFetch {
  void* buffer = nullptr;
  std::int64_t count = 0;
  std::shared_ptr<const TypeInfo> type;  // null: the bytes as they come
  std::uint64_t bytes = 0;
};

// The operations of an epoch to one target of another node that did not
// go yet: they go in one message at a flush, at the epoch's end, or when
// the batch grows large (docs/one-sided.md, "Across nodes").
struct RemoteBatch {
  std::vector<std::byte> records;  // after room for a lock record
  std::vector<RemoteFetch> fetches;
  std::size_t operations = 0;
  int first = 0;  // the first one's RemoteKind (and kFetchBit): the deadlock report's
  // The epoch's lock on the target (MPI_LOCK_*; 0: none, or
  // MPI_MODE_NOCHECK), taken with the first batch that goes.
  int lock = 0;
  bool lock_all = false;  // that lock is lock_all's
  bool held = false;      // the target's master took it
};

struct Peer {
  int world_rank = 0;
  int node = 0;
  pid_t pid = 0;
  std::uint64_t size = 0;
  int disp_unit = 1;
  std::uint64_t base = 0;    // its window memory in its own process
  std::int64_t offset = -1;  // of its memory in the node's file, -1: not there
  int slot = -1;             // its index among the window's ranks of its node
  // Its node's file (that node's master maps it for origins elsewhere).
  std::uint64_t file_id = 0;
  std::uint64_t file_inode = 0;
  std::uint64_t file_bytes = 0;
};

enum class Flavor { kCreate = MPI_WIN_FLAVOR_CREATE, kAllocate = MPI_WIN_FLAVOR_ALLOCATE,
                    kDynamic = MPI_WIN_FLAVOR_DYNAMIC, kShared = MPI_WIN_FLAVOR_SHARED };

struct Window {
  MPI_Win handle = MPI_WIN_NULL;
  Flavor flavor = Flavor::kCreate;
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate: synchronization's own messages
  int rank = 0;
  int size = 0;
  std::vector<Peer> peers;        // by window rank
  // The node's file and its mapping.
  std::uint64_t file_id = 0;
  bool file_owner = false;
  char* mapping = nullptr;
  std::size_t mapping_bytes = 0;
  ControlBlock* control = nullptr;
  UniqueFd file;  // the node's file: MPI_Win_allocate targets that are switched out
  // MPI_Win_allocate: the segments of this node's ranks whose pages this
  // rank mapped through its own mapping since its last switch-out (by slot).
  std::vector<bool> mapped;
  std::vector<int> node_ranks;  // the window ranks of this node, by slot
  // Attribute values, kept here so that the pointers handed out stay valid.
  void* base = nullptr;
  MPI_Aint size_attr = 0;
  int disp_unit = 1;
  int flavor_attr = 0;
  int model_attr = MPI_WIN_UNIFIED;
  bool one_node = false;  // every rank on this node: fences in the file
  int fence_poll_us = 0;  // how long such a fence polls before it sleeps
  std::string name;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::vector<std::pair<std::string, std::string>> hints;
  // Epochs.
  bool fence_epoch = false;          // after a fence not asserting NOSUCCEED
  bool started = false;              // in an access epoch (MPI_Win_start)
  std::vector<int> access_group;     // its targets
  bool posted = false;               // in an exposure epoch (MPI_Win_post)
  std::vector<int> exposure_waiting; // its origins that did not complete yet
  // Passive target: target -> MPI_LOCK_*, plus kNoCheck when the lock was
  // asserted MPI_MODE_NOCHECK (nothing was taken, nothing is given back).
  std::map<int, int> locks;
  bool lock_all = false;
  bool lock_all_nocheck = false;
  std::map<int, RemoteBatch> batches;  // by target of another node
  unsigned polls = 0;    // flushes and syncs, for their yields (sync.cpp)
  unsigned unlocks = 0;  // unlocks, for theirs
};

// The live window `win`, or MPI_ERR_WIN.
Window& LookupWindow(MPI_Win win);
// The window's handler, or MPI_ERRORS_ARE_FATAL for an invalid handle.
MPI_Errhandler WindowErrhandler(MPI_Win win);

MPI_Win CreateWindow(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm);
MPI_Win AllocateWindow(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, bool shared,
                       void** baseptr);
MPI_Win CreateDynamicWindow(MPI_Info info, MPI_Comm comm);
void Attach(Window& win, void* base, MPI_Aint size);
void Detach(Window& win, const void* base);
void FreeWindow(MPI_Win* win);
// MPI_Win_shared_query.
void SharedQuery(Window& win, int rank, MPI_Aint* size, int* disp_unit, void** baseptr);
void SetHints(Window& win, MPI_Info info);
MPI_Info HintsOf(const Window& win);

// The control block's lock, held while a rank touches another's memory
// for an accumulate or the lock state, and by a rank whose program memory
// is another's target while it writes that memory back (Runtime's
// switch-out): a write through process_vm_writev must not fall between
// the write-back of a page and its replacement by the file's copy.
class ControlLock {
 public:
  explicit ControlLock(ControlBlock* control);
  ~ControlLock();
  ControlLock(const ControlLock&) = delete;
  ControlLock& operator=(const ControlLock&) = delete;

 private:
  ControlBlock* control_;
};

TargetState& StateOf(Window& win, int slot);
std::int32_t* QueueOf(Window& win, int slot);
Region* RegionsOf(Window& win, int slot);

// Runtime's switch-out calls these around the write-back (see ControlLock).
void LockTargetsForWriteBack();
void UnlockTargetsAfterWriteBack();
// Whether other ranks may read this rank's own memory (MPI_Win_create and
// dynamic windows), also while it is switched out.
bool ProgramMemoryTargets();

// MPI_Win_allocate's memory, at the rank's switch-out (after the arena's
// write-back): marks its segments released, drops this rank's mappings
// of every segment, writes its own back and drops them from the page
// cache, and the segments of switched-out ranks it mapped meanwhile.
// Returns the bytes written (the dirty pages) and dropped. Throws
// bdmpi::Error on an I/O error.
memory::ReleaseStats ReleaseWindowMemory();
// At its switch-in: its segments are resident again (their pages come
// back on touch).
void WindowMemoryBack();
class TargetsHeld {
 public:
  TargetsHeld() { LockTargetsForWriteBack(); }
  ~TargetsHeld() { UnlockTargetsAfterWriteBack(); }
  TargetsHeld(const TargetsHeld&) = delete;
  TargetsHeld& operator=(const TargetsHeld&) = delete;
};

}  // namespace bdmpi::rma
