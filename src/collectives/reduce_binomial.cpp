#include "collectives/patterns.h"
#include "collectives/reduce.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {
namespace {

Task ReduceBinomial(Transport& t, int tag, std::span<std::byte> data,
                    Reduction op, int root, std::size_t chunk) {
  const int n = t.size();
  const int r = t.rank();
  // A commutative reduction may combine in any order, so the tree is rooted
  // where the result is wanted; otherwise at rank 0, where the binomial tree
  // combines in rank order.
  const int tree_root = op.commutative ? root : 0;
  const int vrank = Mod(r - tree_root, n);
  int parent = BinomialParent(vrank);
  if (parent >= 0) parent = Mod(parent + tree_root, n);
  std::vector<int> children = BinomialChildren(vrank, n);
  for (int& child : children) child = Mod(child + tree_root, n);
  co_await TreeReduce(t, tag, data, op, parent, std::move(children), chunk);
  if (tree_root == root) co_return;
  chunk = ElementChunk(chunk, op.element_bytes);
  if (r == tree_root) co_await SendChunks(t, tag + 1, root, data, chunk);
  if (r == root) co_await RecvChunks(t, tag + 1, tree_root, data, chunk);
}

}  // namespace

std::unique_ptr<Operation> StartReduceBinomial(Transport& t, int tag,
                                               std::span<std::byte> data,
                                               Reduction op, int root,
                                               std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  CheckRoot(t, root);
  CheckReduction(op, data.size());
  return MakeOperation(
      t, ReduceBinomial(t, tag, data, std::move(op), root, chunk_bytes));
}

}  // namespace bdmpi::coll
