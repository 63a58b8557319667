/* jemalloc's options for the storage-backed heap (its malloc_conf), for
 * both ways of linking it (heap_link.h). One automatic arena: only
 * jemalloc's own bookkeeping uses it (ordinary mmap memory, kilobytes). No
 * muzzy state: decommit is how this heap gives pages back (heap.h). */
#ifndef BDMPI_SLAVE_MEMORY_HEAP_CONF_H_
#define BDMPI_SLAVE_MEMORY_HEAP_CONF_H_
#define BDMPI_HEAP_MALLOC_CONF "narenas:1,muzzy_decay_ms:0"
#endif
