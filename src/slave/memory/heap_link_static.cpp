// jemalloc linked in (libbdmpi.a, bdmpi_slave_core): heap_link.h.
#include "slave/memory/heap_link.h"

extern "C" {
void* bdmpi_je_mallocx(size_t size, int flags);
void bdmpi_je_free(void* ptr);
void* bdmpi_je_rallocx(void* ptr, size_t size, int flags);
size_t bdmpi_je_sallocx(const void* ptr, int flags);
int bdmpi_je_mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen);
// Overrides jemalloc's weak default (defined here, in the object a static
// link always takes with jemalloc's).
extern const char* bdmpi_je_malloc_conf;
const char* bdmpi_je_malloc_conf = BDMPI_HEAP_MALLOC_CONF;
}

namespace bdmpi::memory {

const HeapEntries* LoadHeap() {
  static const HeapEntries entries = {bdmpi_je_mallocx, bdmpi_je_free, bdmpi_je_rallocx,
                                      bdmpi_je_sallocx, bdmpi_je_mallctl};
  return &entries;
}

}  // namespace bdmpi::memory
