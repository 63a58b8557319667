// BDMPI's explicit storage-backed memory calls (include/bdmpi.h).
#include <bdmpi.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slave/memory/arena.h"
#include "slave/runtime/errors.h"

extern "C" {

void* BDMPI_Alloc_storage(size_t size) {
  if (size == 0) size = 1;
  if (bdmpi::memory::Threshold() != SIZE_MAX && !bdmpi::memory::InsideArena()) {
    bdmpi::memory::AllocResult result = bdmpi::memory::Allocate(size, 0);
    if (result.status == bdmpi::memory::AllocStatus::kOk) {
      if (!result.zeroed) memset(result.pointer, 0, size);  // zero either way
      return result.pointer;
    }
    if (result.status == bdmpi::memory::AllocStatus::kNoSpace) {
      errno = ENOMEM;
      return nullptr;
    }
  }
  return calloc(1, size);  // storage-backed allocation is off
}

void BDMPI_Free_storage(void* ptr) { free(ptr); }

int BDMPI_Prefetch(void* ptr, size_t bytes) {
  return bdmpi::Guard("BDMPI_Prefetch", MPI_COMM_WORLD,
                      [&] { bdmpi::memory::PrefetchRange(ptr, bytes); });
}

int BDMPI_Release(void* ptr, size_t bytes) {
  return bdmpi::Guard("BDMPI_Release", MPI_COMM_WORLD,
                      [&] { bdmpi::memory::ReleaseRange(ptr, bytes); });
}

int BDMPI_Discard(void* ptr, size_t bytes) {
  return bdmpi::Guard("BDMPI_Discard", MPI_COMM_WORLD,
                      [&] { bdmpi::memory::DiscardRange(ptr, bytes); });
}

}  // extern "C"
