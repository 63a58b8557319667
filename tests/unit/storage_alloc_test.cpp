// The storage-backed allocator (src/slave/memory) in a plain process: the
// test's environment (CMakeLists.txt) makes it look like a slave, so that
// malloc and friends of this very program go through the arena.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "slave/memory/allocation_route.h"
#include "slave/memory/arena.h"
#include "slave/memory/dead_pages.h"
#include "slave/memory/heap.h"
#include "test_util.h"

// The allocator reads its environment at the first malloc, before main:
// a constructor re-executes the program with it set.
__attribute__((constructor)) static void BecomeSlave(int, char** argv, char**) {
  if (std::getenv("BDMPI_SPILL_DIR") != nullptr) return;
  setenv("BDMPI_SPILL_DIR", STORAGE_TEST_DIR, 1);
  setenv("BDMPI_SLAVE", "0", 1);
  setenv("BDMPI_STORAGE_THRESHOLD", "65536", 1);
  setenv("BDMPI_PREFETCH", "eager", 1);
  execv("/proc/self/exe", argv);
  std::perror("storage_alloc_test: re-exec");
  _exit(2);
}

// glibc's own malloc, for memory from before the arena.
extern "C" void* __libc_malloc(std::size_t size);

// Failure injection: the arena, linked into this program from
// bdmpi_slave_core, calls this fallocate instead of the C library's. While
// set, hole punching fails with EIO.
// g_hole_punches counts the punches.
std::atomic<bool> g_fail_hole_punch{false};
std::atomic<int> g_hole_punches{0};
extern "C" int fallocate(int fd, int mode, off_t offset, off_t length) __THROW {
  if ((mode & FALLOC_FL_PUNCH_HOLE) != 0) ++g_hole_punches;
  if (g_fail_hole_punch.load() && (mode & FALLOC_FL_PUNCH_HOLE) != 0) {
    errno = EIO;
    return -1;
  }
  return static_cast<int>(syscall(SYS_fallocate, fd, mode, offset, length));
}

namespace bdmpi::memory {
namespace {

std::size_t T() { return Threshold(); }

// Blocks allocated before the test (the C++ runtime's emergency exception
// pool, 72 KiB, is one).
class StorageAlloc : public testing::Test {
 protected:
  void SetUp() override { baseline_ = AllocatedBytes(); }
  std::uint64_t Leaked() const { return AllocatedBytes() - baseline_; }
  std::uint64_t baseline_ = 0;
};

void Fill(void* p, std::size_t bytes, unsigned seed) {
  auto* b = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>(seed + i * 7 + (i >> 12));
}

// Index of the first byte that differs from Fill's pattern, or -1.
long Mismatch(const void* p, std::size_t bytes, unsigned seed) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i)
    if (b[i] != static_cast<unsigned char>(seed + i * 7 + (i >> 12))) return static_cast<long>(i);
  return -1;
}

// The page a block starts at: the arena's blocks begin at a page boundary
// and the program's pointer lies a colour into it.
std::uintptr_t PageOf(const void* p) { return reinterpret_cast<std::uintptr_t>(p) / 4096 * 4096; }

// A block without a colour, for the tests of what is done page by page.
unsigned char* PageAligned(std::size_t bytes) {
  return static_cast<unsigned char*>(aligned_alloc(4096, bytes));
}

// Resident pages among those that [p, p + bytes) touches (mincore).
std::size_t ResidentPages(void* p, std::size_t bytes) {
  std::uintptr_t first = PageOf(p);
  std::uintptr_t end = PageOf(static_cast<char*>(p) + bytes + 4095);
  std::vector<unsigned char> vec((end - first) / 4096);
  EXPECT_EQ(mincore(reinterpret_cast<void*>(first), end - first, vec.data()), 0)
      << std::strerror(errno);
  std::size_t n = 0;
  for (unsigned char v : vec) n += v & 1;
  return n;
}

TEST_F(StorageAlloc, IsOnInThisTest) {
  ASSERT_NE(T(), SIZE_MAX) << "the test needs BDMPI_SPILL_DIR and BDMPI_SLAVE set";
  EXPECT_EQ(T(), 64u * 1024);
}

TEST_F(StorageAlloc, SizesAroundTheThreshold) {
  for (std::size_t size : {T() - 1, T(), T() + 1, 2 * T() + 5, 4096 * T() + 3}) {
    void* p = std::malloc(size);
    ASSERT_NE(p, nullptr) << size;
    // Below the threshold: the heap, also in the arena's range.
    EXPECT_TRUE(Owns(p)) << size;
    EXPECT_EQ(InHeap(p), size < T()) << size;
    EXPECT_GE(malloc_usable_size(p), size);
    Fill(p, size, 3);
    EXPECT_EQ(Mismatch(p, size, 3), -1) << size;
    std::free(p);
  }
  EXPECT_EQ(Leaked(), 0u);
}

TEST_F(StorageAlloc, Alignment) {
  for (std::size_t align : {std::size_t{16}, std::size_t{4096}, std::size_t{65536},
                            std::size_t{1} << 21}) {
    void* p = nullptr;
    ASSERT_EQ(posix_memalign(&p, align, T() + 100), 0);
    EXPECT_TRUE(Owns(p));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % align, 0u) << align;
    Fill(p, T() + 100, 1);
    void* q = aligned_alloc(align, 3 * T());
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(q) % align, 0u) << align;
    void* r = memalign(align, 2 * T());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(r) % align, 0u) << align;
    EXPECT_EQ(Mismatch(p, T() + 100, 1), -1);
    std::free(p);
    std::free(q);
    std::free(r);
  }
  void* v = valloc(T());
  EXPECT_TRUE(Owns(v));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v) % 4096, 0u);
  std::free(v);
  void* p = nullptr;
  EXPECT_EQ(posix_memalign(&p, 24, T()), EINVAL);
  EXPECT_EQ(posix_memalign(&p, 2, T()), EINVAL);  // below sizeof(void*)
  EXPECT_EQ(Leaked(), 0u);
}

// Colours: a block's data starts a cache line into its first page that
// differs from block to block, within every alignment asked for;
// page-aligned requests start at the page.
TEST_F(StorageAlloc, ColoursKeepEveryAlignment) {
  for (std::size_t align = 8; align <= (std::size_t{1} << 21); align <<= 1) {
    for (unsigned i = 0; i < 3; ++i) {
      void* p = nullptr;
      ASSERT_EQ(posix_memalign(&p, align, T() + 100), 0) << align;
      void* q = aligned_alloc(align, 2 * T());
      ASSERT_NE(q, nullptr) << align;
      for (void* r : {p, q}) {
        EXPECT_TRUE(Owns(r) && !InHeap(r)) << align;
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(r) % std::max<std::size_t>(align, 64), 0u)
            << align;
      }
      Fill(p, T() + 100, i);
      Fill(q, 2 * T(), i + 1);
      EXPECT_EQ(Mismatch(p, T() + 100, i), -1) << align;
      EXPECT_EQ(Mismatch(q, 2 * T(), i + 1), -1) << align;
      std::free(p);
      std::free(q);
    }
  }
  void* pv = pvalloc(T() + 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pv) % 4096, 0u);
  EXPECT_GE(malloc_usable_size(pv), T() + 4096);
  std::free(pv);
  DropRecycled();
  EXPECT_EQ(Leaked(), 0u);
}

// Two arrays of one size allocated one after the other (k-means' centroids
// and sums) start at different offsets in their pages; 32 blocks in a row
// take every odd cache line of a page once (odd: off the 128-byte
// alignment of the heap's objects).
TEST_F(StorageAlloc, ConsecutiveBlocksStartAtDifferentPageOffsets) {
  DropRecycled();
  std::size_t size = 50000 * 16 * sizeof(double);
  void* centroids = std::malloc(size);
  void* sums = std::malloc(size);
  EXPECT_NE(reinterpret_cast<std::uintptr_t>(centroids) % 4096,
            reinterpret_cast<std::uintptr_t>(sums) % 4096);
  std::free(sums);
  std::free(centroids);
  DropRecycled();
  std::vector<void*> blocks;
  blocks.reserve(32);
  std::vector<bool> taken(32, false);
  for (int i = 0; i < 32; ++i) {
    blocks.push_back(std::malloc(T()));
    auto at = reinterpret_cast<std::uintptr_t>(blocks.back()) % 4096;
    EXPECT_EQ(at % 128, 64u);
    taken[at / 128] = true;
  }
  EXPECT_EQ(std::count(taken.begin(), taken.end(), true), 32);
  for (void* p : blocks) std::free(p);
  DropRecycled();
  EXPECT_EQ(Leaked(), 0u);
}

// A coloured block's usable size runs from the pointer to the block's end
// and no further; realloc keeps the bytes in place and when it moves; a
// kept block reused at another colour is zero from calloc; free takes
// only the pointer handed out.
TEST_F(StorageAlloc, ColouredBlocksReallocFreeAndCalloc) {
  DropRecycled();
  std::size_t size = 3 * T() + 10;
  auto* p = static_cast<unsigned char*>(std::malloc(size));
  std::size_t usable = malloc_usable_size(p);
  EXPECT_GE(usable, size);
  EXPECT_LT(usable - size, 4096u);
  EXPECT_EQ((reinterpret_cast<std::uintptr_t>(p) + usable) % 4096, 0u);
  EXPECT_TRUE(InLiveBlock(p, usable));
  EXPECT_FALSE(InLiveBlock(p, usable + 1));
  Fill(p, usable, 1);
  // In place: grows into the free range after it, then shrinks.
  unsigned char* before = p;
  p = static_cast<unsigned char*>(std::realloc(p, 6 * T()));
  EXPECT_EQ(p, before);
  EXPECT_EQ(Mismatch(p, usable, 1), -1);
  Fill(p, 6 * T(), 2);
  p = static_cast<unsigned char*>(std::realloc(p, 2 * T()));
  EXPECT_EQ(p, before);
  EXPECT_EQ(Mismatch(p, 2 * T(), 2), -1);
  usable = malloc_usable_size(p);
  EXPECT_LT(usable - 2 * T(), 4096u);
  // Moved past a neighbour: every usable byte comes along.
  std::uintptr_t block_end = reinterpret_cast<std::uintptr_t>(p) + usable;
  std::vector<void*> fillers;
  while (fillers.empty() || PageOf(fillers.back()) != block_end) {
    fillers.push_back(std::malloc(T()));
    ASSERT_LT(fillers.size(), 10000u);
  }
  Fill(p, usable, 3);
  p = static_cast<unsigned char*>(std::realloc(p, 8 * T()));
  EXPECT_NE(PageOf(p), PageOf(before));
  EXPECT_EQ(Mismatch(p, usable, 3), -1);
  std::free(p);
  for (void* filler : fillers) std::free(filler);
  // Kept and taken again at the next colour.
  auto* q = static_cast<unsigned char*>(std::malloc(size));
  std::memset(q, 0xab, malloc_usable_size(q));
  auto q_at = reinterpret_cast<std::uintptr_t>(q);
  std::free(q);
  auto* r = static_cast<unsigned char*>(std::calloc(1, size));
  EXPECT_EQ(PageOf(r), PageOf(reinterpret_cast<void*>(q_at)));
  EXPECT_NE(reinterpret_cast<std::uintptr_t>(r), q_at);
  EXPECT_TRUE(std::all_of(r, r + size, [](unsigned char c) { return c == 0; }));
  volatile std::uintptr_t inside = reinterpret_cast<std::uintptr_t>(r) + 64;
  EXPECT_DEATH(std::free(reinterpret_cast<void*>(inside)), "invalid pointer");
  std::free(r);
  DropRecycled();
  EXPECT_EQ(Leaked(), 0u);
}

TEST_F(StorageAlloc, ReallocAcrossTheThresholdKeepsContents) {
  std::size_t small = 1000;
  auto* p = static_cast<unsigned char*>(std::malloc(small));
  ASSERT_TRUE(InHeap(p));
  Fill(p, small, 5);
  // Up across the threshold: copied into a storage block.
  p = static_cast<unsigned char*>(std::realloc(p, 3 * T()));
  ASSERT_TRUE(Owns(p));
  EXPECT_EQ(Mismatch(p, small, 5), -1);
  Fill(p, 3 * T(), 6);
  // Grows in place: nothing was allocated after it.
  unsigned char* before = p;
  p = static_cast<unsigned char*>(std::realloc(p, 10 * T()));
  EXPECT_EQ(p, before);
  EXPECT_EQ(Mismatch(p, 3 * T(), 6), -1);
  // Blocked by a neighbour: moves, contents kept. First fit fills any
  // earlier holes before it reaches the range right after p.
  std::vector<void*> fillers;
  std::uintptr_t block_end = reinterpret_cast<std::uintptr_t>(p) + malloc_usable_size(p);
  while (fillers.empty() || PageOf(fillers.back()) != block_end) {
    fillers.push_back(std::malloc(T()));
    ASSERT_LT(fillers.size(), 10000u);
  }
  Fill(p, 10 * T(), 7);
  p = static_cast<unsigned char*>(std::realloc(p, 20 * T()));
  EXPECT_NE(p, before);
  EXPECT_TRUE(Owns(p));
  EXPECT_EQ(Mismatch(p, 10 * T(), 7), -1);
  // Shrinks in place.
  before = p;
  p = static_cast<unsigned char*>(std::realloc(p, 2 * T()));
  EXPECT_EQ(p, before);
  EXPECT_EQ(Mismatch(p, 2 * T(), 7), -1);
  // Down across the threshold: into the heap, prefix kept.
  p = static_cast<unsigned char*>(std::realloc(p, 100));
  EXPECT_TRUE(InHeap(p));
  EXPECT_EQ(Mismatch(p, 100, 7), -1);
  std::free(p);
  for (void* filler : fillers) std::free(filler);
  EXPECT_EQ(Leaked(), 0u);
}

TEST_F(StorageAlloc, CallocOfAReusedRangeIsZero) {
  std::size_t size = 8 * T();
  void* p = std::malloc(size);
  std::memset(p, 0xff, size);
  std::uintptr_t page = PageOf(p);
  std::free(p);
  auto* q = static_cast<unsigned char*>(std::calloc(size / 8, 8));
  EXPECT_EQ(PageOf(q), page) << "the freed range should be reused";
  for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(q[i], 0) << i;
  std::free(q);
  // Also after a switch-out wrote the old contents to the file.
  p = std::malloc(size);
  std::memset(p, 0xee, size);
  ReleaseAll();
  page = PageOf(p);
  std::free(p);
  q = static_cast<unsigned char*>(std::calloc(1, size));
  EXPECT_EQ(PageOf(q), page);
  for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(q[i], 0) << i;
  ReleaseAll();  // q's pages were only read: zero in the file too
  for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(q[i], 0) << i;
  std::free(q);
  volatile std::size_t huge = SIZE_MAX / 2;  // volatile: no compile-time warning
  void* overflow = std::calloc(huge, 4);
  EXPECT_EQ(overflow, nullptr);
}

// A freed range reads as zero when reused because its file blocks are
// punched out. When that fails the range could show the old contents after
// a switch-out: the failure is reported and the range not used again.
TEST_F(StorageAlloc, AFailedHolePunchIsReportedAndTheRangeNotReused) {
  std::size_t size = 8 * T();
  void* p = PageAligned(size);
  std::size_t block = malloc_usable_size(p);  // no colour: the block's length
  std::memset(p, 0xdd, size);
  ReleaseAll();  // the contents are in the file now
  testing::internal::CaptureStderr();
  g_fail_hole_punch = true;
  std::uintptr_t page = PageOf(p);
  std::free(p);
  DropRecycled();  // free() keeps the block for reuse; this punches
  g_fail_hole_punch = false;
  std::string reported = testing::internal::GetCapturedStderr();
  // (A block kept from an earlier test may be a page longer.)
  EXPECT_NE(reported.find("fallocate(PUNCH_HOLE) of " + std::to_string(block) +
                          " bytes at offset"), std::string::npos) << reported;
  EXPECT_NE(reported.find(std::string("of the storage file in ") + STORAGE_TEST_DIR +
                          " failed: Input/output error"), std::string::npos) << reported;
  auto* q = static_cast<unsigned char*>(std::calloc(1, size));
  EXPECT_NE(PageOf(q), page);
  ReleaseAll();  // q's pages were only read: mapped from the file now
  for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(q[i], 0) << i;
  std::free(q);
}

TEST_F(StorageAlloc, FreedRangesCoalesceAndAreReused) {
  void* a = std::malloc(2 * T());
  void* b = std::malloc(3 * T());
  void* c = std::malloc(T());
  ASSERT_EQ(PageOf(b), reinterpret_cast<std::uintptr_t>(a) + malloc_usable_size(a));
  std::uintptr_t page = PageOf(a);
  std::free(a);
  std::free(b);
  DropRecycled();                  // otherwise kept whole for reuse
  void* d = std::malloc(5 * T());  // fits only in a and b together
  EXPECT_EQ(PageOf(d), page);
  std::free(c);
  std::free(d);
  EXPECT_EQ(Leaked(), 0u);
}

// A block freed and allocated again per iteration is reused whole, with
// no hole punched (4 ms and more each where the disk discards at once).
TEST_F(StorageAlloc, AFreedBlockIsReusedWithoutAHolePunch) {
  DropRecycled();
  std::size_t size = 16 * T();
  int punches = g_hole_punches;
  void* p = std::malloc(size);
  std::uintptr_t page = PageOf(p);
  for (int i = 0; i < 10; ++i) {
    Fill(p, size, static_cast<unsigned>(i));
    std::free(p);
    void* q = std::malloc(size - 100);  // about the same size will do
    EXPECT_EQ(PageOf(q), page) << i;
    p = q;
  }
  std::free(p);
  EXPECT_EQ(g_hole_punches - punches, 0);
  EXPECT_EQ(Leaked(), 0u);
  // A switch-out unmaps the kept block without writing it; reused later,
  // it is fresh memory again.
  ReleaseAll();
  EXPECT_EQ(ResidentPages(reinterpret_cast<void*>(page), size + 4096), 0u);
  void* q = std::malloc(size);
  EXPECT_EQ(PageOf(q), page);
  Fill(q, size, 9);
  EXPECT_EQ(Mismatch(q, size, 9), -1);
  std::free(q);
  EXPECT_EQ(g_hole_punches - punches, 0);
  DropRecycled();
  EXPECT_EQ(g_hole_punches - punches, 1);
}

// InLiveBlock (which lets a send copy with memcpy) holds for ranges inside
// one live block only: not across its end, not for a freed (even a kept)
// block, not for memory outside the arena.
TEST_F(StorageAlloc, InLiveBlockCoversExactlyTheLiveBlocks) {
  DropRecycled();
  std::size_t size = 4 * T();
  auto* p = static_cast<char*>(std::malloc(size));
  std::size_t usable = UsableSize(p);
  EXPECT_TRUE(InLiveBlock(p, size));
  EXPECT_TRUE(InLiveBlock(p + 100, usable - 100));
  EXPECT_FALSE(InLiveBlock(p + 100, usable));
  EXPECT_FALSE(InLiveBlock(reinterpret_cast<char*>(PageOf(p)) - 1, 2));
  char on_stack[64];
  EXPECT_FALSE(InLiveBlock(on_stack, sizeof on_stack));
  std::free(p);  // kept for reuse, still mapped, but not the program's
  EXPECT_FALSE(InLiveBlock(p, size));
  DropRecycled();
  EXPECT_FALSE(InLiveBlock(p, size));
}

// At most 8 blocks and 64 MiB are kept, oldest dropped first; a much
// larger or smaller request does not take a kept block.
TEST_F(StorageAlloc, KeptBlocksAreBounded) {
  DropRecycled();
  int punches = g_hole_punches;
  std::vector<void*> blocks;
  for (int i = 0; i < 12; ++i) blocks.push_back(std::malloc(4 * T()));
  for (void* p : blocks) std::free(p);
  EXPECT_EQ(g_hole_punches - punches, 4);
  // A request that would waste half of a kept block takes none of them,
  // and the kept ones go: sizes have changed.
  punches = g_hole_punches;
  void* small = std::malloc(2 * T());
  EXPECT_EQ(std::find(blocks.begin() + 4, blocks.end(), small), blocks.end());
  EXPECT_EQ(g_hole_punches - punches, 8);
  std::free(small);
  void* huge = std::malloc((64u << 20) + 4096);  // above the bound: dropped at free
  ASSERT_NE(huge, nullptr);
  punches = g_hole_punches;
  std::free(huge);
  EXPECT_EQ(g_hole_punches - punches, 1);
  DropRecycled();
  EXPECT_EQ(Leaked(), 0u);
}

TEST_F(StorageAlloc, ManyAllocations) {
  std::mt19937 rng(42);
  struct Live {
    void* p;
    std::size_t size;
    unsigned seed;
  };
  std::vector<Live> live;
  for (int i = 0; i < 2000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      std::size_t k = rng() % live.size();
      ASSERT_EQ(Mismatch(live[k].p, live[k].size, live[k].seed), -1);
      std::free(live[k].p);
      live.erase(live.begin() + static_cast<long>(k));
    } else {
      std::size_t size = T() / 2 + rng() % (4 * T());
      void* p = std::malloc(size);
      ASSERT_NE(p, nullptr);
      Fill(p, size, static_cast<unsigned>(i));
      live.push_back({p, size, static_cast<unsigned>(i)});
    }
    if (i % 500 == 0) ReleaseAll();  // contents must survive switch-outs
  }
  for (Live& l : live) {
    ASSERT_EQ(Mismatch(l.p, l.size, l.seed), -1);
    std::free(l.p);
  }
  EXPECT_EQ(Leaked(), 0u);
}

TEST_F(StorageAlloc, SwitchOutWritesDirtyPagesOnceAndDropsThem) {
  // Other blocks of the process, and the heap's own bookkeeping (its purge
  // before every switch-out writes to it), may add a few pages.
  constexpr std::size_t kSlack = 256 * 1024;
  ReleaseAll();
  std::size_t size = 64 * T();  // 4 MiB
  auto* p = static_cast<unsigned char*>(std::malloc(size));
  Fill(p, size, 9);
  ReleaseStats first = ReleaseAll();
  EXPECT_GE(first.written, size);
  EXPECT_LT(first.written, size + kSlack);
  EXPECT_GE(first.dropped, size);
  EXPECT_EQ(ResidentPages(p, size), 0u);
  EXPECT_EQ(Mismatch(p, size, 9), -1);  // read back on touch
  // Only read since: nothing to write.
  ReleaseStats second = ReleaseAll();
  EXPECT_LT(second.written, kSlack);
  EXPECT_EQ(ResidentPages(p, size), 0u);
  // One page in four modified: only those are written.
  for (std::size_t page = 0; page < size / 4096; page += 4) p[page * 4096 + 1] ^= 0x5a;
  ReleaseStats third = ReleaseAll();
  EXPECT_GE(third.written, size / 4);
  EXPECT_LT(third.written, size / 4 + kSlack);
  for (std::size_t page = 0; page < size / 4096; page += 4) p[page * 4096 + 1] ^= 0x5a;
  EXPECT_EQ(Mismatch(p, size, 9), -1);
  std::free(p);
}

// Whether the kernel gives anonymous memory advised MADV_HUGEPAGE huge
// pages ("always" or "madvise" in transparent_hugepage/enabled).
bool HugePagesOnAdvice() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(enabled, line) && line.find("[never]") == std::string::npos;
}

// A field of /proc/self/smaps ("AnonHugePages:", "FilePmdMapped:"), in
// bytes, summed over the mappings that overlap [p, p + bytes).
std::uint64_t SmapsBytes(const void* p, std::size_t bytes, const std::string& field) {
  auto lo = reinterpret_cast<std::uintptr_t>(p), hi = lo + bytes;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  std::uint64_t total = 0;
  while (std::getline(smaps, line)) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2) {
      inside = start < hi && end > lo;
    } else if (inside && line.rfind(field, 0) == 0) {
      total += std::strtoull(line.c_str() + field.size(), nullptr, 10) * 1024;
    }
  }
  return total;
}

TEST_F(StorageAlloc, FreshLargeBlocksComeInHugePagesAndOnlyReadOnesAreNotWritten) {
  if (!HugePagesOnAdvice()) GTEST_SKIP() << "transparent huge pages are off on this machine";
  constexpr std::size_t kSlack = 256 * 1024;
  constexpr std::size_t kSize = 8 << 20;
  ReleaseAll();
  auto* written = static_cast<unsigned char*>(std::malloc(kSize));
  Fill(written, kSize, 21);
  // A block of a huge page or more starts on one (the pointer a colour
  // into it), so all four huge pages of the 8 MiB are whole.
  EXPECT_EQ(PageOf(written) % (std::uintptr_t{2} << 20), 0u);
  EXPECT_GE(SmapsBytes(written, kSize, "AnonHugePages:"), std::uint64_t{4} << 21);
  auto* read = static_cast<unsigned char*>(std::calloc(kSize, 1));
  unsigned sum = 0;
  for (std::size_t at = 0; at < kSize; at += 4096) sum += read[at];
  EXPECT_EQ(sum, 0u);
  // The written block is written whole; the one only read (the shared
  // huge zero page) not at all.
  ReleaseStats stats = ReleaseAll();
  EXPECT_GE(stats.written, kSize);
  EXPECT_LT(stats.written, kSize + kSlack);
  EXPECT_EQ(Mismatch(written, kSize, 21), -1);
  for (std::size_t at = 0; at < kSize; at += 4096) sum += read[at];
  EXPECT_EQ(sum, 0u);
  std::free(read);
  std::free(written);
}

// A message that fills a switched-out block from its data start gets
// fresh memory over the block's first page too (before the data lies only
// the colour's padding), so that the first huge page is fresh and whole:
// one fault per 2 MiB where the copy took 511 more.
TEST_F(StorageAlloc, AMessageFromABlocksDataStartTakesItsFirstHugePageFresh) {
  if (!HugePagesOnAdvice()) GTEST_SKIP() << "transparent huge pages are off on this machine";
  constexpr std::size_t kSize = 8 << 20;
  constexpr long kFewFaults = 64;
  // A block whose data starts inside its first page (most have a colour).
  std::vector<void*> uncoloured;
  unsigned char* p = nullptr;
  while (p == nullptr && uncoloured.size() < 8) {
    void* q = std::malloc(kSize);
    if (reinterpret_cast<std::uintptr_t>(q) % 4096 != 0)
      p = static_cast<unsigned char*>(q);
    else
      uncoloured.push_back(q);
  }
  ASSERT_NE(p, nullptr);
  Fill(p, kSize, 41);
  ReleaseAll();
  FreshPages(p, kSize);
  long before = test_util::MinorFaults();
  Fill(p, kSize, 42);  // the message's copy
  EXPECT_LT(test_util::MinorFaults() - before, kFewFaults);
  EXPECT_EQ(Mismatch(p, kSize, 42), -1);
  ReleaseAll();
  EXPECT_EQ(Mismatch(p, kSize, 42), -1);
  std::free(p);
  for (void* q : uncoloured) std::free(q);
}

// Pages of zeros are written back only where the file may hold something
// else: a block never written back reads as zero from its file, one
// written back before does not.
TEST_F(StorageAlloc, PagesOfZerosAreWrittenOnlyOverWhatTheFileHolds) {
  constexpr std::size_t kSize = 4 << 20;
  ReleaseAll();
  auto* p = PageAligned(kSize);
  std::memset(p, 0, kSize);
  p[kSize / 2] = 7;
  EXPECT_EQ(ReleaseAll().written, 4096u);  // the page with the 7
  EXPECT_EQ(p[kSize / 2], 7);
  // The file now holds the 7: its page of zeros must reach it, and
  // nothing else is dirty.
  p[kSize / 2] = 0;
  EXPECT_EQ(ReleaseAll().written, 4096u);
  for (std::size_t at = 0; at < kSize; ++at) ASSERT_EQ(p[at], 0) << at;
  std::free(p);
}

// A block that reuses a freed one's place starts, as a fresh one does,
// with a file that reads as zero: its pages of zeros, skipped at
// write-back, must not come back as the freed block's data.
TEST_F(StorageAlloc, ABlockReusedWhereAnotherWasWrittenKeepsItsPagesOfZeros) {
  constexpr std::size_t kSize = 4 << 20;
  ReleaseAll();
  auto* freed = static_cast<unsigned char*>(std::malloc(kSize));
  Fill(freed, kSize, 25);
  EXPECT_GE(ReleaseAll().written, kSize);
  std::uintptr_t freed_page = PageOf(freed);
  std::free(freed);
  auto* p = static_cast<unsigned char*>(std::malloc(kSize));
  EXPECT_EQ(PageOf(p), freed_page);  // the kept block
  std::memset(p, 0, kSize);
  ReleaseAll();
  for (std::size_t at = 0; at < kSize; ++at) ASSERT_EQ(p[at], 0) << at;
  std::free(p);
}

// Whether a file in `dir`, mapped private and advised MADV_HUGEPAGE, is
// read in huge page-cache folios mapped whole (the file system's large
// folios; not tmpfs without huge pages).
bool FileReadInHugeFolios(const std::string& dir) {
  constexpr std::size_t kHuge = 2 << 20;
  std::string path = dir + "/huge-folio-probe-" + std::to_string(getpid());
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  unlink(path.c_str());
  std::vector<char> data(2 * kHuge, 1);
  bool ok = write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()) &&
            fsync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  void* span = ok ? mmap(nullptr, 3 * kHuge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                  : MAP_FAILED;
  std::uint64_t mapped = 0;
  if (span != MAP_FAILED) {
    auto* at = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(span) + kHuge - 1) /
                                       kHuge * kHuge);
    if (mmap(at, 2 * kHuge, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) != MAP_FAILED &&
        madvise(at, 2 * kHuge, MADV_HUGEPAGE) == 0) {
      volatile char sink = static_cast<char>(at[0] + at[kHuge]);
      (void)sink;
      mapped = SmapsBytes(at, 2 * kHuge, "FilePmdMapped:");
    }
    munmap(span, 3 * kHuge);
  }
  close(fd);
  return mapped > 0;
}

TEST_F(StorageAlloc, ABlockIsReadBackInHugeFolios) {
  if (!HugePagesOnAdvice()) GTEST_SKIP() << "transparent huge pages are off on this machine";
  if (!FileReadInHugeFolios(STORAGE_TEST_DIR))
    GTEST_SKIP() << "the file system of " << STORAGE_TEST_DIR << " gives no huge folios";
  constexpr std::size_t kSize = 8 << 20;
  ReleaseAll();
  auto* p = static_cast<unsigned char*>(std::malloc(kSize));
  Fill(p, kSize, 23);
  ReleaseAll();
  EXPECT_EQ(ResidentPages(p, kSize), 0u);
  EXPECT_EQ(Mismatch(p, kSize, 23), -1);
  // Whole huge folios inside the block, mapped at once: at least three of
  // its four (the last may still be being read ahead).
  EXPECT_GE(SmapsBytes(p, kSize, "FilePmdMapped:"), std::uint64_t{3} << 21);
  std::free(p);
}

// The pattern Fill(p, bytes, seed) left at offset `at` (a page multiple).
unsigned SeedAt(unsigned seed, std::size_t at) {
  return static_cast<unsigned>(seed + at * 7 + (at >> 12));
}

TEST(DeadPages, WholePagesOfTheUnionOfSpans) {
  constexpr std::uint64_t P = 4096;
  using Spans = std::vector<ByteSpan>;
  auto flat = [](const Spans& spans) {
    std::vector<std::uint64_t> out;
    for (const ByteSpan& s : spans) out.insert(out.end(), {s.start, s.bytes});
    return out;
  };
  using V = std::vector<std::uint64_t>;
  EXPECT_EQ(flat(WholePagesOfUnion({}, P)), V{});
  EXPECT_EQ(flat(WholePagesOfUnion({{P, 0}}, P)), V{});          // a count of 0
  EXPECT_EQ(flat(WholePagesOfUnion({{P + 1, P}}, P)), V{});      // a page's bytes, across two
  EXPECT_EQ(flat(WholePagesOfUnion({{2 * P, 3 * P}}, P)), (V{2 * P, 3 * P}));
  // A partial page at either end is left out.
  EXPECT_EQ(flat(WholePagesOfUnion({{P + 10, 3 * P}}, P)), (V{2 * P, 2 * P}));
  // Neighbouring blocks (an alltoallv's) share a page that is whole in
  // their union only.
  EXPECT_EQ(flat(WholePagesOfUnion({{2 * P + 100, 2 * P}, {P + 100, P}}, P)), (V{2 * P, 2 * P}));
  // Overlapping and out of order; a byte's gap keeps two runs apart.
  EXPECT_EQ(flat(WholePagesOfUnion({{5 * P, 2 * P}, {P, 2 * P}, {2 * P, 2 * P}}, P)),
            (V{P, 3 * P, 5 * P, 2 * P}));
  EXPECT_EQ(flat(WholePagesOfUnion({{0, P + 1}, {P + 2, 2 * P}}, P)), (V{0, P, 2 * P, P}));
}

TEST_F(StorageAlloc, DeadPagesAreDroppedUnwrittenAndComeBackAsZeros) {
  constexpr std::size_t kSlack = 256 * 1024;
  constexpr std::size_t P = 4096;
  ReleaseAll();
  std::size_t size = 64 * P;
  unsigned char* p = PageAligned(size);
  auto* small = static_cast<unsigned char*>(std::malloc(3 * P));  // the heap's
  Fill(p, size, 3);
  Fill(small, 3 * P, 4);
  ReleaseAll();  // pattern 3 in the file
  Fill(p, size, 5);
  // Dead: [100, 40 pages + 50), whole pages 1 to 39; the heap's buffer
  // keeps today's write-back.
  ReleaseStats stats;
  {
    DeadWhileWaiting dead;
    dead.Add(p + 100, 40 * P + 50 - 100);
    dead.Add(small, 3 * P);
    dead.Mark();
    stats = ReleaseAll();
  }
  EXPECT_GE(stats.written, size - 39 * P);
  EXPECT_LT(stats.written, size - 39 * P + kSlack);
  EXPECT_GE(stats.dropped, size);
  EXPECT_EQ(Mismatch(p, P, 5), -1);
  EXPECT_EQ(Mismatch(p + 40 * P, size - 40 * P, SeedAt(5, 40 * P)), -1);
  EXPECT_EQ(Mismatch(small, 3 * P, 4), -1);
  // Neither the old pattern from the file nor the new one: fresh zeros.
  EXPECT_TRUE(std::all_of(p + P, p + 40 * P, [](unsigned char c) { return c == 0; }));
  // The result written there goes to the file as any modified page once
  // the wait is over.
  Fill(p + P, 39 * P, SeedAt(7, P));
  ReleaseStats after = ReleaseAll();
  EXPECT_GE(after.written, 39 * P);
  EXPECT_LT(after.written, 39 * P + kSlack);
  EXPECT_EQ(Mismatch(p, P, 5), -1);
  EXPECT_EQ(Mismatch(p + P, 39 * P, SeedAt(7, P)), -1);
  EXPECT_EQ(Mismatch(p + 40 * P, size - 40 * P, SeedAt(5, 40 * P)), -1);
  std::free(small);
  std::free(p);
}

TEST_F(StorageAlloc, RewrittenBlocksAreReadBackUpFront) {
  // 64 MiB: far more than the kernel's readahead window (up to 8 MiB).
  std::size_t size = 1024 * T();
  unsigned char* p = PageAligned(size);
  Fill(p, size, 11);
  ReleaseAll();
  // Only read since: a clean block is left to the faults (and the
  // kernel's readahead), nothing is read up front.
  EXPECT_EQ(Mismatch(p, size, 11), -1);
  ReleaseAll();
  PrefetchAll();
  // (The kernel's readahead for the faults of the read above may still
  // be in flight at the switch-out: those pages, at the block's end, stay
  // in the page cache. Seen on main too, under load.)
  constexpr std::size_t kReadaheadPages = 64;
  EXPECT_LE(ResidentPages(p, size), kReadaheadPages);
  // The first quarter rewritten (without touching the rest): it comes back
  // before the resumed rank runs, the rest does not.
  Fill(p, size / 4, 12);
  ReleaseAll();
  EXPECT_LE(ResidentPages(p, size), kReadaheadPages);
  // Read into fresh memory in huge pages where the kernel gives them on
  // advice: a fault per 2 MiB, not per 4 KiB (4096 for these 16 MiB).
  long before = test_util::MinorFaults();
  PrefetchAll();
  if (HugePagesOnAdvice()) {
    EXPECT_LT(test_util::MinorFaults() - before, 512);
  }
  EXPECT_EQ(ResidentPages(p, size / 4), size / 4 / 4096);
  EXPECT_LE(ResidentPages(p + size / 2, size / 2), kReadaheadPages);
  EXPECT_EQ(Mismatch(p, size / 4, 12), -1);
  EXPECT_EQ(Mismatch(p + size / 4, size - size / 4, SeedAt(11, size / 4)), -1);
  // Read back as anonymous memory, it is written back whole next time and
  // still holds the right bytes after any number of rounds.
  for (int round = 0; round < 3; ++round) {
    ReleaseAll();
    PrefetchAll();
    EXPECT_EQ(Mismatch(p, size / 4, 12), -1) << round;
  }
  EXPECT_EQ(Mismatch(p + size / 4, size - size / 4, SeedAt(11, size / 4)), -1);
  std::free(p);
}

// A block is read back up front at a resume out of the call after which
// the rank rewrote it, not at one out of another call after which it only
// read it; and every few such resumes one leaves it to the faults, to
// measure again whether the rank still rewrites it (a block read back so
// is all anonymous memory, written or not).
TEST_F(StorageAlloc, RewrittenBlocksAreReadBackForTheCallAfterWhichTheyWereRewritten) {
  constexpr int kRewrites = 1, kReads = 2;  // two calls (request types)
  constexpr std::size_t kReadaheadPages = 64;  // in flight at a switch-out
  std::size_t size = 64 * T();                 // 4 MiB
  unsigned char* p = PageAligned(size);
  Fill(p, size, 31);
  ReleaseAll();  // a new block's first switch-out measures nothing
  PrefetchAll(kRewrites);
  Fill(p, size, 32);
  ReleaseAll();
  PrefetchAll(kReads);
  EXPECT_LE(ResidentPages(p, size), kReadaheadPages);
  EXPECT_EQ(Mismatch(p, size, 32), -1);
  ReleaseAll();
  int version = 32;
  // Three resumes read it back (kRewriteReadsBetweenMeasures), the next
  // leaves it to the faults.
  for (int resume = 0; resume < 4; ++resume) {
    PrefetchAll(kRewrites);
    if (resume < 3) {
      EXPECT_EQ(ResidentPages(p, size), size / 4096) << resume;
    } else {
      EXPECT_LE(ResidentPages(p, size), kReadaheadPages);
    }
    EXPECT_EQ(Mismatch(p, size, version), -1) << resume;
    Fill(p, size, ++version);
    ReleaseAll();
  }
  // Measured again: still rewritten, so read back up front.
  PrefetchAll(kRewrites);
  EXPECT_EQ(ResidentPages(p, size), size / 4096);
  EXPECT_EQ(Mismatch(p, size, version), -1);
  std::free(p);
}

// The pages a switch-out dropped unwritten because a collective's result
// overwrites them are not read back with the rest of a rewritten block.
TEST_F(StorageAlloc, DeadPagesAreNotReadBackWithARewrittenBlock) {
  constexpr int kPoint = 1;
  std::size_t size = 64 * T();  // 4 MiB
  unsigned char* p = PageAligned(size);
  Fill(p, size, 41);
  ReleaseAll();
  PrefetchAll(kPoint);
  Fill(p, size, 42);
  ReleaseAll();
  PrefetchAll(kPoint);
  ASSERT_EQ(ResidentPages(p, size), size / 4096);
  Fill(p, size, 43);
  {
    DeadWhileWaiting dead;
    dead.Add(p + size / 2, size / 2);
    dead.Mark();
    ReleaseAll();
  }
  PrefetchAll(kPoint);
  EXPECT_EQ(ResidentPages(p, size / 2), size / 2 / 4096);
  EXPECT_EQ(ResidentPages(p + size / 2, size / 2), 0u);
  EXPECT_EQ(Mismatch(p, size / 2, 43), -1);
  std::free(p);
}

// A switch-out writes back and drops piece by piece, reporting the bytes
// dropped so far after each step: memory comes free while the rest is
// still being written (the master lets the next rank start then), and the
// block, written back in pieces, is read back whole and bit for bit.
struct Progress {
  unsigned char* block;
  std::size_t size;
  std::vector<std::uint64_t> reports;
  std::vector<std::size_t> resident;  // the block's pages at each report
};

TEST_F(StorageAlloc, SwitchOutDropsPieceByPieceAndReportsProgress) {
  std::size_t size = 64 * T();  // 4 MiB
  unsigned char* p = PageAligned(size);
  Fill(p, size, 21);
  Progress progress{p, size, {}, {}};
  auto report = [](void* context, std::uint64_t dropped) {
    auto& seen = *static_cast<Progress*>(context);
    seen.reports.push_back(dropped);
    seen.resident.push_back(ResidentPages(seen.block, seen.size));
  };
  ReleaseStats stats = ReleaseAll(1 << 20, report, &progress);
  EXPECT_GE(stats.written, size);
  ASSERT_GE(progress.reports.size(), 3u);
  for (std::size_t i = 1; i < progress.reports.size(); ++i) {
    EXPECT_GE(progress.reports[i], progress.reports[i - 1] + (1 << 20)) << i;
  }
  // In the storage table's terms: blocks and the heap's committed pages.
  EXPECT_LE(progress.reports.back(), AllocatedBytes() + HeapCommittedBytes());
  // At the first report some of the block was gone and most was not yet.
  EXPECT_LT(progress.resident.front(), size / 4096);
  EXPECT_GE(progress.resident.front(), size / 4096 / 2);
  EXPECT_EQ(ResidentPages(p, size), 0u);
  // Resumed, rewritten whole and released in pieces again: all read back
  // up front at the next resume out of the same call.
  PrefetchAll();
  Fill(p, size, 22);
  ReleaseAll(1 << 20, report, &progress);
  PrefetchAll();
  EXPECT_EQ(ResidentPages(p, size), size / 4096);
  EXPECT_EQ(Mismatch(p, size, 22), -1);
  std::free(p);
}

TEST_F(StorageAlloc, ExplicitRangesReleasePrefetchDiscard) {
  std::size_t size = 16 * T();  // 1 MiB
  unsigned char* p = PageAligned(size);
  Fill(p, size, 21);
  ReleaseStats stats = ReleaseRange(p + 4096 + 10, 8192);  // pages 1..3
  EXPECT_EQ(stats.written, 3u * 4096);
  EXPECT_EQ(ResidentPages(p + 4096, 3 * 4096), 0u);
  EXPECT_EQ(ResidentPages(p, 4096), 1u);
  PrefetchRange(p + 4096, 3 * 4096);
  EXPECT_EQ(ResidentPages(p + 4096, 3 * 4096), 3u);
  EXPECT_EQ(Mismatch(p, size, 21), -1);
  // Discard: only whole pages inside the range, which then read as zero,
  // also after a switch-out.
  DiscardRange(p + 100, 3 * 4096);  // whole pages: 1 and 2
  for (std::size_t i = 0; i < 4096; ++i) ASSERT_EQ(p[i], static_cast<unsigned char>(21 + i * 7));
  for (std::size_t i = 4096; i < 3 * 4096; ++i) ASSERT_EQ(p[i], 0) << i;
  ReleaseAll();
  for (std::size_t i = 4096; i < 3 * 4096; ++i) ASSERT_EQ(p[i], 0) << i;
  EXPECT_EQ(Mismatch(p + 3 * 4096, size - 3 * 4096, SeedAt(21, 3 * 4096)), -1);
  // Memory outside the arena is left alone.
  std::vector<unsigned char> plain(100, 1);
  ReleaseRange(plain.data(), plain.size());
  DiscardRange(plain.data(), plain.size());
  EXPECT_EQ(plain[50], 1);
  std::free(p);
}

// A scratch file of the test's own, already unlinked; -1 on failure.
int UnlinkedFile(const char* name) {
  std::string path = std::string(STORAGE_TEST_DIR) + "/" + name;
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  unlink(path.c_str());
  return fd;
}

// MPI-IO's reads into storage-backed memory (ReadFileInto): whole pages go
// from the file into the block's backing file, fewer at the end of the
// file; the rest of the block keeps its data, also through a switch-out
// and back; unaligned or foreign pointers are left to the caller.
TEST_F(StorageAlloc, ReadFileIntoPlacesWholePagesAndKeepsTheRest) {
  const std::size_t page = 4096, bytes = 16 * page;
  int fd = UnlinkedFile("read_file_into.src");
  ASSERT_GE(fd, 0) << std::strerror(errno);
  std::vector<unsigned char> source(5 * page + page / 2);
  Fill(source.data(), source.size(), 9);
  ASSERT_EQ(pwrite(fd, source.data(), source.size(), 0), static_cast<ssize_t>(source.size()));
  unsigned char* p = PageAligned(bytes);
  ASSERT_TRUE(Owns(p));
  Fill(p, bytes, 4);
  std::vector<unsigned char> before(p, p + bytes);
  // From page 1 of the file: 4.5 pages are left, so 4 whole ones come.
  EXPECT_EQ(ReadFileInto(fd, page, p, 8 * page), 4 * page);
  auto check = [&] {
    EXPECT_EQ(std::memcmp(p, source.data() + page, 4 * page), 0);
    EXPECT_EQ(std::memcmp(p + 4 * page, before.data() + 4 * page, bytes - 4 * page), 0);
  };
  check();
  int outside = 0;
  EXPECT_EQ(ReadFileInto(fd, 0, p + 1, page), 0u);
  EXPECT_EQ(ReadFileInto(fd, 0, &outside, page), 0u);
  ReleaseAll();
  PrefetchAll();
  check();
  std::free(p);
  close(fd);
  std::vector<unsigned char>().swap(before);  // itself from the arena
  EXPECT_EQ(Leaked(), 0u);
}

// MPI-IO's writes from storage-backed memory (WriteFileFrom): pages whose
// data is in the backing file (released, never touched since) and pages
// rewritten in memory since come out right, in one call.
TEST_F(StorageAlloc, WriteFileFromMixesFilePagesAndMemoryPages) {
  const std::size_t page = 4096, bytes = 16 * page;
  int fd = UnlinkedFile("write_file_from.dst");
  ASSERT_GE(fd, 0) << std::strerror(errno);
  unsigned char* p = PageAligned(bytes);
  ASSERT_TRUE(Owns(p));
  Fill(p, bytes, 5);
  ReleaseAll();  // all of it in the backing file now
  for (std::size_t i = 3; i < 16; i += 4) std::memset(p + i * page, static_cast<int>(i), page);
  std::vector<unsigned char> want(p, p + bytes);
  EXPECT_EQ(WriteFileFrom(fd, 100, p, bytes), static_cast<std::int64_t>(bytes));
  std::vector<unsigned char> got(bytes);
  ASSERT_EQ(pread(fd, got.data(), bytes, 100), static_cast<ssize_t>(bytes));
  EXPECT_EQ(std::memcmp(got.data(), want.data(), bytes), 0);
  EXPECT_EQ(WriteFileFrom(fd, 0, p + 1, page), 0);
  std::free(p);
  close(fd);
  std::vector<unsigned char>().swap(want);
  std::vector<unsigned char>().swap(got);
  EXPECT_EQ(Leaked(), 0u);
}

TEST_F(StorageAlloc, CxxNewOfLargeArrays) {
  std::unique_ptr<double[]> a(new double[T()]);
  EXPECT_TRUE(Owns(a.get()));
  for (std::size_t i = 0; i < T(); ++i) a[i] = static_cast<double>(i) * 0.5;
  ReleaseAll();
  for (std::size_t i = 0; i < T(); ++i) ASSERT_EQ(a[i], static_cast<double>(i) * 0.5);
  std::vector<int> v;
  for (int i = 0; i < 1 << 20; ++i) v.push_back(i);  // grows through new/delete
  EXPECT_TRUE(Owns(v.data()));
  ReleaseAll();
  for (int i = 0; i < 1 << 20; ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)], i);
}

// A full disk: a child process re-runs this program with its scratch
// directory on an 8 MiB tmpfs, mounted in a mount namespace of its own, so
// the mount disappears with the child whatever happens.
// ---------------------------------------------------------------- the heap

TEST_F(StorageAlloc, SmallRequestsComeFromTheHeap) {
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{24}, std::size_t{4096},
                           std::size_t{40000}, T() - 1}) {
    void* p = std::malloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(InHeap(p)) << size;
    EXPECT_GE(malloc_usable_size(p), size);
    Fill(p, size, 5);
    EXPECT_EQ(Mismatch(p, size, 5), -1);
    std::free(p);
  }
  // C++ new and the containers too.
  auto owned = std::make_unique<int>(7);
  EXPECT_TRUE(InHeap(owned.get()));
  std::string text(100, 'x');
  EXPECT_TRUE(InHeap(text.data()));
  EXPECT_EQ(Leaked(), 0u);
}

TEST_F(StorageAlloc, HeapAlignmentAndTheAlignedFamily) {
  for (std::size_t align : {std::size_t{8}, std::size_t{64}, std::size_t{4096},
                            std::size_t{32768}}) {
    void* p = nullptr;
    ASSERT_EQ(posix_memalign(&p, align, 100), 0);
    EXPECT_TRUE(InHeap(p));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % align, 0u) << align;
    void* q = aligned_alloc(align, align);
    EXPECT_TRUE(InHeap(q));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(q) % align, 0u) << align;
    void* r = memalign(align, 10);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(r) % align, 0u) << align;
    std::free(p);
    std::free(q);
    std::free(r);
  }
  void* v = valloc(100);
  EXPECT_TRUE(InHeap(v));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v) % 4096, 0u);
  void* pv = pvalloc(5000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pv) % 4096, 0u);
  EXPECT_GE(malloc_usable_size(pv), 8192u);
  std::free(v);
  std::free(pv);
}

TEST_F(StorageAlloc, ReallocBetweenHeapBlockAndGlibcKeepsContents) {
  // Heap -> heap -> block -> heap.
  auto* p = static_cast<unsigned char*>(std::malloc(100));
  Fill(p, 100, 2);
  p = static_cast<unsigned char*>(std::realloc(p, 5000));
  ASSERT_TRUE(InHeap(p));
  EXPECT_EQ(Mismatch(p, 100, 2), -1);
  Fill(p, 5000, 3);
  p = static_cast<unsigned char*>(std::realloc(p, 3 * T()));
  ASSERT_TRUE(Owns(p) && !InHeap(p));
  EXPECT_EQ(Mismatch(p, 5000, 3), -1);
  Fill(p, 3 * T(), 4);
  p = static_cast<unsigned char*>(std::realloc(p, 1000));
  ASSERT_TRUE(InHeap(p));
  EXPECT_EQ(Mismatch(p, 1000, 4), -1);
  std::free(p);
  // glibc's memory (from before the arena) moves into the heap.
  auto* g = static_cast<unsigned char*>(__libc_malloc(300));
  ASSERT_FALSE(Owns(g));
  Fill(g, 300, 6);
  g = static_cast<unsigned char*>(std::realloc(g, 600));
  ASSERT_TRUE(InHeap(g));
  EXPECT_EQ(Mismatch(g, 300, 6), -1);
  std::free(g);
  // And goes back to glibc when freed directly.
  void* h = __libc_malloc(64);
  std::free(h);
  EXPECT_EQ(std::realloc(std::malloc(10), 0), nullptr);  // frees, like glibc
  EXPECT_EQ(Leaked(), 0u);
}

TEST_F(StorageAlloc, CallocIsZeroAlsoOverPagesWrittenBackBefore) {
  // Fill many small blocks, write them back (the file now holds them),
  // free them and let the heap decommit their pages; then the same sizes
  // again from calloc must read zero, after another switch-out too.
  constexpr std::size_t kCount = 4096, kSize = 2048;
  std::vector<void*> blocks;
  for (std::size_t i = 0; i < kCount; ++i) {
    blocks.push_back(std::malloc(kSize));
    std::memset(blocks.back(), 0xa5, kSize);
  }
  ReleaseAll();
  for (void* p : blocks) std::free(p);
  PurgeHeap();
  ReleaseAll();
  for (std::size_t round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < kCount; ++i) {
      auto* p = static_cast<unsigned char*>(std::calloc(1, kSize));
      blocks[i] = p;
      for (std::size_t j = 0; j < kSize; ++j)
        ASSERT_EQ(p[j], 0) << "block " << i << " byte " << j << " round " << round;
    }
    ReleaseAll();
    for (void* p : blocks) std::free(p);
    PurgeHeap();
  }
}

TEST_F(StorageAlloc, SwitchOutWritesSmallBlocksAndNotFreedOnes) {
  ReleaseAll();  // what the process holds already is clean from here
  constexpr std::size_t kCount = 4096, kSize = 4096;  // 16 MiB
  std::vector<unsigned char*> blocks;
  for (std::size_t i = 0; i < kCount; ++i) {
    blocks.push_back(static_cast<unsigned char*>(std::malloc(kSize)));
    Fill(blocks.back(), kSize, static_cast<unsigned>(i));
  }
  std::uint64_t committed = HeapCommittedBytes();
  EXPECT_GE(committed, kCount * kSize);
  ReleaseStats first = ReleaseAll();
  EXPECT_GE(first.written, kCount * kSize);
  EXPECT_LT(first.written, kCount * kSize + (2u << 20));
  for (std::size_t i = 0; i < kCount; ++i)
    ASSERT_EQ(Mismatch(blocks[i], kSize, static_cast<unsigned>(i)), -1) << i;
  // Freed: the switch-out's purge decommits them, nothing is written, and
  // the storage table's count goes down.
  for (unsigned char* p : blocks) std::free(p);
  ReleaseStats second = ReleaseAll();
  EXPECT_LT(second.written, 1u << 20);
  EXPECT_LT(HeapCommittedBytes() + kCount * kSize / 2, committed);
}

// Small objects come back in huge folios as a block does; freeing every
// other one after that (a decommit inside a folio mapped whole) and taking
// the room again from calloc (a commit that zeroes the file under such a
// folio) reads zeros there and leaves the neighbours' bytes intact.
TEST_F(StorageAlloc, HeapObjectsAreReadBackInHugeFoliosAndFreedOnesComeBackAsZeros) {
  if (!HugePagesOnAdvice()) GTEST_SKIP() << "transparent huge pages are off on this machine";
  if (!FileReadInHugeFolios(STORAGE_TEST_DIR))
    GTEST_SKIP() << "the file system of " << STORAGE_TEST_DIR << " gives no huge folios";
  constexpr std::size_t kCount = 1024, kSize = 16 * 1024;  // 16 MiB of heap objects
  ReleaseAll();
  std::vector<unsigned char*> objects;
  for (std::size_t i = 0; i < kCount; ++i) {
    objects.push_back(static_cast<unsigned char*>(std::malloc(kSize)));
    ASSERT_TRUE(InHeap(objects.back()));
    Fill(objects.back(), kSize, static_cast<unsigned>(i));
  }
  auto [lowest, highest] = std::minmax_element(objects.begin(), objects.end());
  std::size_t span = static_cast<std::size_t>(*highest + kSize - *lowest);
  ReleaseAll();
  for (std::size_t i = 0; i < kCount; ++i)
    ASSERT_EQ(Mismatch(objects[i], kSize, static_cast<unsigned>(i)), -1) << i;
  EXPECT_GE(SmapsBytes(*lowest, span, "FilePmdMapped:"), std::uint64_t{2} << 21);
  for (std::size_t i = 0; i < kCount; i += 2) std::free(objects[i]);
  PurgeHeap();
  for (std::size_t i = 0; i < kCount; i += 2) {
    objects[i] = static_cast<unsigned char*>(std::calloc(1, kSize));
    unsigned char* end = objects[i] + kSize;
    ASSERT_EQ(std::find_if(objects[i], end, [](unsigned char c) { return c != 0; }), end)
        << "object " << i;
  }
  for (std::size_t i = 1; i < kCount; i += 2)
    ASSERT_EQ(Mismatch(objects[i], kSize, static_cast<unsigned>(i)), -1) << i;
  for (unsigned char* p : objects) std::free(p);
}

// The heap's metadata, which every allocation and free touches, stays
// resident through a switch-out while it is small; the objects' pages go
// to the file and come back intact.
TEST_F(StorageAlloc, HeapMetadataStaysResidentThroughASwitchOut) {
  constexpr int kCount = 2000, kSize = 100;
  std::vector<void*> objects;
  for (int i = 0; i < kCount; ++i) {
    objects.push_back(std::malloc(kSize));
    Fill(objects.back(), kSize, static_cast<unsigned>(i));
  }
  std::uint64_t metadata = HeapMetadataResidentBytes();
  ASSERT_GT(metadata, 0u);
  ASSERT_LE(metadata, std::uint64_t{1} << 20);
  ReleaseStats stats = ReleaseAll();
  EXPECT_GE(stats.dropped, std::uint64_t{kCount} * kSize);
  EXPECT_GE(HeapMetadataResidentBytes(), metadata);
  for (int i = 0; i < kCount; ++i)
    ASSERT_EQ(Mismatch(objects[i], kSize, static_cast<unsigned>(i)), -1) << i;
  for (void* p : objects) std::free(p);
}

// The runtime's own state (all it allocates inside an MPI call) comes from
// glibc below the threshold, so that a switch-out never takes it; from the
// threshold up it is a block as any.
TEST_F(StorageAlloc, RuntimeAllocationsComeFromGlibcBelowTheThreshold) {
  void* program = std::malloc(64);
  EXPECT_TRUE(InHeap(program));
  {
    RuntimeAllocations runtime_state;
    void* small = std::malloc(64);
    EXPECT_FALSE(Owns(small));
    void* large = std::malloc(T());
    EXPECT_TRUE(Owns(large));
    EXPECT_FALSE(InHeap(large));
    {
      RuntimeAllocations nested;
      void* again = std::malloc(64);
      EXPECT_FALSE(Owns(again));
      std::free(again);
    }
    {
      // Memory an MPI call hands the program (MPI_Alloc_mem) is paged.
      ProgramAllocations program_memory;
      void* handed = std::malloc(64);
      EXPECT_TRUE(InHeap(handed));
      std::free(handed);
    }
    void* still = std::malloc(64);
    EXPECT_FALSE(Owns(still));
    std::free(still);
    std::free(small);
    std::free(large);
  }
  void* after = std::malloc(64);
  EXPECT_TRUE(InHeap(after));
  std::free(after);
  std::free(program);
}

TEST_F(StorageAlloc, FreeingManySmallBlocksPunchesNoHoles) {
  constexpr std::size_t kCount = 100000;
  std::vector<void*> blocks(kCount);
  for (std::size_t i = 0; i < kCount; ++i) blocks[i] = std::malloc(16 + i % 200);
  int punches = g_hole_punches.load();
  for (void* p : blocks) std::free(p);
  EXPECT_EQ(g_hole_punches.load(), punches);
}

TEST_F(StorageAlloc, ThreadsAllocateFromTheHeap) {
  constexpr int kThreads = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      std::vector<unsigned char*> mine;
      for (std::size_t i = 0; i < 20000; ++i) {
        std::size_t size = 8 + (i * 37 + static_cast<std::size_t>(t)) % 3000;
        auto* p = static_cast<unsigned char*>(std::malloc(size));
        if (!InHeap(p)) ++failures;
        std::memset(p, t + 1, size);
        mine.push_back(p);
        if (i % 3 == 0) {
          std::free(mine.front());
          mine.erase(mine.begin());
        }
      }
      for (unsigned char* p : mine) {
        if (p[0] != t + 1) ++failures;
        std::free(p);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(StorageAlloc, AForkedChildUsesGlibcAndFreesTheHeapsMemory) {
  auto* p = static_cast<unsigned char*>(std::malloc(1000));
  Fill(p, 1000, 8);
  void* block = std::malloc(2 * T());
  int punches = g_hole_punches.load();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Storage is off here: new memory is glibc's, the parent's blocks are
    // freed without touching the parent's storage file.
    void* q = std::malloc(100);
    bool ok = !Owns(q) && Mismatch(p, 1000, 8) == -1;
    std::free(p);
    std::free(block);
    std::free(q);
    ok = ok && g_hole_punches.load() == punches;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Mismatch(p, 1000, 8), -1);
  std::free(p);
  std::free(block);
}

TEST_F(StorageAlloc, FullDiskFailsWithAClearMessage) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  char dir[] = "/tmp/bdmpi-fulldisk.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (unshare(CLONE_NEWNS) != 0 ||
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", dir, "tmpfs", 0, "size=8m") != 0) {
      std::perror("unshare/mount");
      _exit(2);
    }
    setenv("BDMPI_SPILL_DIR", dir, 1);
    setenv("BDMPI_TEST_FULL_DISK", "1", 1);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) _exit(2);
    self[n] = '\0';
    char filter[] = "--gtest_filter=FullDisk.*";
    char* args[] = {self, filter, nullptr};
    execv(self, args);
    _exit(2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  rmdir(dir);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's checks failed (its output is above)";
}

// Runs only in that child.
TEST(FullDisk, AllocationFailsNamingTheScratchDirectory) {
  if (std::getenv("BDMPI_TEST_FULL_DISK") == nullptr) GTEST_SKIP() << "child of FullDiskFailsWithAClearMessage";
  testing::internal::CaptureStderr();
  errno = 0;
  void* p = std::malloc(64u << 20);
  int err = errno;
  std::string text = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(err, ENOMEM);
  EXPECT_NE(text.find(std::getenv("BDMPI_SPILL_DIR")), std::string::npos) << text;
  EXPECT_NE(text.find("No space left on device"), std::string::npos) << text;
  // The failed range is usable again when there is room.
  void* q = std::malloc(4 * T());
  EXPECT_TRUE(Owns(q));
  std::free(q);
}

}  // namespace
}  // namespace bdmpi::memory
