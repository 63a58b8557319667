// Allgather(v), gather(v), scatter(v), alltoall(v) and barrier on the
// in-process network: every peer count, size, chunk size and root, with
// equal and unequal (including empty) blocks, checked bit for bit.
#include <gtest/gtest.h>

#include "coll_test_util.h"
#include "collectives/allgather.h"
#include "collectives/alltoall.h"
#include "collectives/barrier.h"
#include "collectives/gather.h"
#include "collectives/transfer.h"

namespace bdmpi::coll::test {
namespace {

// Block sizes for a "size" of the sweep: all equal, or varying from empty
// to 1.5 times the size.
std::vector<std::size_t> BlockSizes(int n, std::size_t size, bool equal) {
  std::vector<std::size_t> sizes(n, size);
  if (!equal)
    for (int i = 0; i < n; ++i) sizes[i] = size * (i % 4) / 2;
  return sizes;
}

Bytes Concat(const std::vector<Bytes>& blocks) {
  Bytes all;
  for (const Bytes& b : blocks) all.insert(all.end(), b.begin(), b.end());
  return all;
}

enum class Alg { kAllgatherRing, kAllgatherBruck, kGather, kScatter };

std::string Name(Alg alg) {
  switch (alg) {
    case Alg::kAllgatherRing:
      return "allgatherv_ring";
    case Alg::kAllgatherBruck:
      return "allgatherv_bruck";
    case Alg::kGather:
      return "gatherv_linear";
    case Alg::kScatter:
      return "scatterv_linear";
  }
  return "?";
}

class GatherTest : public ::testing::TestWithParam<std::tuple<Alg, int>> {};

TEST_P(GatherTest, EverySizeChunkAndRoot) {
  const auto [alg, n] = GetParam();
  const bool rooted = alg == Alg::kGather || alg == Alg::kScatter;
  for (bool equal : {true, false}) {
    for (std::size_t size : kSizes) {
      const std::vector<std::size_t> sizes = BlockSizes(n, size, equal);
      std::vector<Bytes> blocks(n);
      for (int r = 0; r < n; ++r) blocks[r] = Pattern(sizes[r], 400 + r);
      const Bytes whole = Concat(blocks);
      const std::vector<std::size_t> offsets = BlockOffsets(sizes);
      for (std::size_t chunk : kChunks) {
        for (int root = 0; root < (rooted ? n : 1); ++root) {
          SCOPED_TRACE(Case(n, size, chunk, root) + (equal ? "" : " unequal"));
          // Allgather: whole-size garbage everywhere with the own block in
          // place; gather: so at the root, the own block elsewhere;
          // scatter: the whole input at the root, garbage elsewhere.
          std::vector<Bytes> data(n);
          for (int r = 0; r < n; ++r) {
            if (alg == Alg::kScatter) {
              data[r] = r == root ? whole : Pattern(sizes[r], 600 + r);
            } else if (alg == Alg::kGather && r != root) {
              data[r] = blocks[r];
            } else {
              data[r] = Pattern(whole.size(), 500 + r);
              std::copy(blocks[r].begin(), blocks[r].end(),
                        data[r].begin() + offsets[r]);
            }
          }
          RunAll(
              n,
              [&](Transport& t) {
                std::span<std::byte> mine = data[t.rank()];
                switch (alg) {
                  case Alg::kAllgatherRing:
                    return StartAllgathervRing(t, 0, mine, sizes, chunk);
                  case Alg::kAllgatherBruck:
                    return StartAllgathervBruck(t, 0, mine, sizes, chunk);
                  case Alg::kGather:
                    return StartGathervLinear(t, 0, mine, sizes, root, chunk);
                  case Alg::kScatter:
                    break;
                }
                return StartScattervLinear(t, 0, mine, sizes, root, chunk);
              },
              size + root, chunk);
          for (int r = 0; r < n; ++r) {
            if (alg == Alg::kScatter) {
              ASSERT_EQ(Diff(data[r], r == root ? whole : blocks[r]), "")
                  << "peer " << r;
            } else if (!rooted || r == root) {
              ASSERT_EQ(Diff(data[r], whole), "") << "peer " << r;
            }
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, GatherTest,
    ::testing::Combine(::testing::Values(Alg::kAllgatherRing,
                                         Alg::kAllgatherBruck, Alg::kGather,
                                         Alg::kScatter),
                       ::testing::ValuesIn(kPeerCounts)),
    [](const auto& param_info) {
      return Name(std::get<0>(param_info.param)) + "_n" +
             std::to_string(std::get<1>(param_info.param));
    });

class AlltoallTest : public ::testing::TestWithParam<int> {};

// Peer r sends block j of size f(r, j) filled with Pattern(seed r * n + j).
TEST_P(AlltoallTest, EverySizeAndChunk) {
  const int n = GetParam();
  for (bool equal : {true, false}) {
    for (std::size_t size : kSizes) {
      for (std::size_t chunk : kChunks) {
        SCOPED_TRACE(Case(n, size, chunk) + (equal ? "" : " unequal"));
        auto block_size = [&](int from, int to) {
          return equal ? size : size * ((from + 2 * to) % 4) / 2;
        };
        std::vector<std::vector<std::size_t>> send_sizes(n), recv_sizes(n);
        std::vector<Bytes> send(n), recv(n), want(n);
        for (int r = 0; r < n; ++r) {
          std::vector<Bytes> out(n), in(n);
          for (int j = 0; j < n; ++j) {
            send_sizes[r].push_back(block_size(r, j));
            recv_sizes[r].push_back(block_size(j, r));
            out[j] = Pattern(block_size(r, j), 700 + r * n + j);
            in[j] = Pattern(block_size(j, r), 700 + j * n + r);
          }
          send[r] = Concat(out);
          want[r] = Concat(in);
          recv[r] = Pattern(want[r].size(), 800 + r);
        }
        RunAll(
            n,
            [&](Transport& t) {
              int r = t.rank();
              return StartAlltoallvPairwise(t, 0, send[r], send_sizes[r],
                                            recv[r], recv_sizes[r], chunk);
            },
            size, chunk);
        for (int r = 0; r < n; ++r)
          ASSERT_EQ(Diff(recv[r], want[r]), "") << "peer " << r;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, AlltoallTest, ::testing::ValuesIn(kPeerCounts),
                         [](const auto& param_info) {
                           return "alltoallv_pairwise_n" +
                                  std::to_string(param_info.param);
                         });

// No peer leaves the barrier before the last one has entered it.
TEST(Barrier, NobodyLeavesBeforeEveryoneArrived) {
  for (int n : kPeerCounts) {
    for (int late = 0; late < n; ++late) {
      SCOPED_TRACE(Case(n, 0, 0, late));
      InprocNetwork net(
          n, {.seed = static_cast<std::uint64_t>(late), .delay = 0.25});
      std::vector<std::unique_ptr<Operation>> ops(n);
      for (int r = 0; r < n; ++r)
        if (r != late) ops[r] = StartBarrierDissemination(net.peer(r), 0);
      for (int sweep = 0; sweep < 100; ++sweep)
        for (int r = 0; r < n; ++r)
          if (r != late) {
            ASSERT_FALSE(ops[r]->Progress()) << "peer " << r;
          }
      ops[late] = StartBarrierDissemination(net.peer(late), 0);
      ASSERT_TRUE(RunToCompletion(net, ops)) << net.DescribeOutstanding();
    }
  }
}

}  // namespace
}  // namespace bdmpi::coll::test
