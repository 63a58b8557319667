// Communication patterns that several algorithms are made of. The algorithm
// files only work out who talks to whom (binomial tree, chain in a given
// order, ring) and hand that to one of these.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "collectives/operation.h"
#include "collectives/task.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// Pipelined broadcast down a tree: receive chunk i from `parent` (-1 at the
// root) into data, then send it to each child while chunks i+1... arrive.
// No memory beyond the requests.
Task TreeBcast(Transport& t, int tag, std::span<std::byte> data, int parent,
               std::vector<int> children, std::size_t chunk);

// Pipelined reduction up a tree: chunk i of the result at this node is
// mine op child[0]'s op child[1]'s ..., children in the order given (pass
// them in increasing rank for MPI's operand order), sent on to `parent` or,
// at the root (-1), stored in data. Received chunks go to at most
// kPipelineDepth * children.size() chunk-sized slots; data is only read
// except at the root.
Task TreeReduce(Transport& t, int tag, std::span<std::byte> data, Reduction op,
                int parent, std::vector<int> children, std::size_t chunk);

// Ring allgather of n blocks (offsets: n + 1 of them) in place: peer r holds
// block (r + block_shift) mod n at the start and every block at the end;
// n - 1 steps, each sending one block to r + 1 while receiving one from
// r - 1.
Task RingAllgather(Transport& t, int tag, std::span<std::byte> data,
                   std::vector<std::size_t> offsets, int block_shift,
                   std::size_t chunk);

// This peer's neighbours in a chain: the peer before it in `order` (-1 for
// order[0]) and the peer after it (none for the last), as a tree's parent and
// children.
struct ChainLinks {
  int before = -1;
  std::vector<int> after;
};
ChainLinks ChainLinksOf(const std::vector<int>& order, int rank);

// Children of virtual rank v in a binomial tree of n, in increasing order
// (v + 1, v + 2, v + 4, ... below v's lowest set bit), and v's parent (-1
// for 0). Virtual ranks are ranks relative to the tree's root.
std::vector<int> BinomialChildren(int vrank, int n);
int BinomialParent(int vrank);

// The root's side of a linear gather (to_root) or scatter: every other
// peer's block of data (offsets: n + 1) moves between the root and that peer
// in chunks, peer after peer, at most max(kPipelineDepth, n) messages in
// flight. The other peers just SendChunks / RecvChunks their block.
Task LinearAtRoot(Transport& t, int tag, std::span<std::byte> data,
                  std::vector<std::size_t> offsets, bool to_root,
                  std::size_t chunk);

}  // namespace bdmpi::coll
