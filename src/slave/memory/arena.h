// Storage-backed allocations: the large blocks of a slave live in a sparse
// scratch file of their own, so that the runtime can write them back with
// large sequential I/O and drop them when the slave is switched out, and
// read them back when it resumes, without swap.
//
// Layout. At the first large request the arena reserves a big range of
// address space (PROT_NONE, no memory) and creates an unlinked file in the
// slave's spill directory; the block at address base + x uses file offset x,
// so "is this ours" is a range check and the file needs no index. Blocks
// start at page boundaries, but the program's pointer lies a "colour" into
// the first page, an odd multiple of 64 bytes that differs from block to
// block (page-aligned requests get none): two arrays allocated one after
// the other then do not start at the same offset in a page, which slows
// loops that read one and write the other (arena.cpp, kColourStep). The block's
// page-aligned start is its key; everything page-wise (write-back, read-
// back, fresh and dead pages, lent blocks) sees the whole pages.
//
// States of a block's pages. A new block is private anonymous memory (zero,
// no page cache, no file I/O). Switch-out writes every page that is
// resident and not a clean file page (pagemap: present or swapped, not
// "file") to the file, syncs it and replaces the block by a private mapping
// of the file (MAP_PRIVATE): its pages come back from the file on demand,
// and a page written again becomes anonymous again. So the kernel never
// writes a block behind the runtime's back (private pages are not file
// dirty pages), and a page that was only read is never written twice.
//
// Disk space is reserved (fallocate) when a block is allocated: a full disk
// fails the allocation with a message naming the scratch directory, never
// a write-back later.
//
// Thread safety: one mutex; user threads may allocate. Allocations made by
// the arena's own bookkeeping (std::map nodes, strings) go to glibc: a
// thread-local flag marks "inside the arena" for the interposed malloc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace bdmpi::memory {

// The arena's page: what it maps, writes back and drops, page by page.
inline constexpr std::size_t kArenaPage = 4096;

// Requests of at least this many bytes take a block of their own in the
// arena, smaller ones go to the heap on the arena's chunks (heap.h);
// SIZE_MAX when storage-backed allocation is off (not started by bdmprun,
// switched off, or a child process of a slave): glibc then serves all.
// Reads the environment once.
std::size_t Threshold();

// True while the calling thread is inside the arena: its own allocations
// must go to glibc.
bool InsideArena();

// Whether `p` points into the arena's reserved range. Cheap; safe to call
// before anything was allocated. Compares the address only (access(none)
// tells the compiler so: it would otherwise take freshly allocated memory
// passed here for a read of uninitialised bytes).
__attribute__((access(none, 1))) bool Owns(const void* p);

enum class AllocStatus { kOk, kUnavailable, kNoSpace };
struct AllocResult {
  void* pointer = nullptr;
  AllocStatus status = AllocStatus::kUnavailable;
  bool zeroed = false;  // false: a recycled block, holding its old contents
};

// A block of at least `bytes`, aligned to max(alignment, 64): its data
// starts its colour into its first page (none when alignment >= the
// page), and the block takes whole pages, colour included. Zero-filled
// when fresh; a block recycled from a recent free keeps what it held
// (`zeroed` false), as glibc's reused chunks do, so calloc must clear it,
// unless its memory had gone (a switch-out unmapped it or mapped it from
// the storage file): then it gets fresh memory and is zeroed.
// kUnavailable: the arena could not be set up or is full (the caller
// falls back to glibc); kNoSpace: the scratch disk is full (already
// reported on stderr).
AllocResult Allocate(std::size_t bytes, std::size_t alignment);
// Frees a block of the arena (aborts like glibc on a pointer that is not
// one Allocate or Reallocate returned for a live block).
void Free(void* p);
// realloc for a block of the arena to a size >= the threshold: shrinks in
// place, grows in place when the range after it is free, else moves.
// nullptr with the old block intact when the new block cannot be had.
void* Reallocate(void* p, std::size_t bytes);
// The block's usable size: from `p` to the end of its last page.
std::size_t UsableSize(const void* p);
// Whether [p, p + bytes) lies inside one live block: memory the program
// allocated and may read (pages on disk come back on touch). The runtime
// copies such a send buffer with memcpy; other buffers it copies through
// the kernel, which checks them (payload_segments.cpp).
bool InLiveBlock(const void* p, std::size_t bytes);

struct ReleaseStats {
  std::uint64_t written = 0;   // bytes written back
  std::uint64_t dropped = 0;   // bytes that were resident and were dropped
};

// Called during a switch-out each time at least `step` more bytes of
// storage-backed data (block lengths, as AllocatedBytes counts them) have
// been written back and dropped, with the total so far: the master lets
// the next rank run as soon as what is left fits the budget, so that its
// reads overlap the rest of this write-back.
using ReleaseProgress = void (*)(void* context, std::uint64_t dropped_so_far);

// A block this rank lent whose copy the master keeps (the Release's list,
// docs/scheduling-and-memory.md, "Lent send buffers"): ReleaseAll drops
// the pages wholly inside it without writing them, if they lie in one
// block of the arena (not the heap's), and maps fresh memory there; it
// sets [skipped, skipped + skipped_bytes) to those pages, which the caller
// must fill from the copy before the program runs again.
struct CopiedBlock {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::uint64_t skipped = 0;
  std::uint64_t skipped_bytes = 0;
};

// Switch-out: writes back and drops every block, in pieces of at most
// `step` bytes (0: 64 MiB), each dropped as soon as it is written, but for
// the pages of `copied` and the dead pages of dead_pages.h, dropped
// unwritten, and the heap's metadata while it is small (kept resident).
// Throws bdmpi::Error on an I/O error.
ReleaseStats ReleaseAll(std::uint64_t step = 0, ReleaseProgress progress = nullptr,
                        void* context = nullptr, std::span<CopiedBlock> copied = {});
// Switch-in out of `point` (the request type the rank waited in): reads
// back into fresh memory, with large reads, the pages that were resident
// at the last ReleaseAll in the blocks the rank mostly rewrote after its
// last switch-in out of the same request (their pages would otherwise
// come back by a copy-on-write fault each); with lazy prefetch also reads
// what it touched of its small blocks then, exactly, with readahead();
// the rest comes back on first touch. After a point-to-point call
// (`after_message`) a fault on a heap chunk reads one 2 MiB folio, else
// two (ReadOneFolioOnHeapChunks).
void PrefetchAll(int point = -1, bool after_message = false);
// At a blocking call, the first since a lazy switch-in: notes what the
// rank touched of its small blocks since, for the next switch-in out of
// the same request.
void NoteTouched();
// At a blocking call, when the rank has faulted a megabyte's worth since
// the last: drops the storage file's cached pages of the pages the rank
// has written. A page of a private file mapping that the program writes
// is copied into anonymous memory, and its file page stays cached beside
// the copy, charged to the memory cgroup and counted nowhere by the
// master; the cgroup's reclaim then takes pages the master counts as
// resident, which come back a fault at a time. Pages read ahead of what
// the program touched stay: they are likely its next.
void DropFileCopies();
// At the end of a switch-out, once the runtime is done with the heap:
// drops every page of the storage file that no mapping holds. After
// ReleaseAll the runtime still allocates and frees (its reply to the
// master, its lists of lent blocks), and the first fault in a heap chunk
// mapped from the file reads ahead to the chunk's end: without this drop
// a switched-out rank kept up to a whole chunk (4 MiB) in the page cache,
// which the cgroup charges and the master counts as written back.
void DropFileCache();
// Read-ahead (--prefetch ahead), while the slave waits for its reply and
// another computes: reads back every page that was resident at the last
// ReleaseAll as clean file pages (what lazy faults would bring in), which
// a later switch-out need not write unless they were modified.
void ReadAhead();

// The same for the pages of [p, p + bytes) that belong to arena blocks
// (partial pages included; memory outside the arena is left alone).
ReleaseStats ReleaseRange(void* p, std::size_t bytes);
void PrefetchRange(void* p, std::size_t bytes);
// Drops the pages wholly inside [p, p + bytes) without writing them back:
// they read as zero afterwards.
void DiscardRange(void* p, std::size_t bytes);
// A receive buffer that the message about to be copied overwrites whole:
// the pages wholly inside [p, p + bytes) whose data is on disk and not in
// memory get fresh (zero) memory, so that the copy does not read back what
// it overwrites (a fault on a switched-out page reads it from the storage
// file before the copy replaces it). Resident pages stay as they are; the
// next switch-out writes the new contents as it writes any modified page.
// Ranges below kMinFreshBytes, outside the arena or in blocks never written
// back are left alone (nothing to save). Throws bdmpi::Error when the
// memory cannot be mapped.
inline constexpr std::size_t kMinFreshBytes = 64 << 10;
void FreshPages(void* p, std::size_t bytes);

// MPI-IO's read into storage-backed memory: copies file bytes from `fd` at
// `offset` into the arena's backing file for the whole pages of
// [p, p + bytes) that lie in the block holding p (p page-aligned), and maps
// them from there, so the data never passes through the rank's memory
// (copy_file_range, or a 1 MiB bounce buffer across file systems that
// refuse it). Returns the bytes placed, a multiple of the page size and
// possibly 0 (p not in the arena, or end of file within the first page):
// the caller reads the rest itself. Throws bdmpi::Error on an I/O error.
std::size_t ReadFileInto(int fd, std::uint64_t offset, void* p, std::size_t bytes);

// MPI-IO's write from storage-backed memory: writes the whole pages of
// [p, p + bytes) in the block holding p (p page-aligned) to `fd` at
// `offset`, the pages whose data is in the backing file (released, or
// only read since) file to file, the others from memory, so that pages
// that were not resident stay so. Returns the bytes written, a multiple of
// the page size and possibly 0 (the caller writes the rest itself), or -1
// with errno set when a write failed.
std::int64_t WriteFileFrom(int fd, std::uint64_t offset, const void* p, std::size_t bytes);

// Sets the arena up if it is not yet; false when it cannot be.
bool ArenaAvailable();

// The heap's chunks (heap.h), in the upper half of the reserved range.
// Whether p lies there: cheap, lock-free.
__attribute__((access(none, 1))) bool InHeap(const void* p);
// A chunk of at least `bytes` with disk reserved, its memory fresh (zero);
// counted as committed when `commit`, else left for CommitChunkRange.
// nullptr when the arena is off or full, or the disk is (reported).
void* AllocateChunk(std::size_t bytes, std::size_t alignment, bool commit);
// Commits [p, p + bytes) of a chunk: it reads as zero afterwards, also
// after a switch-out maps it from the file. False when that failed.
bool CommitChunkRange(void* p, std::size_t bytes);
// Decommits [p, p + bytes): its pages are dropped, nothing is written.
bool DecommitChunkRange(void* p, std::size_t bytes);
// Whether a and b lie in the same chunk (jemalloc merges only those).
bool SameChunk(const void* a, const void* b);
// Bytes the heap holds, as the storage table counts them: what jemalloc
// has committed of its chunks, and the resident pages of its metadata.
std::uint64_t HeapCommittedBytes();
// The resident pages of the heap's metadata alone.
std::uint64_t HeapMetadataResidentBytes();
// What jemalloc has committed, without the lock (possibly a little stale).
std::uint64_t HeapCommittedHint();

// Bytes currently allocated from the arena, not counting freed blocks
// kept for reuse (the storage table counts those while they are mapped).
std::uint64_t AllocatedBytes();
// Drops the freed blocks kept for reuse: their ranges are punched out and
// free again (what free() does to a block that is not kept).
void DropRecycled();

// Storage-backed bytes the rank holds outside the arena, added to (or,
// negative, taken from) what the storage table counts for it: the window
// memory of MPI_Win_allocate, which lives in the window's file so that
// the node's other ranks reach it with memcpy, and which the rank writes
// back and drops at its switch-outs (slave/rma/window.h).
void CountOutsideArena(std::int64_t delta);

}  // namespace bdmpi::memory
