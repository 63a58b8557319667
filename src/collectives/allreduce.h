// Allreduce among masters: on completion every peer's `data` holds the
// reduction of all peers' data. All peers pass the same size, reduction and
// chunk size.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// Recursive doubling, ceil(log2 n) exchanges of the whole message, for small
// messages. A non-power-of-two n first folds peers 2i into 2i+1 for
// i < n - 2^floor(log2 n) and sends them the result at the end. Operands are
// combined in rank order, so every peer computes the same expression and
// gets the same bits, and non-commutative operations are right. The message
// is processed in segments of chunk_bytes, which bounds the scratch memory
// to one chunk.
std::unique_ptr<Operation> StartAllreduceRecursiveDoubling(
    Transport& t, int tag, std::span<std::byte> data, Reduction op,
    std::size_t chunk_bytes);

// Ring reduce-scatter then ring allgather of n blocks, each step pipelined in
// chunks: ~2 bytes*beta whatever n, for large messages. Commutative
// operations only (block b is combined starting at peer b + 1). Scratch:
// kPipelineDepth chunks.
std::unique_ptr<Operation> StartAllreduceRing(Transport& t, int tag,
                                              std::span<std::byte> data,
                                              Reduction op,
                                              std::size_t chunk_bytes);

}  // namespace bdmpi::coll
