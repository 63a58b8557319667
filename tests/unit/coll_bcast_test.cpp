// Broadcast algorithms on the in-process network: every peer count, size,
// chunk size and root, checked bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "coll_test_util.h"
#include "collectives/bcast.h"
#include "collectives/transfer.h"
#include "common/error.h"

namespace bdmpi::coll::test {
namespace {

enum class Alg { kBinomial, kChain, kChainShuffled, kScatterAllgather };

std::string Name(Alg alg) {
  switch (alg) {
    case Alg::kBinomial:
      return "binomial";
    case Alg::kChain:
      return "chain";
    case Alg::kChainShuffled:
      return "chain_shuffled";
    case Alg::kScatterAllgather:
      return "scatter_allgather";
  }
  return "?";
}

// Root first, then the others in rank order after it, or shuffled.
std::vector<int> Order(int n, int root, bool shuffle) {
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = (root + i) % n;
  if (shuffle) std::shuffle(order.begin() + 1, order.end(), std::mt19937(n));
  return order;
}

class BcastTest : public ::testing::TestWithParam<std::tuple<Alg, int>> {};

TEST_P(BcastTest, EverySizeChunkAndRoot) {
  const auto [alg, n] = GetParam();
  for (std::size_t bytes : kSizes) {
    for (std::size_t chunk : kChunks) {
      for (int root = 0; root < n; ++root) {
        SCOPED_TRACE(Case(n, bytes, chunk, root));
        std::vector<Bytes> data(n);
        for (int r = 0; r < n; ++r) data[r] = Pattern(bytes, 100 + r);
        const Bytes want = data[root];
        const std::vector<int> order =
            Order(n, root, alg == Alg::kChainShuffled);
        RunAll(
            n,
            [&](Transport& t) {
              std::span<std::byte> mine = data[t.rank()];
              switch (alg) {
                case Alg::kBinomial:
                  return StartBcastBinomial(t, 8, mine, root, chunk);
                case Alg::kChain:
                case Alg::kChainShuffled:
                  return StartBcastChain(t, 8, mine, order, chunk);
                case Alg::kScatterAllgather:
                  break;
              }
              return StartBcastScatterAllgather(t, 8, mine, root, chunk);
            },
            bytes * 31 + root, chunk);
        for (int r = 0; r < n; ++r)
          ASSERT_EQ(Diff(data[r], want), "") << "peer " << r;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, BcastTest,
    ::testing::Combine(::testing::Values(Alg::kBinomial, Alg::kChain,
                                         Alg::kChainShuffled,
                                         Alg::kScatterAllgather),
                       ::testing::ValuesIn(kPeerCounts)),
    [](const auto& param_info) {
      return Name(std::get<0>(param_info.param)) + "_n" +
             std::to_string(std::get<1>(param_info.param));
    });

// Wrong arguments from the master are internal errors, reported at start.
TEST(BcastArgs, ChainOrderMustBeAPermutation) {
  InprocNetwork net(3);
  Bytes data(10);
  std::vector<int> dup = {0, 1, 1};
  EXPECT_THROW(StartBcastChain(net.peer(0), 0, data, dup, 4), Error);
  std::vector<int> short_order = {0, 1};
  EXPECT_THROW(StartBcastChain(net.peer(0), 0, data, short_order, 4), Error);
  EXPECT_THROW(StartBcastBinomial(net.peer(0), 0, data, 3, 4), Error);
  EXPECT_THROW(StartBcastBinomial(net.peer(0), 0, data, 0, 0), Error);
  EXPECT_THROW(StartBcastBinomial(net.peer(0), -1, data, 0, 4), Error);
}

}  // namespace
}  // namespace bdmpi::coll::test
