// The small-object heap of a slave: every malloc-family request below the
// storage threshold (arena.h) of a rank whose storage is on goes to
// jemalloc, which gets all its memory from chunks of the storage arena
// through its extent hooks. So small objects are storage-backed like large
// blocks: written back and dropped at a switch-out, read back on touch.
//
// jemalloc comes with libbdmpi with every symbol renamed (bdmpi_je_*,
// cmake/Jemalloc.cmake; linked in or loaded, heap_link.h): it is reached
// only from here, never through a malloc symbol of its own. It runs one
// arena of its own (arenas.create with the hooks below); the thread
// caches serve it as any arena.
//
// How jemalloc's extent operations map onto the arena:
//   alloc      a chunk (AllocateChunk): address range, disk reserved in one
//              piece, fresh zero memory; with opt.retain jemalloc asks for
//              geometrically growing chunks and never gives them back.
//   dalloc     not supported: jemalloc retains the range instead.
//   commit     CommitChunkRange: counted, and zero even where the file
//              holds data written at an earlier switch-out.
//   decommit   DecommitChunkRange: pages dropped (madvise), uncounted; how
//              jemalloc gives memory back after its decay and at a purge.
//   purge_*    not supported: decommit does it, and keeps the count true.
//   split      always; merge only within one chunk.
#pragma once

#include <cstddef>

namespace bdmpi::memory {

// nullptr with *fallback true: the heap is not there (storage off, or set
// up failed, or being set up by this or another thread): use glibc.
// nullptr with *fallback false: out of memory (errno ENOMEM).
void* HeapAllocate(std::size_t bytes, std::size_t alignment, bool zero, bool* fallback);
// For p in the heap (InHeap).
void HeapFree(void* p);
// nullptr (p intact) when the new size cannot be had.
void* HeapReallocate(void* p, std::size_t bytes);
std::size_t HeapUsableSize(const void* p);
// Before a switch-out: the calling thread's cache goes back to the heap
// and the heap decommits every page that holds no object, so that none
// of them is written back.
void PurgeHeap();
// Before the rank waits in MPI, where the master may read its storage
// count: decommits the pages that hold no object if, since the last purge,
// the heap committed or the program freed kPurgeGrowth or more. Freed
// memory then stops counting against the node budget as soon as the rank
// blocks, not only after jemalloc's decay (10 s) or a switch-out; a rank
// that frees and allocates a little between two calls does not pay for a
// purge each time.
void PurgeHeapIfGrown();
constexpr std::size_t kPurgeGrowth = 4 << 20;

}  // namespace bdmpi::memory
