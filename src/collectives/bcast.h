// Broadcast among masters: on completion every peer's `data` holds the
// root's. All peers pass the same size, root, order and chunk size.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// Binomial tree, ceil(log2 n) rounds of the whole message: for small
// messages, where the number of startups dominates. Messages are cut into
// chunks but a peer forwards only what it has completely received.
std::unique_ptr<Operation> StartBcastBinomial(Transport& t, int tag,
                                              std::span<std::byte> data,
                                              int root,
                                              std::size_t chunk_bytes);

// Pipelined chain (Twister's chain broadcast): peers in `order`, which starts
// at the root; each forwards chunk i to the next while receiving chunk i+1.
// Time ~ (n + k - 1)(alpha + bytes*beta/k) for k chunks, close to
// bytes*beta for large messages whatever n. Pass the order rack by rack
// (ChainOrder) so the chain crosses each rack boundary once.
std::unique_ptr<Operation> StartBcastChain(Transport& t, int tag,
                                           std::span<std::byte> data,
                                           std::span<const int> order,
                                           std::size_t chunk_bytes);

// Binomial scatter of n blocks, then ring allgather of the blocks (the
// "bucket" algorithm): ~2 bytes*beta, independent of n.
std::unique_ptr<Operation> StartBcastScatterAllgather(Transport& t, int tag,
                                                      std::span<std::byte> data,
                                                      int root,
                                                      std::size_t chunk_bytes);

}  // namespace bdmpi::coll
