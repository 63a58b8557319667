// Allreduce and reduce algorithms on the in-process network: every peer
// count, size, chunk size, element size and root, checked bit for bit
// against a serial reduction; plus the order in which operands are combined.
#include <gtest/gtest.h>

#include <numeric>

#include "coll_test_util.h"
#include "collectives/allreduce.h"
#include "collectives/reduce.h"
#include "collectives/transfer.h"

namespace bdmpi::coll::test {
namespace {

enum class Alg { kRecursiveDoubling, kRing, kReduceBinomial, kReduceChain };

std::string Name(Alg alg) {
  switch (alg) {
    case Alg::kRecursiveDoubling:
      return "allreduce_recursive_doubling";
    case Alg::kRing:
      return "allreduce_ring";
    case Alg::kReduceBinomial:
      return "reduce_binomial";
    case Alg::kReduceChain:
      return "reduce_chain";
  }
  return "?";
}

bool IsAllreduce(Alg alg) {
  return alg == Alg::kRecursiveDoubling || alg == Alg::kRing;
}

// Chain toward root: root, then the others from the highest rank down, so
// the chain is not simply rank order.
std::vector<int> Order(int n, int root) {
  std::vector<int> order = {root};
  for (int r = n - 1; r >= 0; --r)
    if (r != root) order.push_back(r);
  return order;
}

std::unique_ptr<Operation> Start(Alg alg, Transport& t, int tag,
                                 std::span<std::byte> data, Reduction op,
                                 int root, std::size_t chunk) {
  switch (alg) {
    case Alg::kRecursiveDoubling:
      return StartAllreduceRecursiveDoubling(t, tag, data, op, chunk);
    case Alg::kRing:
      return StartAllreduceRing(t, tag, data, op, chunk);
    case Alg::kReduceBinomial:
      return StartReduceBinomial(t, tag, data, op, root, chunk);
    case Alg::kReduceChain:
      break;
  }
  return StartReduceChain(t, tag, data, op, Order(t.size(), root), chunk);
}

class ReduceTest : public ::testing::TestWithParam<std::tuple<Alg, int>> {};

TEST_P(ReduceTest, EverySizeChunkElementAndRoot) {
  const auto [alg, n] = GetParam();
  for (const Reduction& op : {SumU8(), SumU32x3()}) {
    for (std::size_t size : kSizes) {
      const std::size_t bytes = WholeElements(size, op.element_bytes);
      for (std::size_t chunk : kChunks) {
        for (int root = 0; root < (IsAllreduce(alg) ? 1 : n); ++root) {
          SCOPED_TRACE(Case(n, bytes, chunk, root) +
                       " element=" + std::to_string(op.element_bytes));
          std::vector<Bytes> data(n);
          for (int r = 0; r < n; ++r) data[r] = Pattern(bytes, 200 + r);
          const Bytes want = ReduceAll(data, op);
          RunAll(
              n,
              [&](Transport& t) {
                return Start(alg, t, 4, data[t.rank()], op, root, chunk);
              },
              bytes + root, ElementChunk(chunk, op.element_bytes));
          for (int r = 0; r < n; ++r)
            if (IsAllreduce(alg) || r == root) {
              ASSERT_EQ(Diff(data[r], want), "") << "peer " << r;
            }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, ReduceTest,
    ::testing::Combine(::testing::Values(Alg::kRecursiveDoubling, Alg::kRing,
                                         Alg::kReduceBinomial,
                                         Alg::kReduceChain),
                       ::testing::ValuesIn(kPeerCounts)),
    [](const auto& param_info) {
      return Name(std::get<0>(param_info.param)) + "_n" +
             std::to_string(std::get<1>(param_info.param));
    });

// Documents the order of operands. An element is an affine map x -> a*x + b
// on 32-bit integers; op(in, inout) stores "in, then inout" (inout after in),
// which is associative but not commutative. MPI wants a0 op a1 op ... op
// an-1 whatever the algorithm, i.e. `in` always holds the lower ranks: the
// result must be the maps applied in rank order.
Reduction Compose() {
  return {[](const std::byte* in, std::byte* inout, std::size_t bytes) {
            for (std::size_t i = 0; i < bytes; i += 8) {
              std::uint32_t f[2], g[2];  // {a, b}
              std::memcpy(f, in + i, 8);
              std::memcpy(g, inout + i, 8);
              std::uint32_t h[2] = {g[0] * f[0], g[0] * f[1] + g[1]};
              std::memcpy(inout + i, h, 8);
            }
          },
          8, /*commutative=*/false};
}

TEST(ReduceOrder, NonCommutativeOperandsCombineInRankOrder) {
  for (int n : kPeerCounts) {
    for (std::size_t bytes : {std::size_t{8}, std::size_t{8000}}) {
      for (int root = 0; root < n; ++root) {
        SCOPED_TRACE(Case(n, bytes, 800, root));
        std::vector<Bytes> inputs(n);
        for (int r = 0; r < n; ++r) inputs[r] = Pattern(bytes, 300 + r);
        const Bytes want = ReduceAll(inputs, Compose());
        // Chain reduce combines in chain order: rank order from rank 0.
        std::vector<Alg> algs = {Alg::kRecursiveDoubling, Alg::kReduceBinomial};
        if (root == 0) algs.push_back(Alg::kReduceChain);
        for (Alg alg : algs) {
          SCOPED_TRACE(Name(alg));
          std::vector<Bytes> data = inputs;
          std::vector<int> ascending(n);
          std::iota(ascending.begin(), ascending.end(), 0);
          RunAll(n, [&](Transport& t) {
            std::span<std::byte> mine = data[t.rank()];
            if (alg == Alg::kReduceChain)
              return StartReduceChain(t, 0, mine, Compose(), ascending, 800);
            return Start(alg, t, 0, mine, Compose(), root, 800);
          });
          for (int r = 0; r < n; ++r)
            if (IsAllreduce(alg) || r == root) {
              ASSERT_EQ(Diff(data[r], want), "") << "peer " << r;
            }
        }
      }
    }
  }
}

// MPI advises that allreduce gives every rank the same bits even for
// floating point; both algorithms do, because every peer evaluates the same
// expression (recursive doubling) or gets the one reduced copy (ring).
TEST(ReduceOrder, AllreduceGivesEveryPeerTheSameFloatingPointBits) {
  Reduction fsum = {[](const std::byte* in, std::byte* inout, std::size_t b) {
                      for (std::size_t i = 0; i < b; i += sizeof(float)) {
                        float x, y;
                        std::memcpy(&x, in + i, 4);
                        std::memcpy(&y, inout + i, 4);
                        y += x;
                        std::memcpy(inout + i, &y, 4);
                      }
                    },
                    4, true};
  for (Alg alg : {Alg::kRecursiveDoubling, Alg::kRing}) {
    for (int n : {3, 5, 8}) {
      std::vector<Bytes> data(n, Bytes(4000));
      for (int r = 0; r < n; ++r)
        for (std::size_t i = 0; i < 1000; ++i) {
          float v = 1.0f / static_cast<float>(3 + r * 7 + i % 13) * 1e3f;
          std::memcpy(data[r].data() + 4 * i, &v, 4);
        }
      RunAll(n, [&](Transport& t) {
        return Start(alg, t, 0, data[t.rank()], fsum, 0, 400);
      });
      for (int r = 1; r < n; ++r)
        EXPECT_EQ(Diff(data[r], data[0]), "") << Name(alg) << " n=" << n;
    }
  }
}

}  // namespace
}  // namespace bdmpi::coll::test
