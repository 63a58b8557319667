// Receive buffers that a blocking collective's result overwrites whole,
// while the rank waits in the collective. Nothing reads them before the
// result has replaced every byte, so a switch-out then need not write them
// back: ReleaseAll drops the arena's pages wholly inside them unwritten
// (with the lent blocks' pages, arena.h's CopiedBlock) and maps fresh
// memory there, so they come back as zeros, without a read from the
// storage file, and the result's copy fills them. The next switch-out
// writes them as any modified page. docs/scheduling-and-memory.md, "A
// collective's receive buffer is not written back while its rank waits in
// it".
#pragma once

#include <cstdint>
#include <vector>

#include "slave/memory/arena.h"

namespace bdmpi::memory {

// [start, start + bytes) of the rank's address space.
struct ByteSpan {
  std::uintptr_t start = 0;
  std::uint64_t bytes = 0;
};

// The whole pages (`page` bytes each, a power of two) inside the union of
// `spans`: spans that overlap or touch are merged first, so a page that
// two neighbouring receive blocks share is whole in their union. Sorted,
// disjoint, none empty; spans of no bytes add nothing.
std::vector<ByteSpan> WholePagesOfUnion(std::vector<ByteSpan> spans, std::uint64_t page);

// While alive (once marked), the arena's pages wholly inside the spans
// added are dead for the rank's switch-outs. For the spans of a receive
// that nothing reads or writes before the result has overwritten every
// byte of it: a buffer whose datatype has no gaps, and an in-place buffer
// only once the rank's contribution has been copied out of it. Memory
// outside the arena, heap chunks and partial pages are left as they are.
class DeadWhileWaiting {
 public:
  DeadWhileWaiting() = default;
  DeadWhileWaiting(const DeadWhileWaiting&) = delete;
  DeadWhileWaiting& operator=(const DeadWhileWaiting&) = delete;
  ~DeadWhileWaiting();

  // Adds [p, p + bytes); spans under a page or outside the arena add
  // nothing.
  void Add(const void* p, std::uint64_t bytes);
  // Marks the whole pages of what was added; call once, before the wait.
  void Mark();

 private:
  std::vector<ByteSpan> spans_;
  bool marked_ = false;
};

// Runs `wait` (a call that blocks at the master, where the rank may be
// switched out) with the spans `add` adds to a DeadWhileWaiting dead
// meanwhile, and returns what `wait` returns, the marks already gone.
template <typename Add, typename Wait>
auto WaitWithDead(Add&& add, Wait&& wait) {
  DeadWhileWaiting dead;
  add(dead);
  dead.Mark();
  return wait();
}

// The pages dead now (address and length; ReleaseAll's list, with the
// lent blocks').
std::vector<CopiedBlock> DeadBlocks();

}  // namespace bdmpi::memory
