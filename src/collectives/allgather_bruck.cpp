#include <algorithm>
#include <cstring>

#include "collectives/allgather.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {
namespace {

// In the rotated layout position j holds block (r + j) mod n. In step k,
// with d = 2^k blocks already at positions 0..d-1, peer r sends its first
// min(d, n - d) blocks to r - d and receives as many from r + d, which are
// exactly its positions d, d + 1, ...: everything moves as one range.
Task AllgathervBruck(Transport& t, int tag, std::span<std::byte> data,
                     std::vector<std::size_t> sizes, std::size_t chunk) {
  const int n = t.size();
  const int r = t.rank();
  std::vector<std::size_t> offsets = BlockOffsets(sizes);
  std::vector<std::size_t> rotated(n + 1, 0);  // offsets in rotated layout
  for (int j = 0; j < n; ++j) rotated[j + 1] = rotated[j] + sizes[(r + j) % n];
  if (sizes[r] > 0)
    std::memmove(data.data(), data.data() + offsets[r], sizes[r]);
  for (int have = 1; have < n; have *= 2) {
    int count = std::min(have, n - have);
    co_await Exchange(
        t, tag, Mod(r - have, n), data.first(rotated[count]), Mod(r + have, n),
        data.subspan(rotated[have], rotated[have + count] - rotated[have]),
        chunk);
  }
  // Rotated = blocks r..n-1 then 0..r-1: turn blocks 0..r-1 to the front.
  std::rotate(data.begin(), data.begin() + (data.size() - offsets[r]),
              data.end());
}

}  // namespace

std::unique_ptr<Operation> StartAllgathervBruck(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  std::vector<std::size_t> sizes = CheckedSizes(t, block_bytes, data.size());
  return MakeOperation(
      t, AllgathervBruck(t, tag, data, std::move(sizes), chunk_bytes));
}

}  // namespace bdmpi::coll
