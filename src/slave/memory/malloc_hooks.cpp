// libbdmpi's malloc family: requests of at least the storage threshold are
// served from the storage arena (arena.h), everything else by glibc through
// its __libc_* entry points. Defining these in the program's own link
// (libbdmpi, shared or static) interposes them for the program and every
// library it uses, so C++ new and the C++ containers are covered too.
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>

#include "slave/memory/arena.h"

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

#if BDMPI_INTERPOSE_MALLOC
namespace {

bool UseArena(size_t size) {
  return size >= Threshold() && !InsideArena();
}

// nullptr with errno set: ENOMEM when the disk is full; `fallback` tells
// the caller to use glibc instead. `zeroed` (optional) says whether the
// block is fresh (zero) or recycled.
void* FromArena(size_t size, size_t alignment, bool* fallback, bool* zeroed = nullptr) {
  AllocResult result = Allocate(size, alignment);
  *fallback = result.status == AllocStatus::kUnavailable;
  if (result.status == AllocStatus::kNoSpace) errno = ENOMEM;
  if (zeroed != nullptr) *zeroed = result.zeroed;
  return result.pointer;
}

bool PowerOfTwo(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

size_t LibcUsableSize(void* p) {
  // glibc exports malloc_usable_size only under that name, which we define.
  using Fn = size_t (*)(void*);
  static Fn libc = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  return libc != nullptr ? libc(p) : 0;
}

}  // namespace
#endif  // BDMPI_INTERPOSE_MALLOC
}  // namespace bdmpi::memory

#if BDMPI_INTERPOSE_MALLOC
using namespace bdmpi::memory;

// Exported from libbdmpi (hidden visibility is the default there), so that
// they take the place of glibc's for the program and every library.
#pragma GCC visibility push(default)
extern "C" {

void* malloc(size_t size) {
  if (UseArena(size)) {
    bool fallback = false;
    void* p = FromArena(size, 0, &fallback);
    if (!fallback) return p;
  }
  return __libc_malloc(size);
}

void free(void* p) {
  if (p == nullptr) return;
  if (Owns(p)) {
    Free(p);
    return;
  }
  __libc_free(p);
}

void* calloc(size_t count, size_t size) {
  size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  if (UseArena(total)) {
    bool fallback = false, zeroed = false;
    void* p = FromArena(total, 0, &fallback, &zeroed);
    if (p != nullptr && !zeroed) memset(p, 0, total);
    if (!fallback) return p;
  }
  return __libc_calloc(count, size);
}

void* realloc(void* p, size_t size) {
  if (p == nullptr) return malloc(size);
  if (!Owns(p)) {
    if (!UseArena(size)) return __libc_realloc(p, size);
    // Crossing the threshold upwards: copy into a storage block.
    size_t old_size = LibcUsableSize(p);
    bool fallback = false;
    void* q = FromArena(size, 0, &fallback);
    if (fallback) return __libc_realloc(p, size);
    if (q == nullptr) return nullptr;
    memcpy(q, p, old_size < size ? old_size : size);
    __libc_free(p);
    return q;
  }
  if (size == 0) {  // glibc: realloc(p, 0) frees p
    Free(p);
    return nullptr;
  }
  if (size >= Threshold()) {
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
  // Crossing the threshold downwards.
  void* q = __libc_malloc(size);
  if (q == nullptr) return nullptr;
  memcpy(q, p, size);
  Free(p);
  return q;
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (!PowerOfTwo(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  void* p = nullptr;
  bool fallback = true;
  if (UseArena(size)) p = FromArena(size, alignment, &fallback);
  if (fallback) p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

void* aligned_alloc(size_t alignment, size_t size) {
  if (!PowerOfTwo(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  if (UseArena(size)) {
    bool fallback = false;
    void* p = FromArena(size, alignment, &fallback);
    if (!fallback) return p;
  }
  return __libc_memalign(alignment, size);
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
  if (Owns(p)) return UsableSize(p);
  return LibcUsableSize(p);
}

}  // extern "C"
#pragma GCC visibility pop
#endif  // BDMPI_INTERPOSE_MALLOC
