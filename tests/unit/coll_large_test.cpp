// 16 MiB for every algorithm in src/collectives (the sweeps of
// coll_{bcast,reduce,gather}_test.cpp stop at 1 MiB + 3): the peer counts
// of kLargePeerCounts, the roots 0, a middle one and n - 1, and the chunk
// size the selection (select.h, default tuning) would choose, checked bit for
// bit against references built from the input patterns alone. The barrier
// moves no data and is left to the sweep. Its own program, labelled heavy.
//
// "16 MiB" is what each peer's buffer holds: the message of broadcast and
// (all)reduce; the whole result of allgatherv and gatherv and the input of
// scatterv, in blocks of about 16 MiB / n (equal, or unequal with empty ones
// as in the sweep); each peer's send buffer of alltoallv, likewise in blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "coll_test_util.h"
#include "collectives/allgather.h"
#include "collectives/allreduce.h"
#include "collectives/alltoall.h"
#include "collectives/bcast.h"
#include "collectives/chain_order.h"
#include "collectives/gather.h"
#include "collectives/reduce.h"
#include "collectives/select.h"
#include "collectives/transfer.h"

namespace bdmpi::coll::test {
namespace {

constexpr std::size_t kBytes = 16 << 20;
// One peer, an odd count (what recursive doubling and the binomial trees
// must fold in) and the largest power of two: the sweeps cover every count
// of kPeerCounts at smaller sizes, and each 16 MiB case costs seconds of
// CPU (up to half a minute at 8 peers on a loaded machine).
constexpr int kLargePeerCounts[] = {1, 3, 8};
// Never what an algorithm writes: any byte left unwritten shows.
constexpr std::byte kGarbage{0xA5};

// 0, n - 1 and a middle rank: the root first, last and elsewhere in the
// rank order, which is what the algorithms' relative ranks depend on.
std::vector<int> Roots(int n) {
  std::vector<int> roots = {0};
  if (n >= 3) roots.push_back(n / 2);
  if (n >= 2) roots.push_back(n - 1);
  return roots;
}

// Even peers in one rack, odd ones in another, so that the chains the
// master would build (ChainOrder) are not in rank order.
std::vector<int> TwoRacks(int n) {
  std::vector<int> racks(n);
  for (int r = 0; r < n; ++r) racks[r] = r % 2;
  return racks;
}

// Equal blocks, and unequal ones (which need two peers to differ).
std::vector<bool> Shapes(int n) {
  if (n == 1) return {true};
  return {true, false};
}

// `total` bytes cut in proportion to `weights` (not all zero); the rounding
// remainder goes to the first of the largest blocks.
std::vector<std::size_t> Split(std::size_t total,
                               const std::vector<std::size_t>& weights) {
  const std::size_t sum = std::accumulate(weights.begin(), weights.end(),
                                          std::size_t{0});
  std::vector<std::size_t> sizes(weights.size());
  for (std::size_t i = 0; i < weights.size(); ++i)
    sizes[i] = total / sum * weights[i];
  const auto largest = std::max_element(weights.begin(), weights.end());
  sizes[largest - weights.begin()] +=
      total - std::accumulate(sizes.begin(), sizes.end(), std::size_t{0});
  return sizes;
}

// Weights of the sweep's unequal blocks: 0, 1/2, 1, 3/2 times the block of
// equal ones, repeating, so some peers have empty blocks.
std::size_t Weight(bool equal, int i) { return equal ? 2 : i % 4; }

Bytes Concat(const std::vector<Bytes>& blocks) {
  Bytes all;
  for (const Bytes& b : blocks) all.insert(all.end(), b.begin(), b.end());
  return all;
}

Bytes Garbage(std::size_t bytes) { return Bytes(bytes, kGarbage); }

// Runs one operation per peer with `max_message` as the largest message
// allowed (the chunk) and a seed that differs from case to case.
void RunSeeded(int n, const StartFn& start, std::uint64_t seed,
         std::size_t max_message) {
  RunAll(n, start, seed + SeedShift(), max_message);
}

// ---------------------------------------------------------------- bcast

enum class BcastAlg { kBinomial, kChain, kScatterAllgather };

std::string Name(BcastAlg alg) {
  switch (alg) {
    case BcastAlg::kBinomial:
      return "binomial";
    case BcastAlg::kChain:
      return "chain";
    case BcastAlg::kScatterAllgather:
      return "scatter_allgather";
  }
  return "?";
}

class LargeBcast
    : public ::testing::TestWithParam<std::tuple<BcastAlg, int>> {};

TEST_P(LargeBcast, EveryRoot) {
  const auto [alg, n] = GetParam();
  const std::size_t chunk = SelectBcast(kBytes, n).chunk_bytes;
  const Bytes want = Pattern(kBytes, 1000 + n);
  std::vector<Bytes> data(n);
  for (int root : Roots(n)) {
    SCOPED_TRACE(Case(n, kBytes, chunk, root));
    for (int r = 0; r < n; ++r) data[r] = r == root ? want : Garbage(kBytes);
    const std::vector<int> order = ChainOrder(TwoRacks(n), n, root);
    RunSeeded(
        n,
        [&](Transport& t) {
          std::span<std::byte> mine = data[t.rank()];
          switch (alg) {
            case BcastAlg::kBinomial:
              return StartBcastBinomial(t, 0, mine, root, chunk);
            case BcastAlg::kChain:
              return StartBcastChain(t, 0, mine, order, chunk);
            case BcastAlg::kScatterAllgather:
              break;
          }
          return StartBcastScatterAllgather(t, 0, mine, root, chunk);
        },
        10 * n + root, chunk);
    for (int r = 0; r < n; ++r)
      ASSERT_EQ(Diff(data[r], want), "") << "peer " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, LargeBcast,
    ::testing::Combine(::testing::Values(BcastAlg::kBinomial, BcastAlg::kChain,
                                         BcastAlg::kScatterAllgather),
                       ::testing::ValuesIn(kLargePeerCounts)),
    [](const auto& param_info) {
      return Name(std::get<0>(param_info.param)) + "_n" +
             std::to_string(std::get<1>(param_info.param));
    });

// ------------------------------------------------------ reduce, allreduce

enum class ReduceAlg {
  kAllreduceRecursiveDoubling,
  kAllreduceRing,
  kReduceBinomial,
  kReduceChain
};

std::string Name(ReduceAlg alg) {
  switch (alg) {
    case ReduceAlg::kAllreduceRecursiveDoubling:
      return "allreduce_recursive_doubling";
    case ReduceAlg::kAllreduceRing:
      return "allreduce_ring";
    case ReduceAlg::kReduceBinomial:
      return "reduce_binomial";
    case ReduceAlg::kReduceChain:
      return "reduce_chain";
  }
  return "?";
}

bool IsAllreduce(ReduceAlg alg) {
  return alg == ReduceAlg::kAllreduceRecursiveDoubling ||
         alg == ReduceAlg::kAllreduceRing;
}

// The chunk the master would use for this operation (commutative: the sums
// of coll_test_util.h), in whole elements as the algorithms cut it.
std::size_t ReduceChunk(ReduceAlg alg, std::size_t bytes, int n,
                        std::size_t element) {
  const Choice c = IsAllreduce(alg) ? SelectAllreduce(bytes, n, true)
                                    : SelectReduce(bytes, n, true);
  return ElementChunk(c.chunk_bytes, element);
}

class LargeReduce
    : public ::testing::TestWithParam<std::tuple<ReduceAlg, int>> {};

// Bytes (1-byte elements, exactly 16 MiB) and triples of 32-bit integers
// (12-byte elements, which no chunk divides, so chunks must be rounded).
TEST_P(LargeReduce, EveryElementAndRoot) {
  const auto [alg, n] = GetParam();
  for (const Reduction& op : {SumU8(), SumU32x3()}) {
    const std::size_t bytes = WholeElements(kBytes, op.element_bytes);
    const std::size_t chunk = ReduceChunk(alg, bytes, n, op.element_bytes);
    std::vector<Bytes> inputs(n);
    for (int r = 0; r < n; ++r) inputs[r] = Pattern(bytes, 2000 + r);
    const Bytes want = ReduceAll(inputs, op);
    std::vector<Bytes> data(n);
    for (int root : IsAllreduce(alg) ? std::vector<int>{0} : Roots(n)) {
      SCOPED_TRACE(Case(n, bytes, chunk, root) +
                   " element=" + std::to_string(op.element_bytes));
      data = inputs;
      const std::vector<int> order = ChainOrder(TwoRacks(n), n, root);
      RunSeeded(
          n,
          [&](Transport& t) {
            std::span<std::byte> mine = data[t.rank()];
            switch (alg) {
              case ReduceAlg::kAllreduceRecursiveDoubling:
                return StartAllreduceRecursiveDoubling(t, 0, mine, op, chunk);
              case ReduceAlg::kAllreduceRing:
                return StartAllreduceRing(t, 0, mine, op, chunk);
              case ReduceAlg::kReduceBinomial:
                return StartReduceBinomial(t, 0, mine, op, root, chunk);
              case ReduceAlg::kReduceChain:
                break;
            }
            return StartReduceChain(t, 0, mine, op, order, chunk);
          },
          20 * n + root + op.element_bytes, chunk);
      for (int r = 0; r < n; ++r)
        if (IsAllreduce(alg) || r == root) {
          ASSERT_EQ(Diff(data[r], want), "") << "peer " << r;
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, LargeReduce,
    ::testing::Combine(
        ::testing::Values(ReduceAlg::kAllreduceRecursiveDoubling,
                          ReduceAlg::kAllreduceRing,
                          ReduceAlg::kReduceBinomial, ReduceAlg::kReduceChain),
        ::testing::ValuesIn(kLargePeerCounts)),
    [](const auto& param_info) {
      return Name(std::get<0>(param_info.param)) + "_n" +
             std::to_string(std::get<1>(param_info.param));
    });

// ------------------------------------- allgatherv, gatherv, scatterv

enum class GatherAlg { kAllgatherRing, kAllgatherBruck, kGather, kScatter };

std::string Name(GatherAlg alg) {
  switch (alg) {
    case GatherAlg::kAllgatherRing:
      return "allgatherv_ring";
    case GatherAlg::kAllgatherBruck:
      return "allgatherv_bruck";
    case GatherAlg::kGather:
      return "gatherv_linear";
    case GatherAlg::kScatter:
      return "scatterv_linear";
  }
  return "?";
}

class LargeGather
    : public ::testing::TestWithParam<std::tuple<GatherAlg, int>> {};

TEST_P(LargeGather, EveryShapeAndRoot) {
  const auto [alg, n] = GetParam();
  const bool rooted = alg == GatherAlg::kGather || alg == GatherAlg::kScatter;
  // Allgatherv's chunk comes from the whole size; gatherv and scatterv use
  // the fixed one (their non-root peers do not know the whole size).
  const std::size_t chunk =
      rooted ? FixedChunkBytes() : SelectAllgather(kBytes, n).chunk_bytes;
  for (bool equal : Shapes(n)) {
    std::vector<std::size_t> weights(n);
    for (int r = 0; r < n; ++r) weights[r] = Weight(equal, r);
    const std::vector<std::size_t> sizes = Split(kBytes, weights);
    std::vector<Bytes> blocks(n);
    for (int r = 0; r < n; ++r) blocks[r] = Pattern(sizes[r], 3000 + r);
    const Bytes whole = Concat(blocks);
    const std::vector<std::size_t> offsets = BlockOffsets(sizes);
    std::vector<Bytes> data(n);
    for (int root : rooted ? Roots(n) : std::vector<int>{0}) {
      SCOPED_TRACE(Case(n, kBytes, chunk, root) + (equal ? "" : " unequal"));
      // As in the sweep: allgatherv has the whole size everywhere with the
      // own block in place, gatherv so at the root and the own block
      // elsewhere, scatterv the whole input at the root.
      for (int r = 0; r < n; ++r) {
        if (alg == GatherAlg::kScatter) {
          data[r] = r == root ? whole : Garbage(sizes[r]);
        } else if (alg == GatherAlg::kGather && r != root) {
          data[r] = blocks[r];
        } else {
          data[r] = Garbage(kBytes);
          std::copy(blocks[r].begin(), blocks[r].end(),
                    data[r].begin() + offsets[r]);
        }
      }
      RunSeeded(
          n,
          [&](Transport& t) {
            std::span<std::byte> mine = data[t.rank()];
            switch (alg) {
              case GatherAlg::kAllgatherRing:
                return StartAllgathervRing(t, 0, mine, sizes, chunk);
              case GatherAlg::kAllgatherBruck:
                return StartAllgathervBruck(t, 0, mine, sizes, chunk);
              case GatherAlg::kGather:
                return StartGathervLinear(t, 0, mine, sizes, root, chunk);
              case GatherAlg::kScatter:
                break;
            }
            return StartScattervLinear(t, 0, mine, sizes, root, chunk);
          },
          30 * n + root + equal, chunk);
      for (int r = 0; r < n; ++r) {
        if (alg == GatherAlg::kScatter) {
          ASSERT_EQ(Diff(data[r], r == root ? whole : blocks[r]), "")
              << "peer " << r;
        } else if (!rooted || r == root) {
          ASSERT_EQ(Diff(data[r], whole), "") << "peer " << r;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, LargeGather,
    ::testing::Combine(::testing::Values(GatherAlg::kAllgatherRing,
                                         GatherAlg::kAllgatherBruck,
                                         GatherAlg::kGather,
                                         GatherAlg::kScatter),
                       ::testing::ValuesIn(kLargePeerCounts)),
    [](const auto& param_info) {
      return Name(std::get<0>(param_info.param)) + "_n" +
             std::to_string(std::get<1>(param_info.param));
    });

// ---------------------------------------------------------------- alltoallv

class LargeAlltoall : public ::testing::TestWithParam<int> {};

// Peer r sends 16 MiB, block j (to peer j) filled with Pattern(seed of
// (r, j)); unequal blocks weigh (r + 2j) mod 4 as in the sweep.
TEST_P(LargeAlltoall, EveryShape) {
  const int n = GetParam();
  const std::size_t chunk = FixedChunkBytes();
  auto seed = [n](int from, int to) { return 4000 + from * n + to; };
  for (bool equal : Shapes(n)) {
    SCOPED_TRACE(Case(n, kBytes, chunk) + (equal ? "" : " unequal"));
    std::vector<std::vector<std::size_t>> send_sizes(n), recv_sizes(n);
    for (int r = 0; r < n; ++r) {
      std::vector<std::size_t> weights(n);
      for (int j = 0; j < n; ++j) weights[j] = Weight(equal, r + 2 * j);
      send_sizes[r] = Split(kBytes, weights);
    }
    std::vector<Bytes> send(n), recv(n);
    for (int r = 0; r < n; ++r) {
      std::vector<Bytes> out(n);
      for (int j = 0; j < n; ++j) {
        out[j] = Pattern(send_sizes[r][j], seed(r, j));
        recv_sizes[r].push_back(send_sizes[j][r]);
      }
      send[r] = Concat(out);
      recv[r] = Garbage(BlockOffsets(recv_sizes[r]).back());
    }
    RunSeeded(
        n,
        [&](Transport& t) {
          const int r = t.rank();
          return StartAlltoallvPairwise(t, 0, send[r], send_sizes[r], recv[r],
                                        recv_sizes[r], chunk);
        },
        40 * n + equal, chunk);
    for (int r = 0; r < n; ++r) {
      std::vector<Bytes> in(n);
      for (int j = 0; j < n; ++j) in[j] = Pattern(recv_sizes[r][j], seed(j, r));
      ASSERT_EQ(Diff(recv[r], Concat(in)), "") << "peer " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, LargeAlltoall, ::testing::ValuesIn(kLargePeerCounts),
                         [](const auto& param_info) {
                           return "alltoallv_pairwise_n" +
                                  std::to_string(param_info.param);
                         });

}  // namespace
}  // namespace bdmpi::coll::test
