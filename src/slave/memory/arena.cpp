#include "slave/memory/arena.h"

#include "slave/memory/dead_pages.h"
#include "slave/memory/heap.h"
#include "slave/memory/lent_copies.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/job_names.h"
#include "common/log.h"
#include "common/rank_wiring.h"
#include "common/storage_table.h"

extern char** environ;

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace bdmpi::memory {
namespace {

constexpr std::size_t kPage = kArenaPage;
constexpr std::size_t kHugePage = 2u << 20;  // x86-64 and arm64 (4 KiB pages)
constexpr std::size_t kDefaultThreshold = 1 << 20;
// Below a page a block would waste most of its page; the arena's own
// bookkeeping also relies on small blocks going to glibc.
constexpr std::size_t kMinThreshold = kPage;
// pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst).
constexpr std::uint64_t kPmPresent = 1ull << 63;
constexpr std::uint64_t kPmSwapped = 1ull << 62;
constexpr std::uint64_t kPmFile = 1ull << 61;
constexpr std::uint64_t kPmPfnMask = (1ull << 55) - 1;
// Runs of resident pages remembered per block for the eager switch-in;
// beyond that the block is read back whole.
constexpr std::size_t kMaxRuns = 4096;
// readahead() reads at most the device's readahead window per call.
constexpr std::uint64_t kReadaheadChunk = 2 << 20;
// Blocks up to this size are read at a lazy switch-in where the rank
// touched them after its last switch-in out of the same request
// (ReadTouched): a fault in one reads this machine's read-ahead window
// (8 MiB) from the faulting page, past the block's end into the blocks
// after it in the file.
constexpr std::uint64_t kSmallBlockRead = 8ull << 20;
constexpr std::uint64_t kIoChunk = 64ull << 20;
// The heap's metadata (jemalloc's arenas, bins, mutexes and extent maps:
// 84-128 KiB resident per rank in the paper's programs) stays resident
// through a switch-out up to this much. Every allocation and free touches
// it, the runtime's at the end of a switch-out and the start of a resume
// included, and each first touch after a switch-out read it back with a
// fault and MADV_SEQUENTIAL's window: 8 MiB of the storage file from that
// page on. The master counts what stays as the rank's unpageable memory.
constexpr std::uint64_t kKeptMetadata = 1ull << 20;

// Freed blocks kept whole for the next allocation of about their size.
// Dropping a block punches a hole in the storage file, which costs 4 ms
// and more where the file system discards freed disk blocks at once (ext4
// mounted with `discard`): 1 MiB malloc + touch + free took 4.3 ms against
// 30 us under glibc. Programs that allocate a buffer per iteration, and
// the library's own temporaries for large messages, reuse a block instead.
// Bounded in count and bytes; a kept block's pages stay resident and
// counted as allocated until the next switch-out unmaps them (keeping the
// disk reserved: a later reuse maps fresh memory there, nothing to punch)
// or an allocation that none of them fits drops them.
constexpr std::size_t kMaxRecycled = 8;
constexpr std::uint64_t kMaxRecycledBytes = 64ull << 20;

// Colours (Block::colour): a block's data starts an odd number of cache
// lines into its first page, the count stepping by an odd number from
// block to block so that it takes each of the 32 odd lines before it
// repeats. Two arrays of one size allocated one after the other (k-means'
// centroids and sums) would otherwise start at the same offset in a page,
// and the stores into one hold back loads from the other that share their
// low 12 address bits (4 KiB aliasing). Odd lines also keep a block's data
// off the 128-byte alignment of the heap's small objects of that size and
// more (k-means' 128-byte similarity vector): k-means' loop ran at main's
// speed whenever its sums started an even number of lines from that
// vector and 0.67-0.84 x when odd (docs/scheduling-and-memory.md,
// "k-means' slower loop"). jemalloc's large extents take random lines.
constexpr std::uint64_t kColourLine = 64;
constexpr std::uint64_t kColourStep = 37;
constexpr std::uint64_t kColours = kArenaPage / kColourLine / 2;

enum Mode : int { kUnknown = 0, kOff = 1, kOn = 2 };
std::atomic<int> g_mode{kUnknown};
std::atomic<std::size_t> g_threshold{SIZE_MAX};
std::atomic<std::uintptr_t> g_base{0};
std::atomic<std::uintptr_t> g_end{0};
// Start of the upper half of the range, which holds the heap's chunks
// (heap.h): free() tells a small block from a large one by its address.
std::atomic<std::uintptr_t> g_heap_base{UINTPTR_MAX};
// Whether anything was ever mapped from the storage file (a switch-out
// happened): until then DropFileCopies, called at every blocking call,
// returns without taking the arena's lock.
std::atomic<bool> g_file_mapped{false};
// Arena::heap_committed, readable without the lock.
std::atomic<std::uint64_t> g_heap_committed{0};
// Storage-backed bytes held outside the arena (CountOutsideArena).
std::atomic<std::uint64_t> g_outside{0};
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
__thread bool t_inside __attribute__((tls_model("initial-exec"))) = false;

std::size_t RoundUp(std::size_t value, std::size_t align) {
  return (value + align - 1) / align * align;
}

// Byte offsets from the start of a block.
struct Run {
  std::uint64_t start;
  std::uint64_t length;
};

// A call (the request type a rank was switched in out of) after which the
// rank rewrote a block.
struct RewrittenAfter {
  int point;
  int reads;  // read back up front for it since the rewrite was measured
};

// A block read back up front for a call is all anonymous memory, which
// hides whether the rank rewrites it: every so many such resumes, one
// leaves it to the faults and measures again.
constexpr int kRewriteReadsBetweenMeasures = 3;

struct Block {
  std::uint64_t length = 0;
  // Where the program's pointer lies in the first page (a multiple of the
  // request's alignment); the block itself, its map key and its pages
  // start at the page boundary below.
  std::uint64_t colour = 0;
  std::vector<Run> resident;  // resident at the last switch-out
  bool resident_all = false;  // too many runs: read the whole block back
  // The calls out of which a resume was followed by a rewrite of most of
  // the block's resident pages before the next switch-out, and how many
  // resumes out of each have read it back since that was last measured.
  std::vector<RewrittenAfter> rewritten_after;
  // Its anonymous pages are exactly those written since the last
  // switch-out: the whole block was mapped from the file then, and nothing
  // was read back as anonymous memory since. Only then does the count of
  // anonymous pages tell whether the program rewrites the block.
  bool known_dirty = false;
  // A chunk of the small-object heap (heap.h): allocated and never freed,
  // its pages committed and decommitted by ranges.
  bool heap = false;
  // The file may hold data for it (written back, or read into by MPI-IO):
  // a decommitted range must then have zeros put in the file before it
  // is committed again.
  bool file_written = false;
  // A heap chunk (heap is set too) that holds jemalloc's metadata
  // (Arena::metadata).
  bool metadata = false;
  // Some of it is mapped from the file (a switch-out since its
  // allocation): its pages there are the file's, which a new owner of the
  // block would read (COW) on its first write to each.
  bool file_mapped = false;
};

// Disjoint, coalesced byte ranges [offset, offset + length).
class RangeSet {
 public:
  void Add(std::uint64_t offset, std::uint64_t length) {
    if (length == 0) return;
    Remove(offset, length);
    std::uint64_t end = offset + length;
    auto next = ranges_.lower_bound(offset);
    if (next != ranges_.end() && next->first == end) {
      end += next->second;
      next = ranges_.erase(next);
    }
    if (next != ranges_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second = end - prev->first;
        return;
      }
    }
    ranges_.emplace(offset, end - offset);
  }
  void Remove(std::uint64_t offset, std::uint64_t length) {
    std::uint64_t end = offset + length;
    auto it = ranges_.upper_bound(offset);
    if (it != ranges_.begin()) --it;
    while (it != ranges_.end() && it->first < end) {
      std::uint64_t start = it->first, stop = it->first + it->second;
      if (stop <= offset) {
        ++it;
        continue;
      }
      it = ranges_.erase(it);
      if (start < offset) ranges_.emplace(start, offset - start);
      if (stop > end) {
        ranges_.emplace(end, stop - end);
        break;
      }
    }
  }
  // Calls fn(offset, length) for the parts inside [offset, offset + length).
  template <typename Fn>
  void ForEachOverlap(std::uint64_t offset, std::uint64_t length, Fn fn) const {
    std::uint64_t end = offset + length;
    auto it = ranges_.upper_bound(offset);
    if (it != ranges_.begin()) --it;
    for (; it != ranges_.end() && it->first < end; ++it) {
      std::uint64_t start = std::max(offset, it->first);
      std::uint64_t stop = std::min(end, it->first + it->second);
      if (start < stop) fn(start, stop - start);
    }
  }
  std::uint64_t Overlap(std::uint64_t offset, std::uint64_t length) const {
    std::uint64_t bytes = 0;
    ForEachOverlap(offset, length, [&](std::uint64_t, std::uint64_t n) { bytes += n; });
    return bytes;
  }

 private:
  std::map<std::uint64_t, std::uint64_t> ranges_;  // offset -> length
};

// A freed block kept for reuse (kMaxRecycled): its disk stays reserved;
// `mapped` says whether its memory is still there (counted as allocated),
// `file_mapped` whether some of that memory is the file's, `file_written`
// whether its file holds any of the freed block's data (Block).
struct Recycled {
  std::uint64_t offset;
  std::uint64_t length;
  bool mapped;
  bool file_mapped;
  bool file_written;
};

struct Arena {
  bool tried = false;
  bool ready = false;
  char* base = nullptr;
  std::uint64_t size = 0;
  int fd = -1;
  // The same file opened with O_DIRECT (-1 where the file system has no
  // direct I/O): write-back and read-back then bypass the page cache, so
  // that they need no memory beyond the pages being moved. Buffered
  // write-back under a memory cgroup fills it with dirty page cache.
  int direct_fd = -1;
  int pagemap = -1;
  bool can_fallocate = true;
  int rank = -1;
  std::string dir;
  StorageSlot* slot = nullptr;
  std::map<std::uint64_t, std::uint64_t> free;  // offset -> length
  // The heap's part of the range, [heap_start, size): chunks only.
  std::uint64_t heap_start = 0;
  std::map<std::uint64_t, std::uint64_t> heap_free;
  // Ranges of heap chunks that jemalloc has not committed (their memory
  // reads as zero and holds no pages), and those among them whose file
  // bytes may not be zero (decommitted after a write-back).
  RangeSet uncommitted;
  RangeSet stale;
  std::uint64_t heap_committed = 0;
  // Chunks jemalloc asked committed at once: its metadata (base blocks),
  // reserved in 2 MiB pieces and touched a little at a time, so counted by
  // their resident pages rather than their length.
  std::vector<Run> metadata;
  // In a child process after fork(): the file is the parent's, so
  // nothing here touches it any more.
  bool detached = false;
  std::map<std::uint64_t, Block> used;          // offset -> block
  std::uint64_t colours = 0;                    // blocks coloured so far
  // Lazy switch-ins (ReadTouched): the request the rank was last switched
  // in out of (-1: none, or noted since), and per such request the file
  // pages of small blocks the rank had read when it next blocked; with
  // the pages the last switch-out dropped unwritten (lent and dead, not
  // the file's).
  bool reads_touched = false;
  // The call the rank was last switched in out of (-1: none, or unknown),
  // to which the next switch-out attributes what the rank rewrote.
  int resumed_from = -1;
  int switched_in_at = -1;
  std::vector<std::pair<int, RangeSet>> touched_after;
  RangeSet skipped_last;
  // DropFileCopies: the process's page faults at its last drop.
  std::uint64_t faults_at_drop = 0;
  std::vector<Recycled> recycled;               // oldest first
  std::uint64_t allocated = 0;
  // The kernel's shared zero page, which an anonymous page that was only
  // read maps: clean, and zero in the file too. 0 when pagemap hides frame
  // numbers (without CAP_SYS_ADMIN): such pages are then written as zeros.
  std::uint64_t zero_pfn = 0;
  // The first frame of the shared huge zero page, which a read fault maps
  // in a huge-page range; 0 when there is none or pagemap hides it.
  std::uint64_t huge_zero_pfn = 0;
  std::uint64_t pagemap_buffer[4096];
};

alignas(Arena) unsigned char g_arena_storage[sizeof(Arena)];
Arena* g_arena = nullptr;  // never destroyed: free() may run after exit()

// Holds the lock and marks the thread as inside the arena.
class Locked {
 public:
  Locked() {
    t_inside = true;
    pthread_mutex_lock(&g_lock);
  }
  ~Locked() {
    pthread_mutex_unlock(&g_lock);
    t_inside = false;
  }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

// Writes a line to stderr without allocating.
void Report(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void Report(const char* fmt, ...) {
  char line[768];
  va_list args;
  va_start(args, fmt);
  int n = std::vsnprintf(line, sizeof line - 1, fmt, args);
  va_end(args);
  if (n < 0) return;
  if (n > static_cast<int>(sizeof line) - 2) n = sizeof line - 2;
  line[n++] = '\n';
  ssize_t ignored = write(STDERR_FILENO, line, static_cast<std::size_t>(n));
  (void)ignored;
}

[[noreturn]] void InvalidPointer(const char* call, const void* p) {
  Report("bdmpi: %s(): invalid pointer %p (inside the storage arena but not "
         "one that malloc returned for a live block)", call, p);
  abort();
}

// Resident bytes of the heap's metadata chunks: pages this process maps
// (pagemap; mincore would also count file pages the kernel read ahead).
std::uint64_t MetadataResident(const Arena& arena) {
  std::uint64_t bytes = 0;
  std::uint64_t entries[512];
  for (const Run& chunk : arena.metadata) {
    for (std::uint64_t at = 0; at < chunk.length; at += 512 * kPage) {
      std::uint64_t pages = std::min<std::uint64_t>(512, (chunk.length - at) / kPage);
      auto addr = reinterpret_cast<std::uintptr_t>(arena.base + chunk.start + at);
      if (pread(arena.pagemap, entries, pages * 8, static_cast<off_t>(addr / kPage * 8)) !=
          static_cast<ssize_t>(pages * 8)) {
        bytes += pages * kPage;  // counted in full when it cannot be known
        continue;
      }
      for (std::uint64_t page = 0; page < pages; ++page)
        if ((entries[page] & (kPmPresent | kPmSwapped)) != 0) bytes += kPage;
    }
  }
  return bytes;
}

// The storage table counts blocks, the heap's committed pages and its
// metadata's resident ones.
void Publish(Arena& arena) {
  g_heap_committed.store(arena.heap_committed, std::memory_order_relaxed);
  if (arena.slot != nullptr)
    arena.slot->allocated.store(
        arena.allocated + arena.heap_committed + MetadataResident(arena) +
            g_outside.load(std::memory_order_relaxed),
        std::memory_order_relaxed);
}

int DecideMode() {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode != kUnknown) return mode;
  // Too early in process start-up to read the environment: decide later.
  if (environ == nullptr) return kOff;
  mode = kOn;
  const char* alloc = std::getenv(kEnvStorageAlloc);
  if (wiring::Find(Wire::kSpillDir) == nullptr || wiring::Find(Wire::kSlave) == nullptr ||
      (alloc != nullptr && std::strcmp(alloc, "off") == 0)) {
    mode = kOff;
  } else {
    // Children of a slave inherit its environment but are not slaves.
    long long master = wiring::Number(Wire::kMasterPid, -1);
    if (master > 0 && static_cast<long long>(getppid()) != master) mode = kOff;
  }
  std::size_t threshold = kDefaultThreshold;
  const char* text = std::getenv(kEnvStorageThreshold);
  if (text != nullptr && *text != '\0') {
    unsigned long long value = std::strtoull(text, nullptr, 10);
    threshold = value < kMinThreshold ? kMinThreshold : static_cast<std::size_t>(value);
  }
  g_threshold.store(mode == kOn ? threshold : SIZE_MAX, std::memory_order_relaxed);
  g_mode.store(mode, std::memory_order_release);
  return mode;
}

// Reserves disk blocks for [offset, offset + length): 0 or an errno.
int ReserveDisk(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  if (arena.can_fallocate) {
    int rc;
    while ((rc = fallocate(arena.fd, 0, static_cast<off_t>(offset),
                           static_cast<off_t>(length))) != 0 && errno == EINTR) {
    }
    if (rc == 0) return 0;
    if (errno != EOPNOTSUPP) return errno;
    arena.can_fallocate = false;  // space is then only known at write-back
  }
  struct stat st {};
  if (fstat(arena.fd, &st) != 0) return errno;
  if (static_cast<std::uint64_t>(st.st_size) < offset + length &&
      ftruncate(arena.fd, static_cast<off_t>(offset + length)) != 0)
    return errno;
  return 0;
}

// fork(): the lock is held across it, so that the child finds the arena
// consistent; the child's storage is off (it is not a slave), and its
// arena detached: the storage file is the parent's. Registered before the
// heap's jemalloc registers its own handlers, which therefore run first at
// a fork: jemalloc's locks are taken before this one, in the order its
// extent hooks take them.
void ForkPrepare() { pthread_mutex_lock(&g_lock); }
void ForkParent() { pthread_mutex_unlock(&g_lock); }
void ForkChild() {
  g_mode.store(kOff, std::memory_order_relaxed);
  g_threshold.store(SIZE_MAX, std::memory_order_relaxed);
  if (g_arena != nullptr) {
    g_arena->detached = true;
    g_arena->slot = nullptr;
  }
  pthread_mutex_unlock(&g_lock);
}

// The first frame of the shared huge zero page: two huge-page ranges only
// read map the same run of frames (a page's neighbour is the next frame,
// which tells it from the small zero page mapped at every page). 0 where
// read faults get huge pages of their own, the kernel gives none, or
// pagemap hides frame numbers.
std::uint64_t ProbeHugeZeroPage(int pagemap) {
  std::size_t span = 3 * kHugePage;
  void* probe = mmap(nullptr, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return 0;
  auto* first = reinterpret_cast<volatile char*>(
      RoundUp(reinterpret_cast<std::uintptr_t>(probe), kHugePage));
  volatile char* second = first + kHugePage;
  std::uint64_t pfn = 0;
  if (madvise(const_cast<char*>(first), 2 * kHugePage, MADV_HUGEPAGE) == 0) {
    volatile char sink = static_cast<char>(first[0] + second[0]);
    (void)sink;
    std::uint64_t entries[3] = {0, 0, 0};  // first, the page after it, second
    auto at = reinterpret_cast<std::uintptr_t>(first) / kPage * 8;
    bool read = pread(pagemap, entries, 16, static_cast<off_t>(at)) == 16 &&
                pread(pagemap, &entries[2], 8,
                      static_cast<off_t>(at + kHugePage / kPage * 8)) == 8;
    bool present = read && (entries[0] & entries[1] & entries[2] & kPmPresent) != 0;
    std::uint64_t head = entries[0] & kPmPfnMask;
    if (present && head != 0 && head % (kHugePage / kPage) == 0 &&
        (entries[1] & kPmPfnMask) == head + 1 && (entries[2] & kPmPfnMask) == head)
      pfn = head;
  }
  munmap(probe, span);
  return pfn;
}

// Sets the arena up; false when it cannot be (then glibc serves everything).
bool EnsureReady(Arena*& out) {
  if (g_arena == nullptr) g_arena = new (g_arena_storage) Arena();
  Arena& arena = *g_arena;
  out = &arena;
  if (arena.tried) return arena.ready && !arena.detached;
  arena.tried = true;
  pthread_atfork(ForkPrepare, ForkParent, ForkChild);
  try {
    arena.dir = wiring::Find(Wire::kSpillDir);
    int slave = static_cast<int>(wiring::Number(Wire::kSlave, 0));
    arena.rank = static_cast<int>(wiring::Number(Wire::kWorldRank, -1));
    const char* prefetch = std::getenv(kEnvPrefetch);
    // Ahead: a rank resumed without a read-ahead (no room for it) gets its
    // data back as lazy, which overlaps the reads with its computation.
    arena.reads_touched = prefetch == nullptr || std::strcmp(prefetch, "lazy") == 0;
    // Address space only: PROT_NONE and MAP_NORESERVE cost no memory.
    // On a huge-page boundary, so that block address and file offset agree
    // modulo 2 MiB: only then can a huge page-cache folio be mapped whole.
    for (std::uint64_t size = 1ull << 40; size >= (1ull << 32); size >>= 2) {
      void* p = mmap(nullptr, size + kHugePage, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) {
        auto start = reinterpret_cast<std::uintptr_t>(p);
        std::uintptr_t head = RoundUp(start, kHugePage) - start;
        if (head > 0) munmap(p, head);
        munmap(static_cast<char*>(p) + head + size, kHugePage - head);
        arena.base = static_cast<char*>(p) + head;
        arena.size = size;
        break;
      }
    }
    if (arena.base == nullptr) {
      Report("bdmpi: rank %d: cannot reserve address space for storage-backed "
             "allocations; using ordinary memory", arena.rank);
      return false;
    }
    std::string path = arena.dir + "/storage-" + std::to_string(slave) + "-" +
                       std::to_string(static_cast<long>(getpid()));
    // Owned here until the arena is ready: a set-up that gives up closes
    // them (the arena itself is never destroyed).
    UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd) {
      Report("bdmpi: rank %d: cannot create %s: %s; using ordinary memory",
             arena.rank, path.c_str(), std::strerror(errno));
      return false;
    }
    // Optional: without it write-back and read-back go through the page cache.
    std::string self_path = "/proc/self/fd/" + std::to_string(fd.get());
    UniqueFd direct_fd(open(self_path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC));
    // Unlinked at once: the file goes with the process, however it ends.
    unlink(path.c_str());
    // Freed blocks must read as zero when reused: that needs hole punching.
    if (ftruncate(fd.get(), static_cast<off_t>(kPage)) != 0 ||
        fallocate(fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
                  static_cast<off_t>(kPage)) != 0) {
      Report("bdmpi: rank %d: the scratch directory %s cannot punch holes in "
             "files (%s); using ordinary memory", arena.rank, arena.dir.c_str(),
             std::strerror(errno));
      return false;
    }
    UniqueFd pagemap(open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
    if (!pagemap) {
      Report("bdmpi: rank %d: cannot open /proc/self/pagemap: %s; using "
             "ordinary memory", arena.rank, std::strerror(errno));
      return false;
    }
    // Two pages read at once: the same frame behind both is the shared
    // zero page. Some kernels (and sandboxes) give a read fault a page of
    // its own; taking that page's frame for the zero page would later
    // skip a real page that reuses the frame at write-back, losing its data.
    void* probe = mmap(nullptr, 2 * kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe != MAP_FAILED) {
      auto* pages = static_cast<volatile char*>(probe);
      volatile char sink = static_cast<char>(pages[0] + pages[kPage]);
      (void)sink;
      std::uint64_t entries[2] = {0, 0};
      if (pread(pagemap.get(), entries, sizeof entries,
                static_cast<off_t>(reinterpret_cast<std::uintptr_t>(probe) / kPage * 8)) ==
              static_cast<ssize_t>(sizeof entries) &&
          (entries[0] & kPmPresent) != 0 && (entries[1] & kPmPresent) != 0 &&
          (entries[0] & kPmPfnMask) == (entries[1] & kPmPfnMask))
        arena.zero_pfn = entries[0] & kPmPfnMask;
      munmap(probe, 2 * kPage);
    }
    arena.huge_zero_pfn = ProbeHugeZeroPage(pagemap.get());
    // The node's table; optional (without it the master sees no storage).
    const char* job = wiring::Find(Wire::kJobId);
    const char* table_name = wiring::Find(Wire::kStorageTable);
    long long nslaves = wiring::Number(Wire::kNodeSize, 0);
    JobNames names(job != nullptr ? job : "", static_cast<int>(wiring::Number(Wire::kNode, 0)));
    if (job != nullptr && table_name != nullptr && nslaves > slave &&
        JobNames::IsTagged(table_name, names.StorageTable(""))) {
      UniqueFd shm(shm_open(table_name, O_RDWR | O_CLOEXEC, 0));
      if (shm) {
        std::size_t bytes = static_cast<std::size_t>(nslaves) * sizeof(StorageSlot);
        void* table = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm.get(), 0);
        if (table != MAP_FAILED) arena.slot = static_cast<StorageSlot*>(table) + slave;
      }
    }
    // Large blocks in the lower half, the heap's chunks in the upper.
    arena.heap_start = arena.size / 2;
    arena.free.emplace(0, arena.heap_start);
    arena.heap_free.emplace(arena.heap_start, arena.size - arena.heap_start);
    arena.fd = fd.release();
    arena.direct_fd = direct_fd.release();
    arena.pagemap = pagemap.release();
    g_base.store(reinterpret_cast<std::uintptr_t>(arena.base), std::memory_order_release);
    g_heap_base.store(reinterpret_cast<std::uintptr_t>(arena.base) + arena.heap_start,
                      std::memory_order_release);
    g_end.store(reinterpret_cast<std::uintptr_t>(arena.base) + arena.size,
                std::memory_order_release);
    arena.ready = true;
  } catch (const std::exception& e) {
    Report("bdmpi: cannot set up storage-backed allocations: %s", e.what());
    return false;
  }
  return true;
}

void GiveBack(std::map<std::uint64_t, std::uint64_t>& ranges, std::uint64_t offset,
              std::uint64_t length) {
  auto next = ranges.lower_bound(offset);
  if (next != ranges.end() && offset + length == next->first) {
    length += next->second;
    next = ranges.erase(next);
  }
  if (next != ranges.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += length;
      return;
    }
  }
  ranges.emplace(offset, length);
}

// Takes [offset, offset + length) out of the free range that contains it.
void TakeFree(std::map<std::uint64_t, std::uint64_t>& ranges,
              std::map<std::uint64_t, std::uint64_t>::iterator range, std::uint64_t offset,
              std::uint64_t length) {
  std::uint64_t start = range->first;
  std::uint64_t end = range->first + range->second;
  ranges.erase(range);
  if (offset > start) ranges.emplace(start, offset - start);
  if (offset + length < end) ranges.emplace(offset + length, end - offset - length);
}

// Reports a failed system call on the storage file without allocating.
void ReportFileCall(const Arena& arena, const char* call, std::uint64_t offset,
                    std::uint64_t length, int err) {
  Report("bdmpi: rank %d: %s of %llu bytes at offset %llu of the storage file in "
         "%s failed: %s", arena.rank, call, static_cast<unsigned long long>(length),
         static_cast<unsigned long long>(offset), arena.dir.c_str(), std::strerror(err));
}

// Returns [offset, offset + length) to address space only, and the file's
// blocks to the disk, so that the range reads as zero when used again.
// False (reported) when that failed: the caller must then not reuse the
// range, which could show old data (it is lost to this process instead).
bool DropRange(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  bool ok = true;
  if (mmap(arena.base + offset, length, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED) {
    ReportFileCall(arena, "mmap(PROT_NONE) of the arena range", offset, length, errno);
    ok = false;
  }
  if (fallocate(arena.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                static_cast<off_t>(offset), static_cast<off_t>(length)) != 0) {
    ReportFileCall(arena, "fallocate(PUNCH_HOLE)", offset, length, errno);
    ok = false;
  }
  return ok;
}

// Drops a range and makes it free again, unless dropping failed.
void DropAndGiveBack(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  if (DropRange(arena, offset, length)) GiveBack(arena.free, offset, length);
}

// Advice only: huge pages where the kernel gives them on advice.
void AdviseHugePages(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  if (length >= kHugePage) madvise(arena.base + offset, length, MADV_HUGEPAGE);
}

bool MapFresh(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  return mmap(arena.base + offset, length, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED;
}

// Fresh memory of a program's block comes in huge pages where the kernel
// allows them (transparent_hugepage "madvise" or "always"): one fault and
// one cgroup charge per 2 MiB instead of 512. Out of core, fresh memory is
// faulted in again after every switch-out (kept blocks are unmapped, each
// iteration's new blocks are fresh): PageRank at 3 x a 128 MiB cgroup, 16
// ranks, took 297k faults per run against 651k and 6.3 against 7.6 system
// seconds. Only whole aligned huge pages inside the range qualify. Not for
// heap chunks, whose small objects would each make a huge page resident.
bool MapFreshBlock(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  if (!MapFresh(arena, offset, length)) return false;
  AdviseHugePages(arena, offset, length);
  return true;
}

// Fresh memory over a range of `block`, in huge pages where it takes them:
// a program's block, not a heap chunk (MapFreshBlock).
bool MapFreshIn(Arena& arena, const Block& block, std::uint64_t offset, std::uint64_t length) {
  return block.heap ? MapFresh(arena, offset, length) : MapFreshBlock(arena, offset, length);
}

void ReportNoSpace(const Arena& arena, std::uint64_t bytes, int err) {
  Report("bdmpi: rank %d: cannot reserve %llu bytes for a storage-backed "
         "allocation in the scratch directory %s: %s (free space there, pick "
         "another --scratch-dir, or run with --storage-alloc off)",
         arena.rank, static_cast<unsigned long long>(bytes), arena.dir.c_str(),
         std::strerror(err));
}

// Makes the file read as zero over [offset, offset + length), its disk
// still reserved; false (reported) when it cannot.
bool ZeroFile(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  if (fallocate(arena.fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
                static_cast<off_t>(offset), static_cast<off_t>(length)) == 0)
    return true;
  if (errno == EOPNOTSUPP &&
      fallocate(arena.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                static_cast<off_t>(offset), static_cast<off_t>(length)) == 0) {
    int err = ReserveDisk(arena, offset, length);
    if (err == 0) return true;
    ReportNoSpace(arena, length, err);
    return false;
  }
  ReportFileCall(arena, "fallocate(ZERO_RANGE)", offset, length, errno);
  return false;
}

// Drops the oldest kept block: its range goes back to the free list.
void DropOldestRecycled(Arena& arena) {
  Recycled oldest = arena.recycled.front();
  arena.recycled.erase(arena.recycled.begin());
  if (oldest.mapped) arena.allocated -= oldest.length;
  DropAndGiveBack(arena, oldest.offset, oldest.length);
}

// Keeps a freed block for reuse when it is not too large; false when the
// caller must drop it.
bool Recycle(Arena& arena, std::uint64_t offset, std::uint64_t length, bool file_mapped,
             bool file_written) {
  if (length > kMaxRecycledBytes) return false;
  auto kept_bytes = [&] {
    std::uint64_t bytes = 0;
    for (const Recycled& block : arena.recycled) bytes += block.length;
    return bytes;
  };
  while (!arena.recycled.empty() &&
         (arena.recycled.size() >= kMaxRecycled || kept_bytes() + length > kMaxRecycledBytes))
    DropOldestRecycled(arena);
  arena.recycled.push_back({offset, length, true, file_mapped, file_written});
  return true;
}

// Takes the smallest kept block that holds `length` bytes at `align` with
// at most a quarter to spare (more would waste memory that stays counted),
// mapping fresh memory there if a switch-out had unmapped it or mapped it
// from the file (the new owner's writes would each read a page of the old
// one's data from disk, or have the page cache zero it where the file has
// none, before copying it). Returns its offset and sets `taken` to its
// length and `fresh` to whether its memory is fresh (reads as zero);
// SIZE_MAX when none fits.
std::uint64_t TakeRecycled(Arena& arena, std::uint64_t length, std::uint64_t align,
                           std::uint64_t* taken, bool* fresh) {
  auto base = reinterpret_cast<std::uintptr_t>(arena.base);
  auto best = arena.recycled.end();
  for (auto it = arena.recycled.begin(); it != arena.recycled.end(); ++it) {
    bool fits = it->length >= length && it->length - length <= length / 4 &&
                (base + it->offset) % align == 0;
    if (fits && (best == arena.recycled.end() || it->length < best->length)) best = it;
  }
  if (best == arena.recycled.end()) return SIZE_MAX;
  Recycled block = *best;
  arena.recycled.erase(best);
  auto drop = [&]() -> std::uint64_t {
    if (block.mapped) arena.allocated -= block.length;
    DropAndGiveBack(arena, block.offset, block.length);
    return SIZE_MAX;
  };
  // The new block starts with a file that reads as zero, as a fresh one
  // does: its pages of zeros are then skipped at write-back, which over
  // the freed block's bytes would bring those back at the next read.
  if (block.file_written && !ZeroFile(arena, block.offset, block.length)) return drop();
  *fresh = !block.mapped || block.file_mapped;
  if (*fresh) {
    if (!MapFreshBlock(arena, block.offset, block.length)) return drop();
    if (!block.mapped) arena.allocated += block.length;
  }
  *taken = block.length;
  return block.offset;
}

// At a switch-out: the kept blocks' memory goes (nothing of it is worth
// writing), their disk stays reserved for a reuse.
void UnmapRecycled(Arena& arena) {
  for (Recycled& block : arena.recycled) {
    if (!block.mapped) continue;
    if (mmap(arena.base + block.offset, block.length, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
      continue;  // still mapped and counted; dropped when evicted
    block.mapped = false;
    arena.allocated -= block.length;
  }
  Publish(arena);
}

// The steps a colour takes for a request aligned to `alignment` (0:
// malloc's): a cache line or the alignment; 0 for page-aligned requests,
// which are not coloured.
std::uint64_t ColourGrain(std::uint64_t alignment) {
  return alignment >= kPage ? 0 : std::max(alignment, kColourLine);
}

AllocResult AllocateLocked(std::size_t bytes, std::size_t alignment) {
  Arena* arena_ptr = nullptr;
  if (!EnsureReady(arena_ptr)) return {};
  Arena& arena = *arena_ptr;
  std::uint64_t wanted = bytes == 0 ? 1 : bytes;
  std::uint64_t grain = ColourGrain(alignment);
  std::uint64_t colour = 0;
  if (grain != 0)
    colour = (arena.colours++ * kColourStep % kColours * 2 + 1) * kColourLine / grain * grain;
  std::uint64_t length = RoundUp(wanted + colour, kPage);
  // A block of a huge page or more starts on one: its whole 2 MiB pieces
  // can then be huge pages, fresh or read back (a block that straddles a
  // boundary loses up to a huge page at each end).
  std::uint64_t least_align = length >= kHugePage ? kHugePage : kPage;
  std::uint64_t align = std::max<std::uint64_t>(alignment, least_align);
  std::uint64_t kept_length = 0;
  bool kept_fresh = false;
  // A kept block needs room for the data only: one allocated without a
  // colour (or a smaller one) then takes a smaller colour, rather than
  // every kept block going for want of a page.
  if (std::uint64_t kept =
          TakeRecycled(arena, RoundUp(wanted, kPage), align, &kept_length, &kept_fresh);
      kept != SIZE_MAX) {
    if (colour > kept_length - wanted) colour = (kept_length - wanted) / grain * grain;
    Block block;
    block.length = kept_length;
    block.colour = colour;
    arena.used.emplace(kept, std::move(block));
    Publish(arena);
    return {arena.base + kept + colour, AllocStatus::kOk, kept_fresh};
  }
  // None fits: the program's sizes changed. Kept blocks then go, so that a
  // rank never holds more memory than its live blocks at their peak.
  while (!arena.recycled.empty()) DropOldestRecycled(arena);
  auto base = reinterpret_cast<std::uintptr_t>(arena.base);
  for (auto it = arena.free.begin(); it != arena.free.end(); ++it) {
    std::uint64_t start = RoundUp(base + it->first, align) - base;
    if (start + length > it->first + it->second) continue;
    TakeFree(arena.free, it, start, length);
    int err = ReserveDisk(arena, start, length);
    if (err != 0) {
      GiveBack(arena.free, start, length);
      ReportNoSpace(arena, length, err);
      return {nullptr, AllocStatus::kNoSpace};
    }
    if (!MapFreshBlock(arena, start, length)) {
      ReportFileCall(arena, "mmap of anonymous memory over the arena range", start, length,
                     errno);
      DropAndGiveBack(arena, start, length);
      return {};
    }
    Block block;
    block.length = length;
    block.colour = colour;
    arena.used.emplace(start, std::move(block));
    arena.allocated += length;
    Publish(arena);
    return {arena.base + start + colour, AllocStatus::kOk, true};
  }
  return {};  // the reservation is full: glibc takes over
}

// The live block whose data starts at `p` (its page-aligned start plus its
// colour); aborts like glibc, naming `call`, for any other pointer.
std::map<std::uint64_t, Block>::iterator BlockOfPointer(Arena& arena, const void* p,
                                                        const char* call) {
  std::uint64_t at = static_cast<const char*>(p) - arena.base;
  auto it = arena.used.find(at / kPage * kPage);
  if (it == arena.used.end() || it->second.heap || it->second.colour != at % kPage)
    InvalidPointer(call, p);
  return it;
}

void FreeLocked(Arena& arena, void* p) {
  auto it = BlockOfPointer(arena, p, "free");
  std::uint64_t offset = it->first;
  std::uint64_t length = it->second.length;
  bool file_mapped = it->second.file_mapped;
  bool file_written = it->second.file_written;
  arena.used.erase(it);
  if (!arena.detached) LentCopiesFreed(arena.base + offset, length);
  if (arena.detached) {
    // The parent's file: the block stays mapped in this process, unused.
    arena.allocated -= length;
  } else if (!Recycle(arena, offset, length, file_mapped, file_written)) {
    DropAndGiveBack(arena, offset, length);
    arena.allocated -= length;
  }
  Publish(arena);
}

// Reads pagemap entries for `count` pages from address `addr`.
void ReadPagemap(Arena& arena, const char* addr, std::size_t count) {
  std::uint64_t where = reinterpret_cast<std::uintptr_t>(addr) / kPage * 8;
  ReadExactlyAt(arena.pagemap, arena.pagemap_buffer, count * 8, where, "/proc/self/pagemap");
}

// Whether a page (by its pagemap entry) is resident, i.e. holds memory
// the file may not have; the shared zero page counts as not resident.
bool Resident(const Arena& arena, std::uint64_t entry) {
  if ((entry & kPmPresent) != 0) {
    std::uint64_t pfn = entry & kPmPfnMask;
    if (arena.zero_pfn != 0 && pfn == arena.zero_pfn) return false;
    if (arena.huge_zero_pfn != 0 && pfn - arena.huge_zero_pfn < kHugePage / kPage) return false;
  }
  return (entry & (kPmPresent | kPmSwapped)) != 0;
}

// Whether a page's data is newer than the file's: resident and not a
// clean file page (anonymous or swapped).
bool Dirty(const Arena& arena, std::uint64_t entry) {
  return Resident(arena, entry) && (entry & kPmFile) == 0;
}

// Whether a page in memory holds only zeros.
bool PageIsZero(const char* page) {
  const auto* words = reinterpret_cast<const std::uint64_t*>(page);
  for (std::size_t i = 0; i < kPage / 8; i += 8) {
    std::uint64_t any = words[i] | words[i + 1] | words[i + 2] | words[i + 3] |
                        words[i + 4] | words[i + 5] | words[i + 6] | words[i + 7];
    if (any != 0) return false;
  }
  return true;
}

// Calls fn(arena offset, pagemap entry) for `pages` pages from arena
// offset `offset`, reading the pagemap in batches.
template <typename Fn>
void ForEachPageEntry(Arena& arena, std::uint64_t offset, std::uint64_t pages, Fn fn) {
  for (std::uint64_t first = 0; first < pages; first += 4096) {
    std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(4096, pages - first));
    ReadPagemap(arena, arena.base + offset + first * kPage, count);
    for (std::size_t i = 0; i < count; ++i)
      fn(offset + (first + i) * kPage, arena.pagemap_buffer[i]);
  }
}

// Pages gathered into runs of adjacent ones: `take(start, length)` gets a
// run when the next page added does not continue it, and at Flush().
template <typename Take>
class PageRuns {
 public:
  explicit PageRuns(Take take) : take_(std::move(take)) {}
  void Add(std::uint64_t at) {
    if (length_ > 0 && start_ + length_ == at) {
      length_ += kPage;
      return;
    }
    Flush();
    start_ = at;
    length_ = kPage;
  }
  void Flush() {
    if (length_ == 0) return;
    std::uint64_t length = length_;
    length_ = 0;
    take_(start_, length);
  }

 private:
  Take take_;
  std::uint64_t start_ = 0;
  std::uint64_t length_ = 0;
};

void WriteAll(Arena& arena, const char* data, std::uint64_t length, std::uint64_t offset) {
  bool direct = arena.direct_fd >= 0;
  while (length > 0) {
    std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(length, kIoChunk));
    if (PwriteFull(direct ? arena.direct_fd : arena.fd, data, chunk, offset) < 0) {
      if (direct && errno == EINVAL) {  // direct I/O refused after all: rewrite buffered
        close(arena.direct_fd);
        arena.direct_fd = -1;
        direct = false;
        continue;
      }
      throw Error(kErrIo, "rank " + std::to_string(arena.rank) +
                              ": writing back storage-backed memory to the scratch "
                              "directory " + arena.dir + " failed (pwrite): " +
                              std::strerror(errno));
    }
    if (!direct) {
      // Buffered: keep the dirty page cache to one chunk. Both calls are
      // only about memory use: a write error still shows at fdatasync.
      sync_file_range(arena.fd, static_cast<off64_t>(offset), static_cast<off64_t>(chunk),
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                          SYNC_FILE_RANGE_WAIT_AFTER);
      posix_fadvise(arena.fd, static_cast<off_t>(offset), static_cast<off_t>(chunk),
                    POSIX_FADV_DONTNEED);
    }
    data += chunk;
    offset += chunk;
    length -= chunk;
  }
}

// Writes back the dirty pages of [offset, offset + length) of `block`
// (which starts at block_offset) and, when `remember`, adds its resident
// pages to those noted for the next switch-in (a run that continues the
// last one noted extends it: a block is written back piece by piece).
ReleaseStats WriteBack(Arena& arena, std::uint64_t block_offset, Block& block,
                       std::uint64_t offset, std::uint64_t length, bool remember,
                       const RangeSet* copied = nullptr) {
  ReleaseStats stats;
  std::uint64_t resident_pages = 0;
  PageRuns dirty([&](std::uint64_t start, std::uint64_t run_length) {
    WriteAll(arena, arena.base + start, run_length, start);
    stats.written += run_length;
  });
  PageRuns resident([&](std::uint64_t run_start, std::uint64_t run_length) {
    if (!remember) return;
    std::uint64_t start = run_start - block_offset;
    if (!block.resident.empty() &&
        block.resident.back().start + block.resident.back().length == start) {
      block.resident.back().length += run_length;
    } else if (block.resident.size() < kMaxRuns) {
      block.resident.push_back({start, run_length});
    } else {
      block.resident_all = true;
    }
  });
  // Where the file holds nothing of the block it reads as zero, so a page
  // of zeros is as the file has it: clean, like the shared zero page. Some
  // kernels give a read fault on memory advised MADV_HUGEPAGE a zeroed huge
  // page of its own rather than the shared huge zero page (huge_zero_pfn
  // then 0; seen on this project's test machines): a block only read would
  // otherwise be written back whole. The check stops at a page's first
  // nonzero word. Such a page still counts as resident: the next switch-in
  // brings it back with the rest (reading the file's hole costs no I/O),
  // and the master's figures of the rank's memory stay what they were.
  bool file_reads_zero = !block.file_written;
  ForEachPageEntry(arena, offset, length / kPage, [&](std::uint64_t at, std::uint64_t entry) {
    // A page the master holds a copy of, or that the collective the rank
    // waits in overwrites: dropped unwritten, and not read back from the
    // file at the next switch-in (it comes from the copy, or the result).
    bool held_elsewhere = copied != nullptr && copied->Overlap(at, kPage) > 0;
    bool zeros_over_nothing = file_reads_zero &&
                              (entry & (kPmPresent | kPmFile)) == kPmPresent &&
                              PageIsZero(arena.base + at);
    if (Dirty(arena, entry) && !held_elsewhere && !zeros_over_nothing) dirty.Add(at);
    if (Resident(arena, entry)) {
      ++resident_pages;
      if (!held_elsewhere) resident.Add(at);
    }
  });
  dirty.Flush();
  resident.Flush();
  stats.dropped = resident_pages * kPage;
  return stats;
}

void SyncFile(Arena& arena) {
  // Direct writes are on the device when pwrite returns; fdatasync would
  // only add a journal commit.
  if (arena.direct_fd >= 0) return;
  while (fdatasync(arena.fd) != 0) {
    if (errno == EINTR) continue;
    throw Error(kErrIo, "rank " + std::to_string(arena.rank) +
                            ": writing back storage-backed memory to the scratch "
                            "directory " + arena.dir + " failed (fdatasync): " +
                            std::strerror(errno));
  }
}

// The range now refers to the file: its anonymous pages are gone. Its
// faults read ahead from the faulting page on, not around it
// (MADV_SEQUENTIAL): an ordinary fault reads the device's whole read-ahead
// window centred on the page (8 MiB on this machine's disk), half of it
// before, mostly pages the rank has already read back or other blocks and
// holes it does not touch now, each charged to a memory cgroup that is
// full while a job runs out of core, which reclaims at every charge.
// PageRank at 3x a 48 MiB cgroup, 16 ranks: 4.2-4.9 against 7.2-12.4 CPU-s
// and 2.2-2.5 against 3.2-5.8 GiB read (four interleaved pairs).
void MapFile(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  if (mmap(arena.base + offset, length, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_FIXED, arena.fd, static_cast<off_t>(offset)) == MAP_FAILED)
    ThrowSystemError("mmap of the storage file in " + arena.dir, errno);
  madvise(arena.base + offset, length, MADV_SEQUENTIAL);  // advice only
  g_file_mapped.store(true, std::memory_order_relaxed);
}

// At a switch-out, the page cache over a piece just written back, out to
// the huge pages around it: the kernel drops only folios wholly inside the
// range, and a 2 MiB folio read back for this block may reach past the
// piece into its neighbours in the file. Nothing cached of the file is
// wanted once the rank is switched out, and the kernel keeps what a
// mapping still holds.
void DropPieceCache(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  std::uint64_t start = offset / kHugePage * kHugePage;
  std::uint64_t end = RoundUp(offset + length, kHugePage);
  posix_fadvise(arena.fd, static_cast<off_t>(start), static_cast<off_t>(end - start),
                POSIX_FADV_DONTNEED);
}

// After the write-back of a piece of a block: the piece refers to the
// file, unless the file holds nothing of the block (never written back or
// read into, nothing written now: the pages the program wrote were none,
// the others read as zero). Fresh anonymous memory then reads the same
// zeros, where a file mapping would have the page cache fill whole folios
// with zeros at the first fault there (ext4's unwritten extents; a profile
// of PageRank out of core, --node-memory 32m, had 12.9 % of the job's CPU
// samples in that memset, 4.1 % after this) and copy each page again at
// its first write. Heap chunks keep the file:
// their commits and decommits mind what the file holds (Arena::stale).
void MapAfterWriteBack(Arena& arena, Block& block, bool file_held_nothing,
                       std::uint64_t written, std::uint64_t offset, std::uint64_t length) {
  if (file_held_nothing && written == 0 && !block.heap) {
    if (!MapFreshBlock(arena, offset, length))
      ThrowSystemError("mmap of anonymous memory over the storage arena", errno);
    return;
  }
  MapFile(arena, offset, length);
  // A program's block and a heap chunk are read back in huge folios: a
  // fault reads the aligned 2 MiB around its page and the next 2 MiB (the
  // kernel's read-ahead for such a mapping, instead of MADV_SEQUENTIAL's
  // window) into 2 MiB page-cache folios, each allocated, inserted and
  // charged once, and maps a whole one at once. PageRank at 3 x a 128 MiB
  // cgroup, 16 ranks, -nr 1: 0.74 M against 1.27 M pages charged per run,
  // 4.8 against 6.2 system seconds, the same bytes read within 5 %. HPCG,
  // whose matrix is 27-entry rows from new[] (heap objects), at 2.8 x a
  // 192 MiB cgroup: 1.25-1.33 s per CG iteration against 4.16-4.19 with
  // its chunks read back in 4 KiB folios. (A decommit inside such a folio
  // splits its mapping; a commit's zeroing of the file zeroes the cached
  // folio.) The metadata's pages are few and scattered.
  if (!block.metadata) AdviseHugePages(arena, offset, length);
  block.file_mapped = true;
}

// The blocks overlapping [p, p + bytes), clipped to it and to pages
// (outward when `outward`, else only whole pages inside).
template <typename Fn>
void ForEachPiece(Arena& arena, void* p, std::size_t bytes, bool outward, Fn fn) {
  auto base = reinterpret_cast<std::uintptr_t>(arena.base);
  auto addr = reinterpret_cast<std::uintptr_t>(p);
  if (bytes == 0 || addr + bytes <= base || addr >= base + arena.size) return;
  std::uint64_t lo = addr < base ? 0 : addr - base;
  std::uint64_t hi = std::min<std::uint64_t>(addr + bytes - base, arena.size);
  if (outward) {
    lo = lo / kPage * kPage;
    hi = RoundUp(hi, kPage);
  } else {
    lo = RoundUp(lo, kPage);
    hi = hi / kPage * kPage;
  }
  if (lo >= hi) return;
  auto it = arena.used.upper_bound(lo);
  if (it != arena.used.begin()) --it;
  for (; it != arena.used.end() && it->first < hi; ++it) {
    std::uint64_t start = std::max(lo, it->first);
    std::uint64_t end = std::min(hi, it->first + it->second.length);
    if (start < end) fn(it->first, it->second, start, end - start);
  }
}

void Populate(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  char* addr = arena.base + offset;
  if (madvise(addr, length, MADV_POPULATE_READ) == 0) return;
  // Kernels before 5.14: touch every page.
  volatile char sink = 0;
  for (std::uint64_t at = 0; at < length; at += kPage) sink = sink + addr[at];
}

// Advice only: a failed readahead leaves the pages to be read on first use.
void Readahead(Arena& arena, std::uint64_t offset, std::uint64_t length) {
  for (std::uint64_t at = 0; at < length; at += kReadaheadChunk) {
    std::uint64_t chunk = std::min(kReadaheadChunk, length - at);
    readahead(arena.fd, static_cast<off64_t>(offset + at), chunk);
  }
}

// Maps fresh anonymous memory over [offset, offset + length) and reads
// the file into it.
void ReadIntoFreshMemory(Arena& arena, const Block& block, std::uint64_t offset,
                         std::uint64_t length) {
  if (!MapFreshIn(arena, block, offset, length))
    ThrowSystemError("mmap of anonymous memory over the storage arena", errno);
  for (std::uint64_t at = 0; at < length;) {
    std::size_t chunk = static_cast<std::size_t>(std::min(kIoChunk, length - at));
    int fd = arena.direct_fd >= 0 ? arena.direct_fd : arena.fd;
    ssize_t n = PreadFull(fd, arena.base + offset + at, chunk, offset + at);
    if (n < 0 && fd == arena.direct_fd && errno == EINVAL) {  // read again buffered
      close(arena.direct_fd);
      arena.direct_fd = -1;
      continue;
    }
    if (n <= 0 || static_cast<std::size_t>(n) < chunk)
      throw Error(kErrIo, "rank " + std::to_string(arena.rank) +
                              ": reading storage-backed memory back from " + arena.dir +
                              " failed (pread): " +
                              std::strerror(n < 0 ? errno : EIO));
    // The copy in the page cache is not needed twice (advice only).
    posix_fadvise(arena.fd, static_cast<off_t>(offset + at), n, POSIX_FADV_DONTNEED);
    at += static_cast<std::uint64_t>(n);
  }
}

// A mostly written run comes back as anonymous memory read in one stream:
// its pages would be copied on their first write anyway. Pages already
// the rank's own are newer than the file and stay: those written since
// the switch-out (the runtime's heap while the rank waited) and those a
// switch-out that wrote nothing back left in memory (other threads).
void ReadAnonymous(Arena& arena, const Block& block, std::uint64_t offset, std::uint64_t length) {
  PageRuns from_file([&](std::uint64_t start, std::uint64_t run) {
    ReadIntoFreshMemory(arena, block, start, run);
  });
  ForEachPageEntry(arena, offset, length / kPage, [&](std::uint64_t at, std::uint64_t entry) {
    if (!Dirty(arena, entry)) from_file.Add(at);
  });
  from_file.Flush();
}

// Faults in one page of a file mapping without the read-ahead a fault
// does (VM_RAND_READ for that page only, then back to MapFile's advice so
// that the mapping merges again). Advice only: where it fails, the copy's
// fault reads the page as before.
void ReadPageAlone(Arena& arena, std::uint64_t offset) {
  char* page = arena.base + offset;
  if (madvise(page, kPage, MADV_RANDOM) != 0) return;
  Populate(arena, offset, kPage);
  madvise(page, kPage, MADV_SEQUENTIAL);
}

}  // namespace

std::size_t Threshold() {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == kUnknown) mode = DecideMode();
  return mode == kOn ? g_threshold.load(std::memory_order_relaxed) : SIZE_MAX;
}

bool InsideArena() { return t_inside; }

bool Owns(const void* p) {
  auto addr = reinterpret_cast<std::uintptr_t>(p);
  return addr >= g_base.load(std::memory_order_acquire) &&
         addr < g_end.load(std::memory_order_acquire);
}

AllocResult Allocate(std::size_t bytes, std::size_t alignment) {
  if (Threshold() == SIZE_MAX) return {};
  Locked lock;
  try {
    return AllocateLocked(bytes, alignment);
  } catch (const std::exception&) {  // bookkeeping out of memory
    return {};
  }
}

void Free(void* p) {
  Locked lock;
  FreeLocked(*g_arena, p);
}

void* Reallocate(void* p, std::size_t bytes) {
  Locked lock;
  Arena& arena = *g_arena;
  auto it = BlockOfPointer(arena, p, "realloc");
  std::uint64_t offset = it->first;
  Block& block = it->second;
  LentCopiesKept(arena.base + offset, block.length);
  std::uint64_t length = RoundUp((bytes == 0 ? 1 : bytes) + block.colour, kPage);
  if (length <= block.length) {
    if (length < block.length) {
      std::uint64_t tail = block.length - length;
      DropAndGiveBack(arena, offset + length, tail);
      arena.allocated -= tail;
      block.length = length;
      block.resident.clear();
      block.resident_all = true;  // cheaper than clipping the runs
      Publish(arena);
    }
    return p;
  }
  std::uint64_t end = offset + block.length;
  std::uint64_t extra = length - block.length;
  auto next = arena.free.find(end);
  if (next != arena.free.end() && next->second >= extra) {
    TakeFree(arena.free, next, end, extra);
    int err = ReserveDisk(arena, end, extra);
    bool mapped = err == 0 && MapFresh(arena, end, extra);
    if (err == 0 && !mapped)
      ReportFileCall(arena, "mmap of anonymous memory over the arena range", end, extra, errno);
    if (mapped) {
      block.length = length;
      block.known_dirty = false;
      block.resident_all = true;
      arena.allocated += extra;
      Publish(arena);
      return p;
    }
    DropAndGiveBack(arena, end, extra);
    if (err != 0) {
      ReportNoSpace(arena, extra, err);
      return nullptr;
    }
  }
  AllocResult moved;
  try {
    moved = AllocateLocked(bytes, 0);
  } catch (const std::exception&) {
  }
  if (moved.status != AllocStatus::kOk) return nullptr;
  std::memcpy(moved.pointer, p, block.length - block.colour);
  FreeLocked(arena, p);
  return moved.pointer;
}

std::size_t UsableSize(const void* p) {
  Locked lock;
  Arena& arena = *g_arena;
  auto it = BlockOfPointer(arena, p, "malloc_usable_size");
  return it->second.length - it->second.colour;
}

bool InLiveBlock(const void* p, std::size_t bytes) {
  if (!Owns(p)) return false;
  Locked lock;
  Arena& arena = *g_arena;
  std::uint64_t offset = static_cast<const char*>(p) - arena.base;
  auto after = arena.used.upper_bound(offset);
  if (after == arena.used.begin()) return false;
  auto block = std::prev(after);
  return offset + bytes <= block->first + block->second.length;
}

namespace {

// The block's note for resumes out of `point`, or rewritten_after.end().
std::vector<RewrittenAfter>::iterator FindRewrite(Block& block, int point) {
  return std::find_if(block.rewritten_after.begin(), block.rewritten_after.end(),
                      [&](const RewrittenAfter& after) { return after.point == point; });
}

// A switch-out's verdict on whether the rank rewrote the block after its
// resume out of `point` (only where its anonymous pages tell: known_dirty).
void NoteRewrite(Block& block, int point, bool rewritten) {
  auto& noted = block.rewritten_after;
  auto it = FindRewrite(block, point);
  if (!rewritten) {
    if (it != noted.end()) noted.erase(it);
  } else if (it == noted.end()) {
    noted.push_back({point, 0});
  } else {
    it->reads = 0;
  }
}

// Adds to `pages` the pages of `copied` that ReleaseAll may drop unwritten
// (arena offsets), each block's noted in it.
void AddCopiedPages(Arena& arena, std::span<CopiedBlock> copied, RangeSet& pages) {
  for (CopiedBlock& lent : copied) {
    lent.skipped = lent.skipped_bytes = 0;
    if (lent.bytes < kPage || !Owns(reinterpret_cast<const void*>(lent.address))) continue;
    std::uint64_t lo = RoundUp(lent.address - reinterpret_cast<std::uintptr_t>(arena.base), kPage);
    std::uint64_t hi =
        (lent.address + lent.bytes - reinterpret_cast<std::uintptr_t>(arena.base)) / kPage * kPage;
    if (lo >= hi) continue;
    auto after = arena.used.upper_bound(lo);
    if (after == arena.used.begin()) continue;
    auto block = std::prev(after);
    // Heap chunks keep their file mapping (their decommits rely on it).
    if (hi > block->first + block->second.length || block->second.heap)
      continue;
    pages.Add(lo, hi - lo);
    lent.skipped = reinterpret_cast<std::uintptr_t>(arena.base) + lo;
    lent.skipped_bytes = hi - lo;
  }
}

}  // namespace

ReleaseStats ReleaseAll(std::uint64_t step, ReleaseProgress progress, void* context,
                        std::span<CopiedBlock> copied) {
  // Pages the heap holds for no object: dropped, not written (before the
  // lock: the heap's purge calls back into the arena).
  PurgeHeap();
  Locked lock;
  ReleaseStats total;
  for (CopiedBlock& lent : copied) lent.skipped = lent.skipped_bytes = 0;
  if (g_arena == nullptr || !g_arena->ready) return total;
  Arena& arena = *g_arena;
  UnmapRecycled(arena);
  if (arena.used.empty()) return total;
  RangeSet copied_pages;
  AddCopiedPages(arena, copied, copied_pages);
  // The receive buffers of the collective the rank waits in, which its
  // result overwrites whole, are dropped unwritten too (dead_pages.h).
  std::vector<CopiedBlock> dead = DeadBlocks();
  AddCopiedPages(arena, dead, copied_pages);
  const RangeSet* skip = copied.empty() && dead.empty() ? nullptr : &copied_pages;
  step = step == 0 ? kIoChunk : RoundUp(step, kPage);
  // Piece by piece, each dropped once written, so that the memory comes
  // free at the disk's pace and the master can let the next rank start
  // reading while the rest is written (memory.h, ReleaseProgress).
  std::uint64_t dropped = 0, reported = 0;
  bool keep_metadata = MetadataResident(arena) <= kKeptMetadata;
  for (auto& [offset, block] : arena.used) {
    if (keep_metadata && block.metadata) continue;
    block.resident.clear();
    block.resident_all = false;
    bool file_held_nothing = !block.file_written;
    ReleaseStats of_block;
    for (std::uint64_t at = 0; at < block.length; at += step) {
      std::uint64_t piece = std::min(step, block.length - at);
      ReleaseStats stats = WriteBack(arena, offset, block, offset + at, piece, true, skip);
      if (stats.written > 0) SyncFile(arena);
      MapAfterWriteBack(arena, block, file_held_nothing, stats.written, offset + at, piece);
      // The file has stale bytes there: the copy's come back instead.
      if (skip != nullptr)
        skip->ForEachOverlap(offset + at, piece, [&](std::uint64_t start, std::uint64_t length) {
          if (!MapFresh(arena, start, length))
            ThrowSystemError("mmap of anonymous memory over the storage arena", errno);
        });
      DropPieceCache(arena, offset + at, piece);
      of_block.written += stats.written;
      of_block.dropped += stats.dropped;
      // In the storage table's terms: a heap chunk counts what is committed.
      // (Metadata counts by residency, none of which is left now.)
      dropped += block.metadata ? 0
                 : block.heap   ? piece - arena.uncommitted.Overlap(offset + at, piece)
                                : piece;
      if (progress != nullptr && dropped - reported >= step) {
        progress(context, dropped);
        reported = dropped;
      }
    }
    // Written bytes are the dirty pages among the resident ones.
    if (block.known_dirty)
      NoteRewrite(block, arena.resumed_from, 2 * of_block.written > of_block.dropped);
    if (of_block.written > 0) block.file_written = true;
    block.known_dirty = true;
    total.written += of_block.written;
    total.dropped += of_block.dropped;
  }
  // The pieces' drops keep a large folio that reaches past a piece or
  // block: DropFileCache takes what is left at the end of the switch-out.
  arena.skipped_last = copied_pages;
  arena.switched_in_at = -1;  // switched out before it blocked: nothing noted
  return total;
}

namespace {

// What a switch-in reads back of the pages resident at the last ReleaseAll.
enum class ReadBack {
  kRewritten,  // the runs of the blocks the rank rewrote after its last
               // resume out of the same call, as anonymous memory with
               // large reads; the rest comes back on first touch
  kAll,        // read-ahead: every run, as clean file pages
};

// Whether a resume out of `point` reads the block back up front, counted
// as one such read.
bool TakeRewrittenAfter(Block& block, int point) {
  auto it = FindRewrite(block, point);
  if (it == block.rewritten_after.end()) return false;
  if (it->reads == kRewriteReadsBetweenMeasures) {
    block.rewritten_after.erase(it);  // this resume measures again
    return false;
  }
  ++it->reads;
  return true;
}

// Reads back as `what` says, then forgets the runs. Clean file pages
// (readahead, then mapped) are what a lazy switch-in's faults bring in,
// read before they are touched: a later switch-out drops those still
// unmodified without writing them. (Direct reads into fresh anonymous
// memory measured 2.5x slower than that on the sweep, bench/ooc/README.md.)
void ReadBackLocked(Arena& arena, ReadBack what, int point = -1) {
  std::uint64_t loaded = 0;  // for the run report's read-back figure
  for (auto& [offset, block] : arena.used) {
    bool anonymous = what == ReadBack::kRewritten && TakeRewrittenAfter(block, point);
    if (!anonymous && what != ReadBack::kAll) continue;
    auto load = [&](std::uint64_t at, std::uint64_t length) {
      if (anonymous) {
        ReadAnonymous(arena, block, at, length);
      } else {
        Readahead(arena, at, length);
        Populate(arena, at, length);
      }
      loaded += length;
    };
    if (anonymous) block.known_dirty = false;
    if (block.resident_all) {
      load(offset, block.length);
    } else {
      for (const Run& run : block.resident) load(offset + run.start, run.length);
    }
  }
  if (arena.slot != nullptr) arena.slot->read_back.fetch_add(loaded, std::memory_order_relaxed);
  for (auto& entry : arena.used) {
    entry.second.resident.clear();
    entry.second.resident_all = false;
  }
}

}  // namespace

namespace {

// The blocks whose touched pages a lazy switch-in notes and reads.
bool SmallDataBlock(const Block& block) {
  return !block.heap && block.length <= kSmallBlockRead;
}

// What the rank touched after its last switch-in out of `point`, or null.
RangeSet* TouchedAfter(Arena& arena, int point) {
  for (auto& [noted_at, pages] : arena.touched_after)
    if (noted_at == point) return &pages;
  return nullptr;
}

// A lazy switch-in out of `point`: reads with readahead() what the rank
// read of its small blocks between its last switch-in out of the same
// request and its next blocking call (NoteTouched), where that is still
// a live block mapped from the file and not dropped unwritten by the
// switch-out, and leaves the rest to its faults. The reads overlap the
// rank's computation as the faults' own read-ahead did, but stop at the
// ends of what it read: a fault reads ahead past the end of a block into
// the blocks after it in the file (MapFile), which a switch-out drops
// again before the rank gets to them.
void ReadTouched(Arena& arena, int point) {
  arena.switched_in_at = point;
  const RangeSet* noted = TouchedAfter(arena, point);
  if (noted == nullptr) return;
  std::uint64_t loaded = 0;
  for (const auto& [offset, block] : arena.used) {
    if (!SmallDataBlock(block) || !block.file_mapped) continue;
    noted->ForEachOverlap(offset, block.length, [&](std::uint64_t at, std::uint64_t length) {
      RangeSet run;
      run.Add(at, length);
      arena.skipped_last.ForEachOverlap(at, length, [&](std::uint64_t skip, std::uint64_t n) {
        run.Remove(skip, n);
      });
      run.ForEachOverlap(at, length, [&](std::uint64_t start, std::uint64_t n) {
        Readahead(arena, start, n);
        loaded += n;
      });
    });
  }
  if (arena.slot != nullptr) arena.slot->read_back.fetch_add(loaded, std::memory_order_relaxed);
}

}  // namespace

void NoteTouched() {
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready || g_arena->switched_in_at < 0) return;
  Arena& arena = *g_arena;
  // Its pages are those it touched since the switch-in, which dropped
  // them all; of those, the file pages, which it read and did not write.
  // A written page may have been read first, or written whole (k-means'
  // sums, zeroed and summed into each iteration: read back, 1.03 x the
  // bytes main's build read).
  RangeSet pages;
  for (const auto& [offset, block] : arena.used) {
    if (!SmallDataBlock(block)) continue;
    PageRuns runs([&](std::uint64_t start, std::uint64_t length) { pages.Add(start, length); });
    ForEachPageEntry(arena, offset, block.length / kPage,
                     [&](std::uint64_t at, std::uint64_t entry) {
                       if (Resident(arena, entry) && (entry & kPmFile) != 0) runs.Add(at);
                     });
    runs.Flush();
  }
  if (RangeSet* noted = TouchedAfter(arena, arena.switched_in_at))
    *noted = std::move(pages);
  else
    arena.touched_after.emplace_back(arena.switched_in_at, std::move(pages));
  arena.switched_in_at = -1;
}

namespace {

std::uint64_t ProcessFaults() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_minflt) + static_cast<std::uint64_t>(usage.ru_majflt);
}

}  // namespace

void DropFileCopies() {
  // Faults that can have made copies: one per page written at least, so
  // fewer than a megabyte's worth since the last call are not worth the
  // walk of the blocks' page tables.
  constexpr std::uint64_t kMinFaults = (1u << 20) / kPage;
  if (!g_file_mapped.load(std::memory_order_relaxed)) return;
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready || g_arena->detached) return;
  Arena& arena = *g_arena;
  std::uint64_t faults = ProcessFaults();
  if (faults - arena.faults_at_drop < kMinFaults) return;
  arena.faults_at_drop = faults;
  // Only the file pages of pages that are now the rank's own: those the
  // program reads through the mapping are its data, and a page read ahead
  // and not mapped yet is likely its next (dropping all unmapped ones
  // took LULESH's reads from 685 to 891 MiB per cycle). The kernel keeps
  // what is dirty or under I/O, and a large folio it would have to split.
  PageRuns copied([&](std::uint64_t start, std::uint64_t length) {
    posix_fadvise(arena.fd, static_cast<off_t>(start), static_cast<off_t>(length),
                  POSIX_FADV_DONTNEED);
  });
  for (const auto& [offset, block] : arena.used) {
    if (!block.file_mapped || block.metadata) continue;
    ForEachPageEntry(arena, offset, block.length / kPage,
                     [&](std::uint64_t at, std::uint64_t entry) {
                       if (Dirty(arena, entry)) copied.Add(at);
                     });
  }
  copied.Flush();
}

void DropFileCache() {
  if (!g_file_mapped.load(std::memory_order_relaxed)) return;
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready || g_arena->detached) return;
  // Whatever is left would stay cached, counted by nobody, until reclaim
  // takes it. The kernel keeps the pages a mapping holds.
  posix_fadvise(g_arena->fd, 0, 0, POSIX_FADV_DONTNEED);
}

namespace {

// How many huge folios a fault on a written-back heap chunk reads: one
// after a point-to-point call, two (the faulting one and the next, the
// kernel's read-ahead for a huge-page mapping) after anything else. A rank
// resumed out of a receive or wait of a halo exchange touches the
// neighbours' rows of its heap objects here and there before it sweeps
// them, and the second folio of each such fault is mostly bytes it does
// not touch now, which crowd the budget out. HPCG (matrix rows from new[],
// a halo exchange before each sweep) at 2.8 x a 192 MiB cgroup took 1.08
// s per CG iteration against 1.67, switching each rank out 4.5 times
// against 7.8; with the same for program blocks, SGD, which sweeps its
// factor blocks after its exchanges, took 1.1 x as long, and PageRank,
// SGD and k-means were unchanged with heap chunks alone. MADV_RANDOM
// keeps the huge-page advice's single folio and drops the second; the
// switch-out before any resume mapped every piece MADV_SEQUENTIAL again
// (MapFile), so only a resume out of a point-to-point call changes it.
void ReadOneFolioOnHeapChunks(Arena& arena) {
  for (const auto& [offset, block] : arena.used)
    if (block.heap && !block.metadata && block.file_mapped && block.length >= kHugePage)
      madvise(arena.base + offset, block.length, MADV_RANDOM);  // advice only
}

}  // namespace

void PrefetchAll(int point, bool after_message) {
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready) return;
  if (after_message) ReadOneFolioOnHeapChunks(*g_arena);
  g_arena->resumed_from = point;
  ReadBackLocked(*g_arena, ReadBack::kRewritten, point);
  if (g_arena->reads_touched) ReadTouched(*g_arena, point);
}

void ReadAhead() {
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready) return;
  ReadBackLocked(*g_arena, ReadBack::kAll);
}

ReleaseStats ReleaseRange(void* p, std::size_t bytes) {
  Locked lock;
  LentCopiesKept(p, bytes);  // it takes clean file pages for the storage file's
  ReleaseStats total;
  if (g_arena == nullptr || !g_arena->ready) return total;
  Arena& arena = *g_arena;
  std::vector<Run> pieces;
  ForEachPiece(arena, p, bytes, true,
               [&](std::uint64_t block_offset, Block& block, std::uint64_t start,
                   std::uint64_t length) {
                 ReleaseStats stats =
                     WriteBack(arena, block_offset, block, start, length, false);
                 if (stats.written > 0) block.file_written = true;
                 block.file_mapped = true;
                 total.written += stats.written;
                 total.dropped += stats.dropped;
                 pieces.push_back({start, length});
               });
  if (total.written > 0) SyncFile(arena);
  for (const Run& piece : pieces) {
    MapFile(arena, piece.start, piece.length);
    posix_fadvise(arena.fd, static_cast<off_t>(piece.start),
                  static_cast<off_t>(piece.length), POSIX_FADV_DONTNEED);
  }
  return total;
}

void PrefetchRange(void* p, std::size_t bytes) {
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready) return;
  Arena& arena = *g_arena;
  ForEachPiece(arena, p, bytes, true,
               [&](std::uint64_t, Block&, std::uint64_t start, std::uint64_t length) {
                 Readahead(arena, start, length);
               });
  ForEachPiece(arena, p, bytes, true,
               [&](std::uint64_t, Block&, std::uint64_t start, std::uint64_t length) {
                 Populate(arena, start, length);
               });
}

void DiscardRange(void* p, std::size_t bytes) {
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready) return;
  Arena& arena = *g_arena;
  ForEachPiece(arena, p, bytes, false,
               [&](std::uint64_t, Block& block, std::uint64_t start, std::uint64_t length) {
                 // Zero in the file too (a later switch-out maps the file),
                 // with its disk blocks reserved again.
                 if (fallocate(arena.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                               static_cast<off_t>(start), static_cast<off_t>(length)) != 0)
                   ThrowSystemError("fallocate(PUNCH_HOLE) of the storage file in " +
                                        arena.dir, errno);
                 if (int err = ReserveDisk(arena, start, length); err != 0)
                   ThrowSystemError("fallocate of the storage file in " + arena.dir, err);
                 if (!MapFreshIn(arena, block, start, length))
                   ThrowSystemError("mmap of anonymous memory over the storage arena", errno);
                 block.known_dirty = false;
               });
}

void FreshPages(void* p, std::size_t bytes) {
  if (bytes < kMinFreshBytes || !Owns(p)) return;
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready || g_arena->detached) return;
  Arena& arena = *g_arena;
  std::uint64_t lo = static_cast<char*>(p) - arena.base, hi = lo + bytes;
  std::uint64_t fresh = 0;
  ForEachPiece(arena, p, bytes, true,
               [&](std::uint64_t block_offset, Block& block, std::uint64_t start,
                   std::uint64_t length) {
                 // Never written back: its absent pages read as zero without I/O.
                 if (!block.file_written) return;
                 // A message that starts where the block's data does leaves
                 // only the colour's padding of its first page uncovered:
                 // that page is fresh as a whole, so that the block's first
                 // huge page can be too (else its other 511 pages take a
                 // fault each, 10-20 us apiece on the test machines' VMs).
                 bool from_data_start = lo == block_offset + block.colour;
                 PageRuns absent([&](std::uint64_t run_start, std::uint64_t run_length) {
                   if (!MapFreshIn(arena, block, run_start, run_length))
                     ThrowSystemError("mmap of anonymous memory over the storage arena", errno);
                   fresh += run_length;
                 });
                 // Absent pages (swapped ones too) are what a fault would
                 // read; present ones cost no read. A page the message
                 // covers in part is faulted in here, that page alone: the
                 // copy's fault would read around it, megabytes with the
                 // page cache's large folios, of pages just made fresh. It
                 // is not replaced: its other bytes may be another
                 // receive's, which a sender or another thread may be
                 // writing meanwhile.
                 ForEachPageEntry(arena, start, length / kPage,
                                  [&](std::uint64_t at, std::uint64_t entry) {
                                    bool padding_before = from_data_start && at < lo &&
                                                          at + kPage <= hi;
                                    if ((entry & kPmPresent) != 0) {
                                      absent.Flush();
                                    } else if ((at < lo && !padding_before) || at + kPage > hi) {
                                      absent.Flush();
                                      ReadPageAlone(arena, at);
                                    } else {
                                      absent.Add(at);
                                    }
                                  });
                 absent.Flush();
               });
  if (fresh > 0 && arena.slot != nullptr)
    arena.slot->fresh.fetch_add(fresh, std::memory_order_relaxed);
}

namespace {

// Copies up to `length` bytes from in_fd at `from` to out_fd at `to`
// (copy_file_range, else through a 1 MiB buffer where the file systems
// refuse it: never the whole range in memory). Returns the count, short
// only at the end of in_fd, or -1 with errno set.
std::int64_t CopyRange(int in_fd, std::uint64_t from, int out_fd, std::uint64_t to,
                       std::uint64_t length) {
  std::uint64_t done = 0;
  while (done < length) {
    loff_t in = static_cast<loff_t>(from + done), out = static_cast<loff_t>(to + done);
    ssize_t n = copy_file_range(in_fd, &in, out_fd, &out, length - done, 0);
    if (n > 0) {
      done += static_cast<std::uint64_t>(n);
      continue;
    }
    if (n == 0) break;
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return -1;
    std::vector<char> bounce(std::min<std::uint64_t>(length - done, 1 << 20));
    while (done < length) {
      std::size_t chunk =
          static_cast<std::size_t>(std::min<std::uint64_t>(bounce.size(), length - done));
      ssize_t got = PreadFull(in_fd, bounce.data(), chunk, from + done);
      if (got < 0) return -1;
      std::size_t bytes = static_cast<std::size_t>(got);
      if (bytes > 0 && PwriteFull(out_fd, bounce.data(), bytes, to + done) < 0) return -1;
      done += bytes;
      if (bytes < chunk) break;
    }
    break;
  }
  return static_cast<std::int64_t>(done);
}

// The block holding arena offset `start` and its whole pages from there,
// at most `bytes`: the block's map entry, or end() when there is none.
std::map<std::uint64_t, Block>::iterator WholePages(Arena& arena, const void* p,
                                                    std::size_t bytes, std::uint64_t* start,
                                                    std::uint64_t* length) {
  auto addr = reinterpret_cast<std::uintptr_t>(p);
  auto base = reinterpret_cast<std::uintptr_t>(arena.base);
  if (addr % kPage != 0 || addr < base || addr >= base + arena.size) return arena.used.end();
  *start = addr - base;
  auto it = arena.used.upper_bound(*start);
  if (it == arena.used.begin()) return arena.used.end();
  --it;
  if (*start >= it->first + it->second.length) return arena.used.end();
  *length = std::min<std::uint64_t>(bytes, it->first + it->second.length - *start) / kPage * kPage;
  return *length == 0 ? arena.used.end() : it;
}

}  // namespace

std::size_t ReadFileInto(int fd, std::uint64_t offset, void* p, std::size_t bytes) {
  Locked lock;
  if (g_arena == nullptr || !g_arena->ready) return 0;
  Arena& arena = *g_arena;
  std::uint64_t start = 0, length = 0;
  auto it = WholePages(arena, p, bytes, &start, &length);
  if (it == arena.used.end()) return 0;
  std::int64_t copied = CopyRange(fd, offset, arena.fd, start, length);
  if (copied < 0) ThrowSystemError("copy into the storage file in " + arena.dir, errno);
  std::uint64_t pages = static_cast<std::uint64_t>(copied) / kPage * kPage;
  if (pages > 0) {
    MapFile(arena, start, pages);
    it->second.known_dirty = false;
    it->second.file_written = true;
    it->second.file_mapped = true;
  }
  return static_cast<std::size_t>(pages);
}

std::int64_t WriteFileFrom(int fd, std::uint64_t offset, const void* p, std::size_t bytes) {
  Locked lock;
  LentCopiesKept(p, bytes);  // it takes clean file pages for the storage file's
  if (g_arena == nullptr || !g_arena->ready) return 0;
  Arena& arena = *g_arena;
  std::uint64_t start = 0, length = 0;
  if (WholePages(arena, p, bytes, &start, &length) == arena.used.end()) return 0;
  // Runs of pages whose data is in the backing file (not resident, or
  // clean file pages) go file to file; the others from memory.
  std::uint64_t run_start = start, run_length = 0;
  bool run_in_file = false, ok = true;
  auto flush = [&] {
    if (run_length == 0 || !ok) return;
    std::uint64_t to = offset + (run_start - start);
    ok = run_in_file ? CopyRange(arena.fd, run_start, fd, to, run_length) ==
                           static_cast<std::int64_t>(run_length)
                     : PwriteFull(fd, arena.base + run_start, run_length, to) >= 0;
    run_length = 0;
  };
  ForEachPageEntry(arena, start, length / kPage, [&](std::uint64_t at, std::uint64_t entry) {
    bool in_file = !Dirty(arena, entry);
    if (run_length > 0 && run_in_file == in_file && run_start + run_length == at) {
      run_length += kPage;
      return;
    }
    flush();
    run_start = at;
    run_length = kPage;
    run_in_file = in_file;
  });
  flush();
  if (!ok) return -1;
  return static_cast<std::int64_t>(length);
}

bool ArenaAvailable() {
  if (Threshold() == SIZE_MAX) return false;
  Locked lock;
  Arena* arena = nullptr;
  try {
    return EnsureReady(arena);
  } catch (const std::exception&) {
    return false;
  }
}

bool InHeap(const void* p) {
  auto addr = reinterpret_cast<std::uintptr_t>(p);
  return addr >= g_heap_base.load(std::memory_order_acquire) &&
         addr < g_end.load(std::memory_order_acquire);
}

void* AllocateChunk(std::size_t bytes, std::size_t alignment, bool commit) {
  if (Threshold() == SIZE_MAX) return nullptr;
  Locked lock;
  Arena* arena_ptr = nullptr;
  if (!EnsureReady(arena_ptr)) return nullptr;
  Arena& arena = *arena_ptr;
  try {
    std::uint64_t length = RoundUp(bytes == 0 ? 1 : bytes, kPage);
    std::uint64_t align = std::max<std::uint64_t>(alignment, kPage);
    auto base = reinterpret_cast<std::uintptr_t>(arena.base);
    for (auto it = arena.heap_free.begin(); it != arena.heap_free.end(); ++it) {
      std::uint64_t start = RoundUp(base + it->first, align) - base;
      if (start + length > it->first + it->second) continue;
      TakeFree(arena.heap_free, it, start, length);
      if (int err = ReserveDisk(arena, start, length); err != 0) {
        GiveBack(arena.heap_free, start, length);
        ReportNoSpace(arena, length, err);
        return nullptr;
      }
      if (!MapFresh(arena, start, length)) {
        ReportFileCall(arena, "mmap of anonymous memory over the arena range", start, length,
                       errno);
        return nullptr;  // the range is lost to this process
      }
      Block block;
      block.length = length;
      block.heap = true;
      block.metadata = commit;
      arena.used.emplace(start, std::move(block));
      if (commit) {
        arena.metadata.push_back({start, length});
      } else {
        arena.uncommitted.Add(start, length);
      }
      Publish(arena);
      return arena.base + start;
    }
  } catch (const std::exception&) {  // bookkeeping out of memory
  }
  return nullptr;
}

bool CommitChunkRange(void* p, std::size_t bytes) {
  Locked lock;
  Arena& arena = *g_arena;
  std::uint64_t offset = static_cast<char*>(p) - arena.base;
  try {
    // Zeros in the file first where it may hold old data: the range is
    // mapped from the file after a switch-out.
    if (arena.stale.Overlap(offset, bytes) > 0) {
      if (arena.detached) return false;
      bool zeroed = true;
      arena.stale.ForEachOverlap(offset, bytes, [&](std::uint64_t at, std::uint64_t length) {
        zeroed = zeroed && ZeroFile(arena, at, length);
      });
      if (!zeroed) return false;
      arena.stale.Remove(offset, bytes);
    }
    // Pages read back since the decommit (a read-ahead of the whole chunk)
    // go: the range reads as zero.
    if (madvise(p, bytes, MADV_DONTNEED) != 0) return false;
    arena.heap_committed += arena.uncommitted.Overlap(offset, bytes);
    arena.uncommitted.Remove(offset, bytes);
  } catch (const std::exception&) {
    return false;
  }
  Publish(arena);
  return true;
}

bool DecommitChunkRange(void* p, std::size_t bytes) {
  Locked lock;
  Arena& arena = *g_arena;
  std::uint64_t offset = static_cast<char*>(p) - arena.base;
  auto it = arena.used.upper_bound(offset);
  if (it == arena.used.begin()) return false;
  const Block& chunk = std::prev(it)->second;
  try {
    if (madvise(p, bytes, MADV_DONTNEED) != 0) return false;
    // The file keeps what was written back: a later commit zeroes it, and
    // until then nothing reads the range.
    if (chunk.file_written) arena.stale.Add(offset, bytes);
    arena.heap_committed -= bytes - arena.uncommitted.Overlap(offset, bytes);
    arena.uncommitted.Add(offset, bytes);
  } catch (const std::exception&) {
    return false;
  }
  Publish(arena);
  return true;
}

bool SameChunk(const void* a, const void* b) {
  Locked lock;
  Arena& arena = *g_arena;
  std::uint64_t offset = static_cast<const char*>(a) - arena.base;
  auto it = arena.used.upper_bound(offset);
  if (it == arena.used.begin()) return false;
  --it;
  std::uint64_t other = static_cast<const char*>(b) - arena.base;
  return other >= it->first && other < it->first + it->second.length;
}

std::uint64_t HeapCommittedHint() { return g_heap_committed.load(std::memory_order_relaxed); }

std::uint64_t HeapCommittedBytes() {
  Locked lock;
  return g_arena == nullptr ? 0 : g_arena->heap_committed + MetadataResident(*g_arena);
}

std::uint64_t HeapMetadataResidentBytes() {
  Locked lock;
  return g_arena == nullptr ? 0 : MetadataResident(*g_arena);
}

std::uint64_t AllocatedBytes() {
  Locked lock;
  if (g_arena == nullptr) return 0;
  std::uint64_t kept = 0;
  for (const Recycled& block : g_arena->recycled)
    if (block.mapped) kept += block.length;
  return g_arena->allocated - kept;
}

void DropRecycled() {
  Locked lock;
  if (g_arena == nullptr) return;
  while (!g_arena->recycled.empty()) DropOldestRecycled(*g_arena);
  Publish(*g_arena);
}

void CountOutsideArena(std::int64_t delta) {
  g_outside.fetch_add(static_cast<std::uint64_t>(delta), std::memory_order_relaxed);
  if (Threshold() == SIZE_MAX) return;
  Locked lock;
  Arena* arena = nullptr;
  try {
    if (!EnsureReady(arena)) return;
  } catch (const std::exception&) {
    return;
  }
  Publish(*arena);
}

}  // namespace bdmpi::memory
