#include <algorithm>

#include "collectives/bcast.h"
#include "collectives/patterns.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {
namespace {

// Blocks are numbered by virtual rank (rank relative to the root): the
// binomial scatter leaves block v at vrank v, and each subtree's blocks are
// contiguous, so every scatter message is one range of data.
Task BcastScatterAllgather(Transport& t, int tag, std::span<std::byte> data,
                           int root, std::size_t chunk) {
  const int n = t.size();
  const int vrank = Mod(t.rank() - root, n);
  const std::vector<std::size_t> offsets = EvenBlocks(data.size(), n);
  auto blocks = [&](int first, int end) {
    end = std::min(end, n);
    return data.subspan(offsets[first], offsets[end] - offsets[first]);
  };
  int parent = BinomialParent(vrank);
  int extent = parent < 0 ? n : vrank - parent;  // size of my subtree's range
  if (parent >= 0)
    co_await RecvChunks(t, tag, Mod(parent + root, n),
                        blocks(vrank, vrank + extent), chunk);
  std::vector<int> children = BinomialChildren(vrank, n);
  for (auto it = children.rbegin(); it != children.rend(); ++it) {
    int child = *it;
    co_await SendChunks(t, tag, Mod(child + root, n),
                        blocks(child, child + (child - vrank)), chunk);
  }
  co_await RingAllgather(t, tag + 1, data, offsets, -root, chunk);
}

}  // namespace

std::unique_ptr<Operation> StartBcastScatterAllgather(Transport& t, int tag,
                                                      std::span<std::byte> data,
                                                      int root,
                                                      std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  CheckRoot(t, root);
  return MakeOperation(t,
                       BcastScatterAllgather(t, tag, data, root, chunk_bytes));
}

}  // namespace bdmpi::coll
