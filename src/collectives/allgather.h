// Allgather(v) among masters: `data` is the whole result, peer i's block of
// block_bytes[i] bytes at offset block_bytes[0] + ... + block_bytes[i-1].
// On entry each peer's own block is in place (the rest may hold anything);
// on completion every peer has every block. All peers pass the same sizes
// and chunk size. Allgather is the case of equal sizes.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// Ring: n - 1 steps, each passing one block to the right while receiving
// one from the left, pipelined in chunks; bandwidth-optimal, for large data.
std::unique_ptr<Operation> StartAllgathervRing(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, std::size_t chunk_bytes);

// Bruck: ceil(log2 n) steps for any n, for small data. Works on the blocks
// rotated so that the own block comes first and rotates them back in place
// at the end (std::rotate), so it needs no scratch.
std::unique_ptr<Operation> StartAllgathervBruck(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, std::size_t chunk_bytes);

}  // namespace bdmpi::coll
