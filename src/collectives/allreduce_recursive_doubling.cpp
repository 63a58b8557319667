#include <cstring>

#include "collectives/allreduce.h"
#include "collectives/task.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {
namespace {

// One segment (at most one chunk, so one message per exchange). `scratch`
// holds the partner's partial.
Task ReduceSegment(Transport& t, int tag, std::span<std::byte> seg,
                   std::span<std::byte> scratch, const Reduction& op) {
  const int n = t.size();
  const int r = t.rank();
  int pow2 = 1;
  while (pow2 * 2 <= n) pow2 *= 2;
  const int extra = n - pow2;
  std::span<std::byte> theirs = scratch.first(seg.size());
  // Fold: among ranks < 2 * extra, each even rank hands its data to the odd
  // rank above it and sits out; the others renumber 0..pow2-1 keeping rank
  // order (new rank i < extra stands for ranks 2i and 2i+1).
  int vrank;
  if (r < 2 * extra) {
    if (r % 2 == 0) {
      co_await SendChunks(t, tag, r + 1, seg, seg.size());
      co_await RecvChunks(t, tag + 1, r + 1, seg, seg.size());
      co_return;
    }
    co_await RecvChunks(t, tag, r - 1, theirs, seg.size());
    op.fn(theirs.data(), seg.data(), seg.size());  // lower rank on the left
    vrank = r / 2;
  } else {
    vrank = r - extra;
  }
  for (int mask = 1; mask < pow2; mask <<= 1) {
    int vpartner = vrank ^ mask;
    int partner = vpartner < extra ? 2 * vpartner + 1 : vpartner + extra;
    co_await Exchange(t, tag, partner, seg, partner, theirs, seg.size());
    if (vpartner < vrank) {
      op.fn(theirs.data(), seg.data(), seg.size());
    } else {
      op.fn(seg.data(), theirs.data(), seg.size());
      std::memcpy(seg.data(), theirs.data(), seg.size());
    }
  }
  if (r < 2 * extra) co_await SendChunks(t, tag + 1, r - 1, seg, seg.size());
}

Task AllreduceRecursiveDoubling(Transport& t, int tag,
                                std::span<std::byte> data, Reduction op,
                                std::size_t chunk) {
  chunk = ElementChunk(chunk, op.element_bytes);
  std::vector<std::byte> scratch(std::min(chunk, data.size()));
  for (std::size_t i = 0; i < ChunkCount(data.size(), chunk); ++i)
    co_await ReduceSegment(t, tag, ChunkOf(data, chunk, i), scratch, op);
}

}  // namespace

std::unique_ptr<Operation> StartAllreduceRecursiveDoubling(
    Transport& t, int tag, std::span<std::byte> data, Reduction op,
    std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  CheckReduction(op, data.size());
  return MakeOperation(
      t, AllreduceRecursiveDoubling(t, tag, data, std::move(op), chunk_bytes));
}

}  // namespace bdmpi::coll
