#include "collectives/allgather.h"
#include "collectives/patterns.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {

std::unique_ptr<Operation> StartAllgathervRing(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  std::vector<std::size_t> offsets =
      BlockOffsets(CheckedSizes(t, block_bytes, data.size()));
  return MakeOperation(
      t, RingAllgather(t, tag, data, std::move(offsets), 0, chunk_bytes));
}

}  // namespace bdmpi::coll
