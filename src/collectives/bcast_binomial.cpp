#include "collectives/bcast.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {
namespace {

// Ranks relative to the root ("virtual ranks"): vrank v receives from
// v - lowbit(v) and then sends to v + m for every power of two m below
// lowbit(v), largest first, so the farthest subtree starts earliest.
Task BcastBinomial(Transport& t, int tag, std::span<std::byte> data, int root,
                   std::size_t chunk) {
  const int n = t.size();
  const int vrank = Mod(t.rank() - root, n);
  int mask = 1;
  while (mask < n && !(vrank & mask)) mask <<= 1;
  if (vrank != 0)
    co_await RecvChunks(t, tag, Mod(vrank - mask + root, n), data, chunk);
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vrank + mask < n)
      co_await SendChunks(t, tag, Mod(vrank + mask + root, n), data, chunk);
  }
}

}  // namespace

std::unique_ptr<Operation> StartBcastBinomial(Transport& t, int tag,
                                              std::span<std::byte> data,
                                              int root,
                                              std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  CheckRoot(t, root);
  return MakeOperation(t, BcastBinomial(t, tag, data, root, chunk_bytes));
}

}  // namespace bdmpi::coll
