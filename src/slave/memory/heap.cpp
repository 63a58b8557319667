#include "slave/memory/heap.h"

#include <jemalloc/jemalloc.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#include "slave/memory/arena.h"

// jemalloc's entry points as cmake/Jemalloc.cmake renames them.
extern "C" {
void* bdmpi_je_mallocx(size_t size, int flags);
void bdmpi_je_dallocx(void* ptr, int flags);
void* bdmpi_je_rallocx(void* ptr, size_t size, int flags);
size_t bdmpi_je_sallocx(const void* ptr, int flags);
int bdmpi_je_mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen);

// jemalloc's options (its malloc_conf). One automatic arena: only
// jemalloc's own bookkeeping uses it (ordinary mmap memory, kilobytes).
// No muzzy state: decommit is how this heap gives pages back.
extern const char* bdmpi_je_malloc_conf;
const char* bdmpi_je_malloc_conf = "narenas:1,muzzy_decay_ms:0";
}

namespace bdmpi::memory {
namespace {

enum State : int { kUnset, kSettingUp, kReady, kUnavailable };
std::atomic<int> g_state{kUnset};
int g_flags = 0;          // MALLOCX_ARENA of the heap's arena
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
  bool ok = ArenaAvailable();  // before jemalloc: see ForkPrepare in arena.cpp
  if (ok) {
    unsigned index = 0;
    size_t length = sizeof index;
    extent_hooks_t* hooks = &g_hooks;
    ok = bdmpi_je_mallctl("arenas.create", &index, &length, &hooks, sizeof hooks) == 0;
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
  void* p = bdmpi_je_mallocx(bytes == 0 ? 1 : bytes, flags);
  if (p == nullptr) errno = ENOMEM;
  return p;
}

void HeapFree(void* p) { bdmpi_je_dallocx(p, 0); }

void* HeapReallocate(void* p, std::size_t bytes) {
  void* q = bdmpi_je_rallocx(p, bytes == 0 ? 1 : bytes, g_flags);
  if (q == nullptr) errno = ENOMEM;
  return q;
}

std::size_t HeapUsableSize(const void* p) { return bdmpi_je_sallocx(p, 0); }

void PurgeHeap() {
  if (g_state.load(std::memory_order_acquire) != kReady) return;
  bdmpi_je_mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
  char name[64];
  std::snprintf(name, sizeof name, "arena.%u.purge", g_index);
  bdmpi_je_mallctl(name, nullptr, nullptr, nullptr, 0);
}

}  // namespace bdmpi::memory
