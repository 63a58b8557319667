#include "collectives/patterns.h"
#include "collectives/reduce.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {

std::unique_ptr<Operation> StartReduceChain(Transport& t, int tag,
                                            std::span<std::byte> data,
                                            Reduction op,
                                            std::span<const int> order,
                                            std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  CheckReduction(op, data.size());
  // Data flows from the end of the chain toward the root at its start, so
  // the chain's successor is this peer's child.
  ChainLinks links = ChainLinksOf(CheckedOrder(t, order), t.rank());
  return MakeOperation(t, TreeReduce(t, tag, data, std::move(op), links.before,
                                     std::move(links.after), chunk_bytes));
}

}  // namespace bdmpi::coll
