// The algorithms work in place: data may be a mapped spill file of many
// gigabytes, so the memory an operation allocates must stay within a few
// chunks whatever the message size. Counted here by replacing the global
// operator new for this test program.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "coll_test_util.h"
#include "collectives/allgather.h"
#include "collectives/allreduce.h"
#include "collectives/alltoall.h"
#include "collectives/bcast.h"
#include "collectives/gather.h"
#include "collectives/reduce.h"
#include "collectives/transfer.h"

namespace {

std::atomic<std::size_t> current_bytes{0}, peak_bytes{0};
constexpr std::size_t kHeader = 16;  // keeps the alignment of malloc

void* Allocate(std::size_t n) {
  void* block = std::malloc(n + kHeader);
  if (block == nullptr) throw std::bad_alloc();
  *static_cast<std::size_t*>(block) = n;
  std::size_t now = current_bytes += n;
  std::size_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
  return static_cast<char*>(block) + kHeader;
}

void Free(void* p) noexcept {
  if (p == nullptr) return;
  char* block = static_cast<char*>(p) - kHeader;
  current_bytes -= *reinterpret_cast<std::size_t*>(block);
  std::free(block);
}

}  // namespace

void* operator new(std::size_t n) { return Allocate(n); }
void* operator new[](std::size_t n) { return Allocate(n); }
void operator delete(void* p) noexcept { Free(p); }
void operator delete[](void* p) noexcept { Free(p); }
void operator delete(void* p, std::size_t) noexcept { Free(p); }
void operator delete[](void* p, std::size_t) noexcept { Free(p); }

namespace bdmpi::coll::test {
namespace {

constexpr int kN = 4;
constexpr std::size_t kBytes = 4 << 20;
constexpr std::size_t kChunk = 16 << 10;
// The network's request table, deques of request ids, coroutine frames.
constexpr std::size_t kBookkeeping = 64 << 10;

struct Case {
  const char* name;
  // Chunk-sized scratch buffers the algorithm claims, summed over peers.
  std::size_t scratch_chunks;
  std::function<std::unique_ptr<Operation>(Transport&, std::vector<Bytes>&,
                                           std::vector<Bytes>&)>
      start;
};

// gtest prints parameters; the name says it all.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const std::vector<std::size_t> kBlocks(kN, kBytes / kN);
const std::vector<int> kOrder = {1, 3, 0, 2};

std::vector<Case> Cases() {
  using V = std::vector<Bytes>;
  return {
      {"bcast_binomial", 0,
       [](Transport& t, V& d, V&) {
         return StartBcastBinomial(t, 0, d[t.rank()], 0, kChunk);
       }},
      {"bcast_chain", 0,
       [](Transport& t, V& d, V&) {
         return StartBcastChain(t, 0, d[t.rank()], kOrder, kChunk);
       }},
      {"bcast_scatter_allgather", 0,
       [](Transport& t, V& d, V&) {
         return StartBcastScatterAllgather(t, 0, d[t.rank()], 1, kChunk);
       }},
      {"allreduce_recursive_doubling", kN,
       [](Transport& t, V& d, V&) {
         return StartAllreduceRecursiveDoubling(t, 0, d[t.rank()], SumU8(),
                                                kChunk);
       }},
      {"allreduce_ring", kN * kPipelineDepth,
       [](Transport& t, V& d, V&) {
         return StartAllreduceRing(t, 0, d[t.rank()], SumU8(), kChunk);
       }},
      // Root 0 has children 1 and 2, peer 2 has child 3.
      {"reduce_binomial", 3 * kPipelineDepth,
       [](Transport& t, V& d, V&) {
         return StartReduceBinomial(t, 0, d[t.rank()], SumU8(), 0, kChunk);
       }},
      {"reduce_chain", (kN - 1) * kPipelineDepth,
       [](Transport& t, V& d, V&) {
         return StartReduceChain(t, 0, d[t.rank()], SumU8(), kOrder, kChunk);
       }},
      {"allgatherv_ring", 0,
       [](Transport& t, V& d, V&) {
         return StartAllgathervRing(t, 0, d[t.rank()], kBlocks, kChunk);
       }},
      {"allgatherv_bruck", 0,
       [](Transport& t, V& d, V&) {
         return StartAllgathervBruck(t, 0, d[t.rank()], kBlocks, kChunk);
       }},
      {"gatherv_linear", 0,
       [](Transport& t, V& d, V&) {
         std::span<std::byte> mine = d[t.rank()];
         if (t.rank() != 2) mine = mine.first(kBytes / kN);
         return StartGathervLinear(t, 0, mine, kBlocks, 2, kChunk);
       }},
      {"scatterv_linear", 0,
       [](Transport& t, V& d, V&) {
         std::span<std::byte> mine = d[t.rank()];
         if (t.rank() != 2) mine = mine.first(kBytes / kN);
         return StartScattervLinear(t, 0, mine, kBlocks, 2, kChunk);
       }},
      {"alltoallv_pairwise", 0,
       [](Transport& t, V& d, V& out) {
         return StartAlltoallvPairwise(t, 0, d[t.rank()], kBlocks,
                                       out[t.rank()], kBlocks, kChunk);
       }},
  };
}

class Memory : public ::testing::TestWithParam<Case> {};

TEST_P(Memory, ExtraMemoryStaysWithinTheClaimedChunks) {
  const Case& c = GetParam();
  std::vector<Bytes> data(kN), out(kN);
  for (int r = 0; r < kN; ++r) {
    data[r] = Pattern(kBytes, r);
    out[r] = Bytes(kBytes);
  }
  InprocNetwork net(kN, {.seed = 1, .delay = 0.25});
  std::vector<std::unique_ptr<Operation>> ops;
  ops.reserve(kN);
  const std::size_t before = current_bytes.load();
  peak_bytes = before;
  for (int r = 0; r < kN; ++r) ops.push_back(c.start(net.peer(r), data, out));
  ASSERT_TRUE(RunToCompletion(net, ops));
  const std::size_t extra = peak_bytes.load() - before;
  const std::size_t allowed = c.scratch_chunks * kChunk + kBookkeeping;
  EXPECT_LE(extra, allowed) << extra << " bytes at the peak";
  // Far below one copy of the message on one peer.
  EXPECT_LT(extra, kBytes / 4);
  RecordProperty("extra_bytes", std::to_string(extra));
}

INSTANTIATE_TEST_SUITE_P(All, Memory, ::testing::ValuesIn(Cases()),
                         [](const auto& param_info) {
                           return std::string(param_info.param.name);
                         });

}  // namespace
}  // namespace bdmpi::coll::test
