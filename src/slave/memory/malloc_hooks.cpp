// libbdmpi's malloc family. While a rank's storage is on, requests of at
// least the storage threshold take a block of their own in the storage
// arena (arena.h) and all others go to the heap on the arena's chunks
// (heap.h); otherwise, and for what the arena allocates for itself, glibc
// serves them through its __libc_* entry points. free() tells them apart by
// address: memory glibc handed out before the arena existed goes back to
// glibc. Defining these in the program's own link
// (libbdmpi, shared or static) interposes them for the program and every
// library it uses, so C++ new and the C++ containers are covered too.
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>

#include "slave/memory/allocation_route.h"
#include "slave/memory/arena.h"
#include "slave/memory/heap.h"

// Off in sanitizer builds (src/slave/CMakeLists.txt says why): the
// sanitizer's own malloc family then serves the program.
#ifndef BDMPI_INTERPOSE_MALLOC
#define BDMPI_INTERPOSE_MALLOC 1
#endif

extern "C" {
void* __libc_malloc(size_t size);
void __libc_free(void* p);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}

namespace bdmpi::memory {

// Referenced by MPI_Init, so that a static link always takes this file.
int malloc_hooks_linked = 1;

namespace {
__thread bool t_runtime_allocations __attribute__((tls_model("initial-exec"))) = false;
}  // namespace

AllocationRoute::AllocationRoute(bool runtime) : saved_(t_runtime_allocations) {
  t_runtime_allocations = runtime;
}
AllocationRoute::~AllocationRoute() { t_runtime_allocations = saved_; }
bool InRuntimeAllocations() { return t_runtime_allocations; }

#if BDMPI_INTERPOSE_MALLOC
namespace {

enum class Route { kLibc, kBlock, kHeap };

// Where a new request of `size` bytes goes: glibc while storage is off and
// for the arena's own bookkeeping, a block of its own from the threshold
// up, the heap below.
Route RouteFor(size_t size) {
  if (InsideArena()) return Route::kLibc;
  size_t threshold = Threshold();
  if (threshold == SIZE_MAX) return Route::kLibc;
  if (size >= threshold) return Route::kBlock;
  return InRuntimeAllocations() ? Route::kLibc : Route::kHeap;
}

size_t LibcUsableSize(void* p) {
  // glibc exports malloc_usable_size only under that name, which we define.
  using Fn = size_t (*)(void*);
  static Fn libc = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  return libc != nullptr ? libc(p) : 0;
}

// The allocation functions' common path. `alignment` 0: malloc's. Sets
// errno to ENOMEM on failure.
void* Serve(size_t size, size_t alignment, bool zero) {
  Route route = RouteFor(size);
  if (route == Route::kBlock) {
    AllocResult result = Allocate(size, alignment);
    if (result.status == AllocStatus::kOk) {
      if (zero && !result.zeroed) memset(result.pointer, 0, size);
      return result.pointer;
    }
    if (result.status == AllocStatus::kNoSpace) {
      errno = ENOMEM;
      return nullptr;
    }
    // The reservation is full: glibc takes over.
  } else if (route == Route::kHeap) {
    bool fallback = false;
    void* p = HeapAllocate(size, alignment, zero, &fallback);
    if (!fallback) return p;
  }
  if (alignment != 0) return __libc_memalign(alignment, size);
  return zero ? __libc_calloc(1, size) : __libc_malloc(size);
}

void Release(void* p) {
  if (InHeap(p)) {
    HeapFree(p);
  } else if (Owns(p)) {
    Free(p);
  } else {
    __libc_free(p);
  }
}

size_t UsableSizeOf(void* p) {
  if (InHeap(p)) return HeapUsableSize(p);
  if (Owns(p)) return UsableSize(p);
  return LibcUsableSize(p);
}

// realloc to another allocator: copies what fits and frees p; nullptr
// (p intact) when the new block cannot be had.
void* Move(void* p, size_t size) {
  void* q = Serve(size, 0, false);
  if (q == nullptr) return nullptr;
  size_t old_size = UsableSizeOf(p);
  memcpy(q, p, old_size < size ? old_size : size);
  Release(p);
  return q;
}

bool PowerOfTwo(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

}  // namespace
#endif  // BDMPI_INTERPOSE_MALLOC
}  // namespace bdmpi::memory

#if BDMPI_INTERPOSE_MALLOC
using namespace bdmpi::memory;

// Exported from libbdmpi (hidden visibility is the default there), so that
// they take the place of glibc's for the program and every library.
#pragma GCC visibility push(default)
extern "C" {

void* malloc(size_t size) { return Serve(size, 0, false); }

void free(void* p) {
  if (p != nullptr) Release(p);
}

void* calloc(size_t count, size_t size) {
  size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return Serve(total, 0, true);
}

void* realloc(void* p, size_t size) {
  if (p == nullptr) return malloc(size);
  if (size == 0) {  // glibc: realloc(p, 0) frees p
    Release(p);
    return nullptr;
  }
  Route route = RouteFor(size);
  if (InHeap(p)) {
    if (route == Route::kHeap) return HeapReallocate(p, size);
    return Move(p, size);
  }
  if (Owns(p)) {
    if (route != Route::kBlock) return Move(p, size);
    void* q = Reallocate(p, size);
    if (q != nullptr) return q;
    // No storage for the larger block: ordinary memory, if there is some.
    q = __libc_malloc(size);
    if (q == nullptr) {
      errno = ENOMEM;
      return nullptr;
    }
    memcpy(q, p, UsableSize(p));
    Free(p);
    return q;
  }
  // glibc's, from before the arena or while storage is off.
  if (route == Route::kLibc) return __libc_realloc(p, size);
  return Move(p, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (!PowerOfTwo(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  void* p = Serve(size, alignment, false);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

void* aligned_alloc(size_t alignment, size_t size) {
  if (!PowerOfTwo(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return Serve(size, alignment, false);
}

void* memalign(size_t alignment, size_t size) {
  // glibc's memalign takes any alignment and rounds it up to a power of two.
  size_t power = sizeof(void*);
  while (power < alignment && power < (SIZE_MAX >> 1) + 1) power <<= 1;
  return aligned_alloc(power, size);
}

void* valloc(size_t size) { return aligned_alloc(4096, size); }

void* pvalloc(size_t size) {
  return aligned_alloc(4096, (size + 4095) / 4096 * 4096);
}

size_t malloc_usable_size(void* p) {
  if (p == nullptr) return 0;
  return UsableSizeOf(p);
}

}  // extern "C"
#pragma GCC visibility pop
#endif  // BDMPI_INTERPOSE_MALLOC
