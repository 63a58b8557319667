// Reduce to a root among masters: on completion the root's `data` holds the
// reduction of all peers' data; the other peers' data is left unspecified.
// All peers pass the same size, reduction, root (or order) and chunk size.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// Binomial tree, pipelined in chunks, for small messages. For a
// non-commutative reduction the tree is rooted at rank 0, which combines in
// rank order, and rank 0 then sends the result to the root. Scratch: at most
// kPipelineDepth * ceil(log2 n) chunks (one chunk per child when the
// message fits in one).
std::unique_ptr<Operation> StartReduceBinomial(Transport& t, int tag,
                                               std::span<std::byte> data,
                                               Reduction op, int root,
                                               std::size_t chunk_bytes);

// Pipelined chain toward order[0], the root: the last peer in `order` sends
// its chunks to the one before it, which folds in its own and passes them
// on. The result is order[0]'s op order[1]'s op ..., so for a
// non-commutative reduction only the order 0, 1, ..., n-1 gives MPI's
// result. Scratch: kPipelineDepth chunks; non-root data is not written.
std::unique_ptr<Operation> StartReduceChain(Transport& t, int tag,
                                            std::span<std::byte> data,
                                            Reduction op,
                                            std::span<const int> order,
                                            std::size_t chunk_bytes);

}  // namespace bdmpi::coll
