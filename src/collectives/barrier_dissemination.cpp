#include "collectives/barrier.h"
#include "collectives/task.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {
namespace {

Task BarrierDissemination(Transport& t, int tag) {
  const int n = t.size();
  const int r = t.rank();
  for (int distance = 1; distance < n; distance *= 2) {
    std::vector<RequestId> round = {
        t.Isend(Mod(r + distance, n), tag, nullptr, 0),
        t.Irecv(Mod(r - distance, n), tag, nullptr, 0)};
    co_await AwaitAll(round);
  }
}

}  // namespace

std::unique_ptr<Operation> StartBarrierDissemination(Transport& t, int tag) {
  CheckCommon(t, tag, 1);
  return MakeOperation(t, BarrierDissemination(t, tag));
}

}  // namespace bdmpi::coll
