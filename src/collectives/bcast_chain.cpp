#include "collectives/bcast.h"
#include "collectives/patterns.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {

std::unique_ptr<Operation> StartBcastChain(Transport& t, int tag,
                                           std::span<std::byte> data,
                                           std::span<const int> order,
                                           std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  ChainLinks links = ChainLinksOf(CheckedOrder(t, order), t.rank());
  return MakeOperation(t, TreeBcast(t, tag, data, links.before,
                                    std::move(links.after), chunk_bytes));
}

}  // namespace bdmpi::coll
