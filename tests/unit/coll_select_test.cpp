// Algorithm selection, its environment overrides, the chunk model, the chain
// order over racks, and the master's entry points (collectives.h) running
// every forced algorithm end to end.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "coll_test_util.h"
#include "collectives/chain_order.h"
#include "collectives/collectives.h"
#include "collectives/select.h"
#include "common/error.h"

namespace bdmpi::coll::test {
namespace {

Tuning FromEnv(const std::map<std::string, std::string>& env) {
  return Tuning::FromEnvironment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(Select, DefaultsBySize) {
  EXPECT_EQ(SelectBcast(1000, 8).algorithm, Algorithm::kBinomial);
  EXPECT_EQ(SelectBcast(4095, 8).algorithm, Algorithm::kBinomial);
  EXPECT_EQ(SelectBcast(4096, 8).algorithm, Algorithm::kChain);
  EXPECT_EQ(SelectBcast(64 << 20, 2).algorithm, Algorithm::kBinomial);
  EXPECT_EQ(SelectAllreduce(32767, 4, true).algorithm,
            Algorithm::kRecursiveDoubling);
  EXPECT_EQ(SelectAllreduce(32768, 4, true).algorithm, Algorithm::kRing);
  EXPECT_EQ(SelectAllreduce(64 << 20, 4, false).algorithm,
            Algorithm::kRecursiveDoubling);
  EXPECT_EQ(SelectReduce(20479, 4, true).algorithm, Algorithm::kBinomial);
  EXPECT_EQ(SelectReduce(20480, 4, true).algorithm, Algorithm::kChain);
  EXPECT_EQ(SelectReduce(4096, 8, true).algorithm, Algorithm::kChain);
  EXPECT_EQ(SelectReduce(64 << 20, 8, false).algorithm, Algorithm::kBinomial);
  EXPECT_EQ(SelectAllgather(49999, 5).algorithm, Algorithm::kBruck);
  EXPECT_EQ(SelectAllgather(50000, 5).algorithm, Algorithm::kRing);
}

TEST(Select, ChunkFollowsTwistersModel) {
  // sqrt(bytes * alpha / ((p - 1) beta)) with alpha = 100 us, beta = 8 ns/B,
  // in whole 64 KiB units: 64 MiB over 4 peers -> ~516 KiB -> 512 KiB.
  EXPECT_EQ(ModelChunkBytes(64 << 20, 4), 512u << 10);
  EXPECT_EQ(ModelChunkBytes(64 << 20, 8), 320u << 10);
  EXPECT_EQ(ModelChunkBytes(1000, 4), 64u << 10);                 // floor
  EXPECT_EQ(ModelChunkBytes(std::size_t{1} << 40, 2), 4u << 20);  // ceiling
  EXPECT_EQ(ModelChunkBytes(1 << 20, 1), 4u << 20);
  // More peers, smaller chunks: the pipeline fills in fewer of them.
  EXPECT_GE(ModelChunkBytes(256 << 20, 3), ModelChunkBytes(256 << 20, 8));
  EXPECT_EQ(SelectBcast(64 << 20, 4).chunk_bytes, 512u << 10);
}

TEST(Select, EnvironmentForcesAlgorithmsAndChunk) {
  Tuning t = FromEnv({{"BDMPI_BCAST_ALGORITHM", "scatter_allgather"},
                      {"BDMPI_ALLREDUCE_ALGORITHM", "ring"},
                      {"BDMPI_REDUCE_ALGORITHM", "chain"},
                      {"BDMPI_ALLGATHER_ALGORITHM", "bruck"},
                      {"BDMPI_CHUNK_SIZE", "256K"}});
  EXPECT_EQ(SelectBcast(10, 4, t).algorithm, Algorithm::kScatterAllgather);
  EXPECT_EQ(SelectAllreduce(10, 4, true, t).algorithm, Algorithm::kRing);
  EXPECT_EQ(SelectReduce(10, 4, true, t).algorithm, Algorithm::kChain);
  EXPECT_EQ(SelectAllgather(1 << 30, 4, t).algorithm, Algorithm::kBruck);
  EXPECT_EQ(SelectBcast(10, 4, t).chunk_bytes, 256u << 10);
  EXPECT_EQ(FixedChunkBytes(t), 256u << 10);
  // Never a wrong result: ring and chain reorder operands.
  EXPECT_EQ(SelectAllreduce(1 << 20, 4, false, t).algorithm,
            Algorithm::kRecursiveDoubling);
  EXPECT_EQ(SelectReduce(1 << 20, 4, false, t).algorithm, Algorithm::kBinomial);

  EXPECT_EQ(FromEnv({{"BDMPI_CHUNK_SIZE", "3m"}}).chunk_bytes, 3u << 20);
  EXPECT_EQ(FromEnv({{"BDMPI_CHUNK_SIZE", "1G"}}).chunk_bytes, 1u << 30);
  EXPECT_EQ(FromEnv({{"BDMPI_CHUNK_SIZE", "4096"}}).chunk_bytes, 4096u);
  Tuning unset = FromEnv(
      {{"BDMPI_BCAST_ALGORITHM", "auto"}, {"BDMPI_ALLREDUCE_ALGORITHM", ""}});
  EXPECT_FALSE(unset.bcast);
  EXPECT_FALSE(unset.allreduce);
  EXPECT_EQ(unset.chunk_bytes, 0u);
}

TEST(Select, BadEnvironmentValuesSayWhatIsAccepted) {
  for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"BDMPI_BCAST_ALGORITHM", "ring"},
           {"BDMPI_ALLREDUCE_ALGORITHM", "chain"},
           {"BDMPI_REDUCE_ALGORITHM", "Binomial"},
           {"BDMPI_ALLGATHER_ALGORITHM", "recursive"},
           {"BDMPI_CHUNK_SIZE", "0"},
           {"BDMPI_CHUNK_SIZE", "-5"},
           {"BDMPI_CHUNK_SIZE", "12Q"},
           {"BDMPI_CHUNK_SIZE", "K"},
           {"BDMPI_CHUNK_SIZE", "99999999999999999999"}}) {
    try {
      FromEnv({{name, value}});
      ADD_FAILURE() << name << "=" << value << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.error_class(), kErrArg);
      EXPECT_NE(std::string(e.what()).find(name + "=" + value),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(ChainOrder, RackByRackStartingAtTheRoot) {
  // Racks interleaved by rank, as a host list might be.
  std::vector<int> racks = {0, 1, 0, 1, 0, 1, 0, 1};
  EXPECT_EQ(ChainOrder(racks, 8, 0),
            (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(ChainOrder(racks, 8, 5),
            (std::vector<int>{5, 7, 1, 3, 6, 0, 2, 4}));
  std::vector<int> three = {7, 3, 3, 9, 7};  // any rack ids
  EXPECT_EQ(ChainOrder(three, 5, 4), (std::vector<int>{4, 0, 3, 1, 2}));
  EXPECT_EQ(ChainOrder({}, 4, 2), (std::vector<int>{2, 3, 0, 1}));
  EXPECT_THROW(ChainOrder(racks, 7, 0), Error);
  EXPECT_THROW(ChainOrder({}, 4, 4), Error);
}

// The chain crosses every rack boundary exactly once.
TEST(ChainOrder, CrossesEachRackBoundaryOnce) {
  std::vector<int> racks = {2, 0, 1, 2, 0, 1, 1, 0, 2};
  for (int root = 0; root < 9; ++root) {
    std::vector<int> order = ChainOrder(racks, 9, root);
    int crossings = 0;
    for (int i = 1; i < 9; ++i)
      crossings += racks[order[i]] != racks[order[i - 1]];
    EXPECT_EQ(crossings, 2) << "root " << root;
    EXPECT_EQ(order[0], root);
  }
}

// Every algorithm the environment can force, through the master's entry
// points, small and large, with racks.
TEST(EntryPoints, EveryForcedAlgorithmWorks) {
  const int n = 5;
  const std::vector<int> racks = {1, 0, 1, 0, 1};
  for (std::string bcast : {"binomial", "chain", "scatter_allgather", "auto"}) {
    for (std::string reduce : {"recursive_doubling", "ring", "auto"}) {
      for (std::size_t bytes : {std::size_t{24}, std::size_t{300000}}) {
        SCOPED_TRACE(bcast + " " + reduce + " " + std::to_string(bytes));
        Tuning tuning = FromEnv(
            {{"BDMPI_BCAST_ALGORITHM", bcast},
             {"BDMPI_ALLREDUCE_ALGORITHM", reduce},
             {"BDMPI_REDUCE_ALGORITHM",
              reduce == "ring" ? "chain" : "binomial"},
             {"BDMPI_ALLGATHER_ALGORITHM", reduce == "ring" ? "ring" : "bruck"},
             {"BDMPI_CHUNK_SIZE", bytes > 1000 ? "8K" : ""}});
        std::vector<Bytes> b(n), ar(n), rd(n), ag(n);
        for (int r = 0; r < n; ++r) {
          b[r] = Pattern(bytes, r);
          ar[r] = Pattern(bytes, 10 + r);
          rd[r] = Pattern(bytes, 20 + r);
          ag[r] = Pattern(bytes * n, 30 + r);
        }
        const Bytes want_b = b[2];
        const Bytes want_ar = ReduceAll(ar, SumU32x3());
        const Bytes want_rd = ReduceAll(rd, SumU32x3());
        Bytes want_ag;
        for (int r = 0; r < n; ++r)
          want_ag.insert(want_ag.end(), ag[r].begin() + r * bytes,
                         ag[r].begin() + (r + 1) * bytes);
        std::vector<std::size_t> blocks(n, bytes);
        InprocNetwork net(n, {.seed = bytes, .delay = 0.2});
        std::vector<std::unique_ptr<Operation>> ops;
        for (int r = 0; r < n; ++r) {
          Transport& t = net.peer(r);
          ops.push_back(StartBcast(t, 0, b[r], 2, racks, tuning));
          ops.push_back(StartAllreduce(t, 4, ar[r], SumU32x3(), tuning));
          ops.push_back(StartReduce(t, 8, rd[r], SumU32x3(), 3, racks, tuning));
          ops.push_back(StartAllgatherv(t, 12, ag[r], blocks, tuning));
          ops.push_back(StartBarrier(t, 16));
        }
        ASSERT_TRUE(RunToCompletion(net, ops)) << net.DescribeOutstanding();
        for (int r = 0; r < n; ++r) {
          EXPECT_EQ(Diff(b[r], want_b), "") << r;
          EXPECT_EQ(Diff(ar[r], want_ar), "") << r;
          EXPECT_EQ(Diff(ag[r], want_ag), "") << r;
        }
        EXPECT_EQ(Diff(rd[3], want_rd), "");
      }
    }
  }
}

}  // namespace
}  // namespace bdmpi::coll::test
