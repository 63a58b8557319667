#include <algorithm>

#include "collectives/bcast.h"
#include "collectives/patterns.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {

std::unique_ptr<Operation> StartBcastBinomial(Transport& t, int tag,
                                              std::span<std::byte> data,
                                              int root,
                                              std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  CheckRoot(t, root);
  const int n = t.size();
  const int vrank = Mod(t.rank() - root, n);
  int parent = BinomialParent(vrank);
  if (parent >= 0) parent = Mod(parent + root, n);
  std::vector<int> children = BinomialChildren(vrank, n);
  // Largest subtree first: it has the longest way to go.
  std::reverse(children.begin(), children.end());
  for (int& child : children) child = Mod(child + root, n);
  return MakeOperation(
      t, TreeBcast(t, tag, data, parent, std::move(children), chunk_bytes));
}

}  // namespace bdmpi::coll
