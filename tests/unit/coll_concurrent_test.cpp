// Several operations sharing one transport per peer, with different tags,
// progressed interleaved and started in a different order on each peer; and
// operations that reuse one tag range one after the other, each peer moving
// on as soon as its own part is done.
#include <gtest/gtest.h>

#include <deque>
#include <numeric>

#include "coll_test_util.h"
#include "collectives/allgather.h"
#include "collectives/allreduce.h"
#include "collectives/alltoall.h"
#include "collectives/barrier.h"
#include "collectives/bcast.h"
#include "collectives/gather.h"
#include "collectives/reduce.h"

namespace bdmpi::coll::test {
namespace {

constexpr int kN = 5;
constexpr std::size_t kBytes = 50000;
constexpr std::size_t kChunk = 4096;

struct Buffers {
  std::vector<Bytes> bcast1, bcast2, allreduce, reduce, allgather, gather,
      a2a_send, a2a_recv;
  std::vector<std::size_t> blocks = std::vector<std::size_t>(kN, kBytes / kN);
  std::vector<int> order = {3, 1, 4, 0, 2};  // a chain rooted at 3
};

std::vector<Bytes> Inputs(std::size_t bytes, std::uint64_t seed) {
  std::vector<Bytes> v;
  for (int r = 0; r < kN; ++r) v.push_back(Pattern(bytes, seed + r));
  return v;
}

// The operations of one peer; tags 0, 4, 8, ... so they are independent.
std::vector<std::unique_ptr<Operation>> StartAll(Transport& t, Buffers& b) {
  const int r = t.rank();
  std::vector<std::unique_ptr<Operation>> ops;
  ops.push_back(StartBcastChain(t, 0, b.bcast1[r], b.order, kChunk));
  ops.push_back(StartBcastBinomial(t, 4, b.bcast2[r], 1, kChunk));
  ops.push_back(StartAllreduceRing(t, 8, b.allreduce[r], SumU8(), kChunk));
  ops.push_back(StartReduceChain(t, 12, b.reduce[r], SumU8(), b.order, kChunk));
  ops.push_back(StartAllgathervBruck(t, 16, b.allgather[r], b.blocks, kChunk));
  ops.push_back(
      StartGathervLinear(t, 20,
                         r == 2 ? std::span<std::byte>(b.gather[r])
                                : std::span<std::byte>(b.gather[r])
                                      .subspan(r * (kBytes / kN), kBytes / kN),
                         b.blocks, 2, kChunk));
  ops.push_back(StartAlltoallvPairwise(t, 24, b.a2a_send[r], b.blocks,
                                       b.a2a_recv[r], b.blocks, kChunk));
  ops.push_back(StartBarrierDissemination(t, 28));
  // A different order of starting (and progressing) on every peer.
  std::rotate(ops.begin(), ops.begin() + 3 * r % ops.size(), ops.end());
  return ops;
}

TEST(Concurrent, OperationsWithDifferentTagsInterleave) {
  Buffers b;
  b.bcast1 = Inputs(kBytes, 10);
  b.bcast2 = Inputs(kBytes, 20);
  b.allreduce = Inputs(kBytes, 30);
  b.reduce = Inputs(kBytes, 40);
  b.allgather = Inputs(kBytes, 50);
  b.gather = Inputs(kBytes, 60);
  b.a2a_send = Inputs(kBytes, 70);
  b.a2a_recv = Inputs(kBytes, 80);
  const Bytes want_bcast1 = b.bcast1[3], want_bcast2 = b.bcast2[1];
  const Bytes want_allreduce = ReduceAll(b.allreduce, SumU8());
  const Bytes want_reduce = ReduceAll(b.reduce, SumU8());
  Bytes want_allgather, want_gather;
  const std::size_t block = kBytes / kN;
  for (int r = 0; r < kN; ++r) {
    auto part = [&](const Bytes& x) {
      return std::span<const std::byte>(x).subspan(r * block, block);
    };
    want_allgather.insert(want_allgather.end(), part(b.allgather[r]).begin(),
                          part(b.allgather[r]).end());
    want_gather.insert(want_gather.end(), part(b.gather[r]).begin(),
                       part(b.gather[r]).end());
  }
  std::vector<Bytes> want_a2a(kN);
  for (int r = 0; r < kN; ++r)
    for (int j = 0; j < kN; ++j)
      want_a2a[r].insert(want_a2a[r].end(), b.a2a_send[j].begin() + r * block,
                         b.a2a_send[j].begin() + (r + 1) * block);

  InprocNetwork net(kN, {.seed = 9, .delay = 0.3, .max_message_bytes = kChunk});
  std::vector<std::unique_ptr<Operation>> ops;
  for (int r = 0; r < kN; ++r)
    for (auto& op : StartAll(net.peer(r), b)) ops.push_back(std::move(op));
  ASSERT_TRUE(RunToCompletion(net, ops)) << net.DescribeOutstanding();

  for (int r = 0; r < kN; ++r) {
    SCOPED_TRACE("peer " + std::to_string(r));
    EXPECT_EQ(Diff(b.bcast1[r], want_bcast1), "");
    EXPECT_EQ(Diff(b.bcast2[r], want_bcast2), "");
    EXPECT_EQ(Diff(b.allreduce[r], want_allreduce), "");
    EXPECT_EQ(Diff(b.allgather[r], want_allgather), "");
    EXPECT_EQ(Diff(b.a2a_recv[r], want_a2a[r]), "");
  }
  EXPECT_EQ(Diff(b.reduce[3], want_reduce), "");
  EXPECT_EQ(Diff(b.gather[2], want_gather), "");
}

// Ten broadcasts from changing roots with one tag range: a peer starts the
// next one as soon as its part of the previous is done, so fast peers' next
// messages meet slow peers still in the previous operation.
TEST(Concurrent, SequentialOperationsReuseTags) {
  const int rounds = 10;
  std::vector<std::vector<Bytes>> data(rounds);
  for (int i = 0; i < rounds; ++i) data[i] = Inputs(10000 + 999 * i, 100 * i);
  InprocNetwork net(kN, {.seed = 5, .delay = 0.4});
  std::vector<int> round(kN, 0);
  std::vector<std::unique_ptr<Operation>> current(kN);
  std::vector<std::vector<int>> orders(kN);
  for (int root = 0; root < kN; ++root)
    for (int k = 0; k < kN; ++k) orders[root].push_back((root + k) % kN);
  auto begin = [&](int r) {
    int i = round[r];
    int root = i % kN;
    std::span<std::byte> mine = data[i][r];
    Transport& t = net.peer(r);
    switch (i % 3) {
      case 0:
        current[r] = StartBcastChain(t, 0, mine, orders[root], 1000);
        break;
      case 1:
        current[r] = StartBcastBinomial(t, 0, mine, root, 1000);
        break;
      default:
        current[r] = StartBcastScatterAllgather(t, 0, mine, root, 1000);
    }
  };
  for (int r = 0; r < kN; ++r) begin(r);
  int finished = 0, idle = 0;
  while (finished < kN && idle < 1000) {
    std::uint64_t events = net.events();
    for (int r = 0; r < kN; ++r) {
      if (round[r] == rounds || !current[r]->Progress()) continue;
      if (++round[r] == rounds)
        ++finished;
      else
        begin(r);
    }
    idle = net.events() == events ? idle + 1 : 0;
  }
  ASSERT_EQ(finished, kN) << net.DescribeOutstanding();
  for (int i = 0; i < rounds; ++i)
    for (int r = 0; r < kN; ++r)
      ASSERT_EQ(Diff(data[i][r], data[i][i % kN]), "")
          << "round " << i << " peer " << r;
}

}  // namespace
}  // namespace bdmpi::coll::test
