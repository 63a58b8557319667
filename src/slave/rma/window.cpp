// Windows: creation, the node's shared file, attached regions, freeing.
// See window.h and docs/one-sided.md.
#include "slave/rma/window.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/handles.h"
#include "common/job_names.h"
#include "common/job_options.h"
#include "common/rank_wiring.h"
#include "common/protocol.h"
#include "slave/comm/attributes.h"
#include "slave/memory/arena.h"
#include "slave/rma/remote.h"
#include "slave/runtime/info.h"
#include "slave/runtime/runtime.h"

namespace bdmpi::rma {
namespace {

constexpr std::uint64_t kPage = 4096;
// Window files' sequence numbers: far above those of Runtime's spill
// files, which share the slave's owner bits.
constexpr std::uint64_t kWindowFileSeq = std::uint64_t{1} << 39;

struct Table {
  std::map<int, std::unique_ptr<Window>> windows;
  int next = 1;
  std::uint64_t file_seq = 0;
};

Table& Windows() {
  static Table table;
  return table;
}

std::uint64_t RoundUp(std::uint64_t n, std::uint64_t to) { return (n + to - 1) / to * to; }

// What each rank tells the others when a window is made.
struct RankInfo {
  std::int32_t world_rank;
  std::int32_t node;
  std::int32_t pid;
  std::int32_t disp_unit;
  std::uint64_t size;
  std::uint64_t base;
};

// What a node's first rank tells the others once it made the file.
struct FileInfo {
  std::uint64_t file_id;
  std::uint64_t inode;
  std::int32_t error;  // MPI error class of the creation, 0 when made
  std::int32_t pad;
};

std::uint64_t ControlBytes(int local_ranks, int window_size, bool dynamic) {
  std::uint64_t bytes = RegionsOffset(local_ranks, window_size);
  if (dynamic) bytes += static_cast<std::uint64_t>(local_ranks) * kMaxAttached * sizeof(Region);
  return RoundUp(bytes, kPage);
}

void InitControl(char* mapping, int local_ranks, int window_size) {
  auto* control = new (mapping) ControlBlock();
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&control->mutex, &attr);
  pthread_mutexattr_destroy(&attr);
  control->local_ranks = local_ranks;
  control->window_size = window_size;
  auto* states = reinterpret_cast<TargetState*>(mapping + sizeof(ControlBlock));
  for (int i = 0; i < local_ranks; ++i) new (&states[i]) TargetState();
}

bool IsIntercomm(MPI_Comm comm) {
  int inter = 0;
  Check(PMPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  return inter != 0;
}

// The common part of every creation call: the window's own communicator,
// the exchange of what each rank offers, the node's file.
Window& Make(Flavor flavor, void* base, std::uint64_t size, int disp_unit, MPI_Info info,
             MPI_Comm comm) {
  CheckInfoArgument(info);
  if (IsIntercomm(comm))
    throw Error(MPI_ERR_COMM, "windows are made over intracommunicators only");
  if (disp_unit <= 0) throw Error(MPI_ERR_DISP, "the displacement unit must be positive");
  Runtime& runtime = *Runtime::Instance();
  auto window = std::make_unique<Window>();
  Window& win = *window;
  win.flavor = flavor;
  Check(PMPI_Comm_dup(comm, &win.comm), "MPI_Comm_dup");
  PMPI_Comm_set_errhandler(win.comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(win.comm, &win.rank);
  PMPI_Comm_size(win.comm, &win.size);
  bool shared_contiguous = true;
  if (info != MPI_INFO_NULL) {
    const std::string* noncontig = FindInfo(info, "alloc_shared_noncontig");
    if (noncontig != nullptr && *noncontig == "true") shared_contiguous = false;
  }

  RankInfo mine{runtime.world_rank(), runtime.node(), static_cast<std::int32_t>(getpid()),
                disp_unit, size, reinterpret_cast<std::uint64_t>(base)};
  std::vector<RankInfo> all(static_cast<std::size_t>(win.size));
  Check(PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE,
                       win.comm),
        "MPI_Allgather");

  // Each node's ranks and, for memory in the file, where theirs lies in
  // that node's file; each node's first rank makes its file.
  // MPI_Win_allocate's memory is there too, page-aligned per rank, so that
  // each rank can write its own back and drop it (ReleaseWindowMemory).
  bool in_file = flavor == Flavor::kShared || flavor == Flavor::kAllocate;
  std::map<int, std::vector<int>> by_node;  // node -> its window ranks
  win.peers.resize(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) {
    Peer& peer = win.peers[r];
    peer.world_rank = all[r].world_rank;
    peer.node = all[r].node;
    peer.pid = all[r].pid;
    peer.size = all[r].size;
    peer.disp_unit = all[r].disp_unit;
    peer.base = all[r].base;
    std::vector<int>& ranks = by_node[peer.node];
    peer.slot = static_cast<int>(ranks.size());
    ranks.push_back(static_cast<int>(r));
  }
  if (flavor == Flavor::kShared && by_node.size() > 1) {
    PMPI_Comm_free(&win.comm);
    throw Error(MPI_ERR_RMA_SHARED,
                "MPI_Win_allocate_shared needs ranks of one node; this communicator spans "
                "nodes (split it with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED))");
  }
  for (const auto& [node, ranks] : by_node) {
    int local_ranks = static_cast<int>(ranks.size());
    std::uint64_t offset = ControlBytes(local_ranks, win.size, flavor == Flavor::kDynamic);
    for (int r : ranks) {
      Peer& peer = win.peers[static_cast<std::size_t>(r)];
      if (!in_file) continue;
      if (flavor != Flavor::kShared || !shared_contiguous) offset = RoundUp(offset, kPage);
      peer.offset = static_cast<std::int64_t>(offset);
      offset += peer.size;
    }
    std::uint64_t bytes = RoundUp(std::max<std::uint64_t>(offset, 1), kPage);
    for (int r : ranks) win.peers[static_cast<std::size_t>(r)].file_bytes = bytes;
  }
  win.one_node = by_node.size() == 1;
  if (win.one_node) {
    // When every rank of the window can run at once (-nr), the others
    // come while it polls: 1 ms, against 50-100 us for a barrier through
    // the master on a loaded machine. Else some must be switched in first,
    // which only a blocking call lets the master do: a short poll.
    win.fence_poll_us = ThisRankJobSettings().nrunning >= win.size ? 1000 : 20;
  }
  const std::vector<int>& mine_on_node = by_node[runtime.node()];
  int local = static_cast<int>(mine_on_node.size());
  int leader = mine_on_node.front();
  win.mapping_bytes = win.peers[static_cast<std::size_t>(win.rank)].file_bytes;

  FileInfo made{0, 0, 0, 0};
  std::string failure;  // the first rank's, when it could not make the file
  UniqueFd fd;
  if (leader == win.rank) {
    try {
      // Every rank's failure must reach the others (they wait in the
      // exchange below), so nothing here throws past it.
      std::uint64_t slave = static_cast<std::uint64_t>(wiring::RequireNumber(Wire::kSlave));
      made.file_id = MakeFileId(slave, kWindowFileSeq | ++Windows().file_seq);
      fd = runtime.spill_dir().CreateReserved(made.file_id, win.mapping_bytes, &made.inode);
      win.file_owner = true;
    } catch (const Error& error) {
      made.error = error.error_class();
      failure = error.what();
    }
  }
  std::vector<FileInfo> files(all.size());
  if (win.file_owner) {
    // The control block is ready before anyone else can map the file.
    void* p = mmap(nullptr, win.mapping_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (p == MAP_FAILED) {
      made.error = MPI_ERR_NO_MEM;
      failure = std::string("mmap: ") + std::strerror(errno);
    } else {
      win.mapping = static_cast<char*>(p);
      InitControl(win.mapping, local, win.size);
    }
  }
  Check(PMPI_Allgather(&made, sizeof made, MPI_BYTE, files.data(), sizeof made, MPI_BYTE,
                       win.comm),
        "MPI_Allgather");
  for (Peer& peer : win.peers) {
    const FileInfo& theirs =
        files[static_cast<std::size_t>(by_node[peer.node].front())];
    peer.file_id = theirs.file_id;
    peer.file_inode = theirs.inode;
  }
  const FileInfo& file = files[static_cast<std::size_t>(leader)];
  win.file_id = file.file_id;
  auto give_up = [&](int error_class, const std::string& why) {
    if (win.mapping != nullptr) munmap(win.mapping, win.mapping_bytes);
    if (win.file_owner) runtime.spill_dir().Unlink(win.file_id);
    PMPI_Comm_free(&win.comm);
    throw Error(error_class, why);
  };
  for (const auto& [node, ranks] : by_node) {
    const FileInfo& theirs = files[static_cast<std::size_t>(ranks.front())];
    if (node != runtime.node() && theirs.error != 0)
      give_up(theirs.error, "node " + std::to_string(node) +
                                " cannot make its file of the window (its rank " +
                                std::to_string(ranks.front()) + " says why)");
  }
  if (file.error != 0)
    give_up(file.error, "cannot make the window's file of " + std::to_string(win.mapping_bytes) +
                            " bytes in the scratch directory " + runtime.spill_dir().path() +
                            (failure.empty() ? std::string(" (rank ") + std::to_string(leader) +
                                                   " says why)"
                                             : ": " + failure) +
                            "; free space there or ask for a smaller window");
  if (!win.file_owner) {
    try {
      fd = runtime.spill_dir().Open(file.file_id, O_RDWR, file.inode);
    } catch (const Error& error) {
      give_up(error.error_class(), error.what());
    }
    void* p = mmap(nullptr, win.mapping_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (p == MAP_FAILED) give_up(MPI_ERR_NO_MEM, std::string("mmap: ") + std::strerror(errno));
    win.mapping = static_cast<char*>(p);
  }
  win.control = reinterpret_cast<ControlBlock*>(win.mapping);
  win.file = std::move(fd);
  win.node_ranks = mine_on_node;
  win.mapped.assign(mine_on_node.size(), false);

  Peer& self = win.peers[static_cast<std::size_t>(win.rank)];
  win.base = in_file ? win.mapping + self.offset : base;
  if (flavor == Flavor::kDynamic) win.base = MPI_BOTTOM;
  win.size_attr = static_cast<MPI_Aint>(size);
  win.disp_unit = disp_unit;
  win.flavor_attr = static_cast<int>(flavor);
  SetHints(win, info);

  Table& table = Windows();
  int index = table.next++;
  win.handle = MakeHandle(HandleKind::kWin, index);
  return *table.windows.emplace(index, std::move(window)).first->second;
}

}  // namespace

void Check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw Error(code, std::string(what) + " failed");
}

Window& LookupWindow(MPI_Win win) {
  if (win == MPI_WIN_NULL) throw Error(MPI_ERR_WIN, "MPI_WIN_NULL is not a window");
  if (!HandleIs(win, HandleKind::kWin)) throw Error(MPI_ERR_WIN, "not a window handle");
  auto found = Windows().windows.find(HandleIndex(win));
  if (found == Windows().windows.end())
    throw Error(MPI_ERR_WIN, "not a live window (freed, or never made)");
  return *found->second;
}

MPI_Errhandler WindowErrhandler(MPI_Win win) {
  try {
    return LookupWindow(win).errhandler;
  } catch (const Error&) {
    return MPI_ERRORS_ARE_FATAL;
  }
}

MPI_Win CreateWindow(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm) {
  if (size < 0) throw Error(MPI_ERR_SIZE, "a window's size cannot be negative");
  if (size > 0 && base == nullptr)
    throw Error(MPI_ERR_BASE, "a window of " + std::to_string(size) + " bytes at address 0");
  return Make(Flavor::kCreate, base, static_cast<std::uint64_t>(size), disp_unit, info, comm)
      .handle;
}

MPI_Win AllocateWindow(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, bool shared,
                       void** baseptr) {
  if (size < 0) throw Error(MPI_ERR_SIZE, "a window's size cannot be negative");
  if (shared) {
    Window& win = Make(Flavor::kShared, nullptr, static_cast<std::uint64_t>(size), disp_unit,
                       info, comm);
    *baseptr = win.base;
    return win.handle;
  }
  // MPI_Win_allocate's memory is the rank's segment of the node's file
  // (zero, as a new file is): the node's other ranks reach it with memcpy.
  // It is storage-backed memory of the rank: counted in the node's budget
  // with the rest, written back and dropped at its switch-outs.
  Window& win = Make(Flavor::kAllocate, nullptr, static_cast<std::uint64_t>(size), disp_unit,
                     info, comm);
  memory::CountOutsideArena(static_cast<std::int64_t>(RoundUp(static_cast<std::uint64_t>(size),
                                                              kPage)));
  *baseptr = win.base;
  return win.handle;
}

MPI_Win CreateDynamicWindow(MPI_Info info, MPI_Comm comm) {
  return Make(Flavor::kDynamic, nullptr, 0, 1, info, comm).handle;
}

TargetState& StateOf(Window& win, int slot) { return StatesAt(win.mapping)[slot]; }

std::int32_t* QueueOf(Window& win, int slot) { return QueueAt(win.mapping, slot); }

Region* RegionsOf(Window& win, int slot) { return RegionsAt(win.mapping, slot); }

ControlLock::ControlLock(ControlBlock* control) : control_(control) { LockControl(control_); }

ControlLock::~ControlLock() { pthread_mutex_unlock(&control_->mutex); }

void Attach(Window& win, void* base, MPI_Aint size) {
  if (win.flavor != Flavor::kDynamic)
    throw Error(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach needs a window of MPI_Win_create_dynamic");
  if (size < 0) throw Error(MPI_ERR_SIZE, "a region's size cannot be negative");
  if (size == 0) return;
  if (base == nullptr) throw Error(MPI_ERR_BASE, "a region at address 0");
  ControlLock lock(win.control);
  TargetState& state = StateOf(win, win.peers[static_cast<std::size_t>(win.rank)].slot);
  if (state.attached >= kMaxAttached)
    throw Error(MPI_ERR_RMA_ATTACH, "a rank may attach at most " + std::to_string(kMaxAttached) +
                                        " regions to a window at once; detach some first");
  auto begin = reinterpret_cast<std::uint64_t>(base);
  auto end = begin + static_cast<std::uint64_t>(size);
  Region* regions = RegionsOf(win, win.peers[static_cast<std::size_t>(win.rank)].slot);
  for (int i = 0; i < state.attached; ++i) {
    const Region& r = regions[i];
    if (begin < r.base + r.size && r.base < end)
      throw Error(MPI_ERR_RMA_ATTACH, "the region overlaps one already attached to the window");
  }
  regions[state.attached++] = Region{begin, static_cast<std::uint64_t>(size)};
}

void Detach(Window& win, const void* base) {
  if (win.flavor != Flavor::kDynamic)
    throw Error(MPI_ERR_RMA_FLAVOR, "MPI_Win_detach needs a window of MPI_Win_create_dynamic");
  ControlLock lock(win.control);
  TargetState& state = StateOf(win, win.peers[static_cast<std::size_t>(win.rank)].slot);
  auto address = reinterpret_cast<std::uint64_t>(base);
  Region* regions = RegionsOf(win, win.peers[static_cast<std::size_t>(win.rank)].slot);
  for (int i = 0; i < state.attached; ++i) {
    if (regions[i].base != address) continue;
    regions[i] = regions[state.attached - 1];
    --state.attached;
    return;
  }
  throw Error(MPI_ERR_RMA_ATTACH, "no region attached to the window starts at that address");
}

void FreeWindow(MPI_Win* handle) {
  Window& win = LookupWindow(*handle);
  if (!win.locks.empty() || win.lock_all || win.started ||
      win.posted)
    throw Error(MPI_ERR_RMA_SYNC,
                "MPI_Win_free in an epoch: unlock, complete or wait for it first");
  // Nobody may touch the memory after this: every rank is here.
  TellWait(win, RmaWait::kFree, -1, 0);
  Check(PMPI_Barrier(win.comm), "MPI_Barrier");
  DeleteAllAttrs(AttrKind::kWin, win.handle);
  munmap(win.mapping, win.mapping_bytes);
  if (win.flavor == Flavor::kAllocate)
    memory::CountOutsideArena(-static_cast<std::int64_t>(
        RoundUp(win.peers[static_cast<std::size_t>(win.rank)].size, kPage)));
  if (win.file_owner) Runtime::Instance()->spill_dir().Unlink(win.file_id);
  PMPI_Comm_free(&win.comm);
  Windows().windows.erase(HandleIndex(win.handle));
  *handle = MPI_WIN_NULL;
}

void SharedQuery(Window& win, int rank, MPI_Aint* size, int* disp_unit, void** baseptr) {
  bool in_file = win.flavor == Flavor::kShared;
  int node = win.peers[static_cast<std::size_t>(win.rank)].node;
  // Memory this rank can load and store: its own, and in this node's file.
  auto reachable = [&](int r) {
    const Peer& peer = win.peers[static_cast<std::size_t>(r)];
    return r == win.rank || (in_file && peer.node == node);
  };
  if (rank == MPI_PROC_NULL) {
    // The lowest rank whose memory this rank can load and store.
    rank = 0;
    while (rank < win.size &&
           (win.peers[static_cast<std::size_t>(rank)].size == 0 || !reachable(rank)))
      ++rank;
    if (rank == win.size) {
      *size = 0;
      *disp_unit = 0;
      *baseptr = nullptr;
      return;
    }
  }
  if (rank < 0 || rank >= win.size)
    throw Error(MPI_ERR_RANK, "rank " + std::to_string(rank) + " is not in the window");
  const Peer& peer = win.peers[static_cast<std::size_t>(rank)];
  *disp_unit = peer.disp_unit;
  // MPI-4.1 12.2.3: memory this rank cannot load and store (another
  // rank's program memory, another node's file) is size 0 at NULL, as is
  // an empty segment.
  if (peer.size == 0 || !reachable(rank) || win.flavor == Flavor::kDynamic) {
    *size = 0;
    *baseptr = nullptr;
    return;
  }
  *size = static_cast<MPI_Aint>(peer.size);
  *baseptr = in_file ? win.mapping + peer.offset : win.base;
}

void SetHints(Window& win, MPI_Info info) {
  if (info == MPI_INFO_NULL) return;
  for (const auto& [key, value] : LookupInfo(info)) {
    auto same = std::find_if(win.hints.begin(), win.hints.end(),
                             [&](const auto& hint) { return hint.first == key; });
    if (same != win.hints.end())
      same->second = value;
    else
      win.hints.emplace_back(key, value);
  }
}

MPI_Info HintsOf(const Window& win) {
  InfoEntries entries(win.hints.begin(), win.hints.end());
  auto has = [&](const char* key) {
    return std::any_of(entries.begin(), entries.end(),
                       [&](const auto& e) { return e.first == key; });
  };
  // What the standard names, as they hold here.
  if (!has("no_locks")) entries.emplace_back("no_locks", "false");
  if (!has("accumulate_ordering")) entries.emplace_back("accumulate_ordering", "rar,raw,war,waw");
  if (!has("accumulate_ops")) entries.emplace_back("accumulate_ops", "same_op_no_op");
  return NewInfo(std::move(entries));
}

namespace {

// The control blocks of the windows whose program memory others reach
// with process_vm_* (MPI_Win_create, MPI_Win_create_dynamic), in file-id
// order: every rank of a node takes them in the same order, so two ranks
// switching out at once cannot deadlock.
std::vector<ControlBlock*> ProgramMemoryControls() {
  std::vector<std::pair<std::uint64_t, ControlBlock*>> found;
  for (auto& [index, window] : Windows().windows) {
    (void)index;
    if (window->flavor == Flavor::kCreate || window->flavor == Flavor::kDynamic)
      found.emplace_back(window->file_id, window->control);
  }
  std::sort(found.begin(), found.end());
  std::vector<ControlBlock*> controls;
  for (const auto& entry : found) controls.push_back(entry.second);
  return controls;
}

}  // namespace

void LockTargetsForWriteBack() {
  for (ControlBlock* control : ProgramMemoryControls()) LockControl(control);
}

void UnlockTargetsAfterWriteBack() {
  for (ControlBlock* control : ProgramMemoryControls()) pthread_mutex_unlock(&control->mutex);
}

bool ProgramMemoryTargets() { return !ProgramMemoryControls().empty(); }

namespace {

std::atomic_ref<std::uint32_t> Released(Window& win, int slot) {
  return std::atomic_ref<std::uint32_t>(StateOf(win, slot).released);
}

// A segment of the file: the window memory of the rank in `slot`.
struct Segment {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;  // whole pages
};

Segment SegmentOf(const Window& win, int slot) {
  const Peer& peer = win.peers[static_cast<std::size_t>(win.node_ranks[static_cast<std::size_t>(slot)])];
  return Segment{static_cast<std::uint64_t>(peer.offset), RoundUp(peer.size, kPage)};
}

// cachestat(2) (Linux 6.5; no wrapper in older C libraries): how many
// pages of a file range are in the page cache, and how many are dirty.
struct CacheStatRange {
  std::uint64_t offset;
  std::uint64_t length;
};
struct CacheStat {
  std::uint64_t cached, dirty, writeback, evicted, recently_evicted;
};
constexpr long kSysCachestat = 451;

// What a segment's write-back will write and drop (its pages cached, and
// of those the dirty ones), once this rank's mappings are gone (they
// hand their dirty bits to the pages). Older kernels: mincore, counting
// every cached page as written.
memory::ReleaseStats Cached(const Window& win, Segment segment) {
  memory::ReleaseStats stats;
  CacheStatRange range{segment.offset, segment.bytes};
  CacheStat cache{};
  if (syscall(kSysCachestat, win.file.get(), &range, &cache, 0) == 0) {
    stats.dropped = cache.cached * kPage;
    stats.written = (cache.dirty + cache.writeback) * kPage;
    return stats;
  }
  std::vector<unsigned char> pages(segment.bytes / kPage);
  if (mincore(win.mapping + segment.offset, segment.bytes, pages.data()) != 0) {
    stats.dropped = stats.written = segment.bytes;  // counted in full when unknown
    return stats;
  }
  for (unsigned char page : pages)
    if ((page & 1) != 0) stats.dropped += kPage;
  stats.written = stats.dropped;
  return stats;
}

// Writes the segment's dirty pages to the file and drops its pages from
// the page cache, but those another process still maps (a running origin
// that reached it while its owner ran): they go when that one switches
// out, as its own mappings do.
void DropSegment(const Window& win, Segment segment) {
  if (segment.bytes == 0) return;
  auto offset = static_cast<off64_t>(segment.offset);
  auto bytes = static_cast<off64_t>(segment.bytes);
  if (sync_file_range(win.file.get(), offset, bytes,
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                          SYNC_FILE_RANGE_WAIT_AFTER) != 0)
    throw Error(MPI_ERR_IO, std::string("writing window memory back to its file in ") +
                                Runtime::Instance()->spill_dir().path() + " failed: " +
                                std::strerror(errno));
  posix_fadvise(win.file.get(), offset, bytes, POSIX_FADV_DONTNEED);
}

}  // namespace

memory::ReleaseStats ReleaseWindowMemory() {
  memory::ReleaseStats released;
  for (auto& [index, window] : Windows().windows) {
    (void)index;
    Window& win = *window;
    if (win.flavor != Flavor::kAllocate) continue;
    int mine = win.peers[static_cast<std::size_t>(win.rank)].slot;
    // From here on the others reach this rank's segment through the file,
    // not through their mappings (operations.cpp).
    Released(win, mine).store(1, std::memory_order_release);
    // This rank's mappings of every segment go: a shared file page stays
    // in memory while any process maps it.
    std::uint64_t begin = SegmentOf(win, 0).offset;
    if (begin < win.mapping_bytes)
      madvise(win.mapping + begin, win.mapping_bytes - begin, MADV_DONTNEED);
    Segment own = SegmentOf(win, mine);
    if (own.bytes > 0) {
      memory::ReleaseStats stats = Cached(win, own);
      released.written += stats.written;
      released.dropped += stats.dropped;
    }
    DropSegment(win, own);
    // Others' segments it mapped while their owners ran, whose owners are
    // switched out since: nobody else would drop those pages.
    for (std::size_t slot = 0; slot < win.mapped.size(); ++slot) {
      if (!win.mapped[slot]) continue;
      win.mapped[slot] = false;
      if (Released(win, static_cast<int>(slot)).load(std::memory_order_acquire) != 0)
        DropSegment(win, SegmentOf(win, static_cast<int>(slot)));
    }
  }
  return released;
}

void WindowMemoryBack() {
  for (auto& [index, window] : Windows().windows) {
    (void)index;
    Window& win = *window;
    if (win.flavor != Flavor::kAllocate) continue;
    Released(win, win.peers[static_cast<std::size_t>(win.rank)].slot)
        .store(0, std::memory_order_release);
  }
}

}  // namespace bdmpi::rma
