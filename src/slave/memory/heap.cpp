#include "slave/memory/heap.h"

#include <jemalloc/jemalloc.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#include "slave/memory/arena.h"
#include "slave/memory/heap_link.h"

namespace bdmpi::memory {
namespace {

enum State : int { kUnset, kSettingUp, kReady, kUnavailable };
std::atomic<int> g_state{kUnset};
const HeapEntries* g_je = nullptr;  // set before kReady
int g_flags = 0;                    // MALLOCX_ARENA of the heap's arena
unsigned g_index = 0;
__thread bool t_setting_up __attribute__((tls_model("initial-exec"))) = false;

void* Alloc(extent_hooks_t*, void* new_addr, size_t size, size_t alignment, bool* zero,
            bool* commit, unsigned) {
  if (new_addr != nullptr) return nullptr;  // chunks go where the arena puts them
  void* p = AllocateChunk(size, alignment, *commit);
  if (p != nullptr) *zero = true;
  return p;
}

// jemalloc's hooks return false on success.
bool Commit(extent_hooks_t*, void* addr, size_t, size_t offset, size_t length, unsigned) {
  return !CommitChunkRange(static_cast<char*>(addr) + offset, length);
}

bool Decommit(extent_hooks_t*, void* addr, size_t, size_t offset, size_t length, unsigned) {
  return !DecommitChunkRange(static_cast<char*>(addr) + offset, length);
}

bool Split(extent_hooks_t*, void*, size_t, size_t, size_t, bool, unsigned) { return false; }

bool Merge(extent_hooks_t*, void* a, size_t, void* b, size_t, bool, unsigned) {
  return !SameChunk(a, b);
}

extent_hooks_t g_hooks = {
    Alloc, nullptr, nullptr, Commit, Decommit, nullptr, nullptr, Split, Merge,
};

// The heap's mallocx flags, -1 when it is not there. The first call sets
// it up; meanwhile (jemalloc's initialisation may allocate, through the C
// library) requests go to glibc.
int Flags() {
  int state = g_state.load(std::memory_order_acquire);
  if (state == kReady) return g_flags;
  if (state != kUnset || t_setting_up || Threshold() == SIZE_MAX) return -1;
  int expected = kUnset;
  if (!g_state.compare_exchange_strong(expected, kSettingUp)) return -1;
  t_setting_up = true;
  // The arena before jemalloc (see ForkPrepare in arena.cpp).
  bool ok = ArenaAvailable() && (g_je = LoadHeap()) != nullptr;
  if (ok) {
    unsigned index = 0;
    size_t length = sizeof index;
    extent_hooks_t* hooks = &g_hooks;
    ok = g_je->mallctl("arenas.create", &index, &length, &hooks, sizeof hooks) == 0;
    if (ok) {
      g_index = index;
      g_flags = MALLOCX_ARENA(index);
    }
  }
  t_setting_up = false;
  g_state.store(ok ? kReady : kUnavailable, std::memory_order_release);
  return ok ? g_flags : -1;
}

}  // namespace

void* HeapAllocate(std::size_t bytes, std::size_t alignment, bool zero, bool* fallback) {
  int flags = Flags();
  *fallback = flags < 0;
  if (flags < 0) return nullptr;
  if (alignment > 1) flags |= MALLOCX_LG_ALIGN(__builtin_ctzl(alignment));
  if (zero) flags |= MALLOCX_ZERO;
  void* p = g_je->mallocx(bytes == 0 ? 1 : bytes, flags);
  if (p == nullptr) errno = ENOMEM;
  return p;
}

namespace {

// Bytes freed since the last purge: per thread, added to the total in
// pieces of kFreedBatch (no shared counter touched per free).
constexpr std::size_t kFreedBatch = 1 << 20;
std::atomic<std::uint64_t> g_freed{0};
__thread std::size_t t_freed __attribute__((tls_model("initial-exec"))) = 0;

}  // namespace

void HeapFree(void* p) {
  t_freed += g_je->sallocx(p, 0);
  if (t_freed >= kFreedBatch) {
    g_freed.fetch_add(t_freed, std::memory_order_relaxed);
    t_freed = 0;
  }
  g_je->free(p);
}

void* HeapReallocate(void* p, std::size_t bytes) {
  void* q = g_je->rallocx(p, bytes == 0 ? 1 : bytes, g_flags);
  if (q == nullptr) errno = ENOMEM;
  return q;
}

std::size_t HeapUsableSize(const void* p) { return g_je->sallocx(p, 0); }

namespace {

// Committed bytes after the last purge, and the freed bytes counted then.
std::atomic<std::uint64_t> g_after_purge{0};
std::atomic<std::uint64_t> g_freed_at_purge{0};

void PurgeArena() {
  std::uint64_t freed = g_freed.load(std::memory_order_relaxed);
  char name[64];
  std::snprintf(name, sizeof name, "arena.%u.purge", g_index);
  g_je->mallctl(name, nullptr, nullptr, nullptr, 0);
  g_after_purge.store(HeapCommittedHint(), std::memory_order_relaxed);
  g_freed_at_purge.store(freed, std::memory_order_relaxed);
}

}  // namespace

void PurgeHeap() {
  if (g_state.load(std::memory_order_acquire) != kReady) return;
  g_je->mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
  PurgeArena();
}

void PurgeHeapIfGrown() {
  if (g_state.load(std::memory_order_acquire) != kReady || Threshold() == SIZE_MAX) return;
  // This thread's frees count at once.
  g_freed.fetch_add(t_freed, std::memory_order_relaxed);
  t_freed = 0;
  std::uint64_t now = HeapCommittedHint();
  std::uint64_t last = g_after_purge.load(std::memory_order_relaxed);
  // Committed less than then (jemalloc's decay ran): measure from here.
  if (now < last) g_after_purge.store(now, std::memory_order_relaxed);
  std::uint64_t freed = g_freed.load(std::memory_order_relaxed) -
                        g_freed_at_purge.load(std::memory_order_relaxed);
  if (now >= last + kPurgeGrowth || freed >= kPurgeGrowth) PurgeArena();
}

}  // namespace bdmpi::memory
