/* libbdmpi_heap.so's one source of its own: jemalloc's options, which
 * override jemalloc's weak default (heap_link.h). */
#include "slave/memory/heap_conf.h"

extern const char* bdmpi_je_malloc_conf;
const char* bdmpi_je_malloc_conf = BDMPI_HEAP_MALLOC_CONF;
