// Gather(v) to and scatter(v) from a root among masters. At the root `data`
// is the whole buffer, peer i's block of block_bytes[i] bytes at offset
// block_bytes[0] + ... + block_bytes[i-1], the root's own block in place; at
// the other peers `data` is their own block and only block_bytes[rank] needs
// to be right (as in MPI, only the root knows every size).
//
// Linear: the root moves every block straight between its place in `data`
// and its owner, as chunk-sized messages with at most max(kPipelineDepth, n)
// in flight, so nothing is held anywhere but in `data`, which may be a
// mapped spill file. The root's link carries all the data whatever the
// algorithm, so a tree would only add copies at inner peers.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

std::unique_ptr<Operation> StartGathervLinear(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, int root,
    std::size_t chunk_bytes);

std::unique_ptr<Operation> StartScattervLinear(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, int root,
    std::size_t chunk_bytes);

}  // namespace bdmpi::coll
