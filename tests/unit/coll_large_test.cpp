// 64 MiB messages for the algorithms meant for large data, with the chunk
// size the selection would use; the sweeps cover the rest at smaller sizes.
#include <gtest/gtest.h>

#include "coll_test_util.h"
#include "collectives/allgather.h"
#include "collectives/allreduce.h"
#include "collectives/bcast.h"
#include "collectives/chain_order.h"
#include "collectives/reduce.h"
#include "collectives/select.h"

namespace bdmpi::coll::test {
namespace {

constexpr std::size_t kBytes = 64 << 20;

TEST(Large, BcastChain64MiBOver8PeersInTwoRacks) {
  const int n = 8, root = 5;
  const std::vector<int> racks = {0, 1, 0, 1, 0, 1, 0, 1};
  const std::size_t chunk = SelectBcast(kBytes, n).chunk_bytes;
  std::vector<Bytes> data(n, Bytes(kBytes));
  data[root] = Pattern(kBytes, 1);
  const std::vector<int> order = ChainOrder(racks, n, root);
  RunAll(
      n,
      [&](Transport& t) {
        return StartBcastChain(t, 0, data[t.rank()], order, chunk);
      },
      1, chunk);
  for (int r = 0; r < n; ++r)
    ASSERT_EQ(Diff(data[r], data[root]), "") << "peer " << r;
}

TEST(Large, BcastScatterAllgather64MiBOver5Peers) {
  const int n = 5, root = 3;
  const std::size_t chunk = SelectBcast(kBytes, n).chunk_bytes;
  std::vector<Bytes> data(n, Bytes(kBytes));
  data[root] = Pattern(kBytes, 2);
  RunAll(
      n,
      [&](Transport& t) {
        return StartBcastScatterAllgather(t, 0, data[t.rank()], root, chunk);
      },
      2, chunk);
  for (int r = 0; r < n; ++r)
    ASSERT_EQ(Diff(data[r], data[root]), "") << "peer " << r;
}

TEST(Large, AllreduceRingAndReduceChain64MiBOver3Peers) {
  const int n = 3;
  const std::size_t bytes = kBytes - kBytes % 12;  // whole 12-byte elements
  const std::size_t chunk = SelectAllreduce(bytes, n, true).chunk_bytes;
  std::vector<Bytes> data(n);
  for (int r = 0; r < n; ++r) data[r] = Pattern(bytes, 10 + r);
  const Bytes want = ReduceAll(data, SumU32x3());
  std::vector<Bytes> copy = data;
  RunAll(
      n,
      [&](Transport& t) {
        return StartAllreduceRing(t, 0, data[t.rank()], SumU32x3(), chunk);
      },
      3, chunk);
  for (int r = 0; r < n; ++r)
    ASSERT_EQ(Diff(data[r], want), "") << "peer " << r;
  const std::vector<int> order = {2, 0, 1};
  RunAll(
      n,
      [&](Transport& t) {
        return StartReduceChain(t, 0, copy[t.rank()], SumU32x3(), order, chunk);
      },
      4, chunk);
  ASSERT_EQ(Diff(copy[2], want), "");
}

}  // namespace
}  // namespace bdmpi::coll::test
