// Lent blocks restored lazily: after a switch-out that skipped a lent
// block's pages (arena.h, CopiedBlock), the master's copy is mapped over
// them, private, so that only the pages the program touches are read from
// it; the copy is let go of once nothing maps it
// (docs/scheduling-and-memory.md, "Lent send buffers not written back").
#pragma once

#include <cstddef>
#include <cstdint>

namespace bdmpi::memory {

// Maps [skipped, skipped + bytes) privately from `fd` at `offset` (both
// page-aligned) and notes it; false (nothing mapped) when it cannot.
bool MapLentCopy(int fd, std::uint64_t address, std::uint64_t skipped, std::uint64_t bytes,
                 std::uint64_t offset);

// The arena's hooks, under its lock (neither allocates nor calls into the
// arena), for the copies mapped over any of [block, block + length). A
// block freed: its mapped copies get fresh memory, unread. A block
// reallocated, or a range that a call reads through the storage file
// (ReleaseRange, MPI-IO's WriteFileFrom, which take clean file pages for
// the storage file's): they are read into the rank's own pages first.
void LentCopiesFreed(const void* block, std::size_t length);
void LentCopiesKept(const void* block, std::size_t length);

// Before a switch-out's write-back, which takes clean file pages for the
// storage file's: every mapped copy read into the rank's own pages.
void SettleLentCopies();

// The copies nothing maps any more, to name to the master (LentSettled):
// the block's address and the bytes read from the copy to settle it.
struct SettledLentCopy {
  std::uint64_t address = 0;
  std::uint64_t read = 0;
};
bool LentCopiesToTell();
// One of them, no longer noted; false when none is left.
bool TakeSettledLentCopy(SettledLentCopy& settled);

}  // namespace bdmpi::memory
