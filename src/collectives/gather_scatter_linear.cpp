#include "collectives/gather.h"
#include "collectives/patterns.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {
namespace {

// Gather and scatter are the same exchange in opposite directions.
std::unique_ptr<Operation> StartLinear(Transport& t, int tag,
                                       std::span<std::byte> data,
                                       std::span<const std::size_t> sizes,
                                       int root, std::size_t chunk,
                                       bool to_root) {
  CheckCommon(t, tag, chunk);
  CheckRoot(t, root);
  if (t.rank() != root) {
    CheckOwnBlock(t, sizes, data.size());
    return MakeOperation(t, to_root ? SendChunks(t, tag, root, data, chunk)
                                    : RecvChunks(t, tag, root, data, chunk));
  }
  std::vector<std::size_t> offsets =
      BlockOffsets(CheckedSizes(t, sizes, data.size()));
  return MakeOperation(
      t, LinearAtRoot(t, tag, data, std::move(offsets), to_root, chunk));
}

}  // namespace

std::unique_ptr<Operation> StartGathervLinear(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, int root,
    std::size_t chunk_bytes) {
  return StartLinear(t, tag, data, block_bytes, root, chunk_bytes, true);
}

std::unique_ptr<Operation> StartScattervLinear(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, int root,
    std::size_t chunk_bytes) {
  return StartLinear(t, tag, data, block_bytes, root, chunk_bytes, false);
}

}  // namespace bdmpi::coll
