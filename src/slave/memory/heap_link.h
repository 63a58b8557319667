// How heap.cpp reaches jemalloc (renamed bdmpi_je_*, cmake/Jemalloc.cmake).
//
// libbdmpi.a (and the unit tests' bdmpi_slave_core) carries jemalloc's
// objects and calls them directly (heap_link_static.cpp). libbdmpi.so does
// not: jemalloc keeps its thread data in initial-exec TLS (2.6 KiB), which
// glibc can give a library loaded with dlopen only from a small reserve,
// so a libbdmpi.so holding jemalloc could not itself be dlopen'ed (Python
// importing an MPI binding). So jemalloc is a library of its own,
// libbdmpi_heap.so next to libbdmpi.so, which heap_link_shared.cpp loads
// at the first small allocation of a rank whose storage is on; bdmprun
// enlarges that reserve for its slaves (GLIBC_TUNABLES,
// glibc.rtld.optional_static_tls), and a process that is not a slave never
// loads it.
#pragma once

#include <cstddef>

#include "slave/memory/heap_conf.h"

namespace bdmpi::memory {

struct HeapEntries {
  void* (*mallocx)(std::size_t size, int flags);
  void (*free)(void* ptr);  // jemalloc's free: its fast path, for any arena
  void* (*rallocx)(void* ptr, std::size_t size, int flags);
  std::size_t (*sallocx)(const void* ptr, int flags);
  int (*mallctl)(const char* name, void* oldp, std::size_t* oldlenp, void* newp,
                 std::size_t newlen);
};

// jemalloc's entry points; nullptr (reported once on stderr) when it
// cannot be loaded: small allocations then stay with glibc.
const HeapEntries* LoadHeap();

}  // namespace bdmpi::memory
