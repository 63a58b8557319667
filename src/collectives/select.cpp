#include "collectives/select.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "common/byte_size.h"
#include "common/error.h"
#include "common/log.h"

namespace bdmpi::coll {
namespace {

// Where the numbers come from. Broadcast and allreduce: measured with
// bench/run_collectives_bench.sh on the emulated cluster (4 hosts at
// 500 Mbit/s and 8 hosts at 250 Mbit/s, 2 racks; bench_coll runs each size
// back to back and takes the median; 2026-11-22, results in
// bench/results/collectives-2026-11-22*). The others: Open MPI 1.6's tuned decision
// (coll_tuned_decision_fixed.c), not measured here.
//
// Broadcast: the forced chain beat the forced binomial tree from 4 KiB on,
// on 4 and 8 hosts alike (8 hosts: 4 KiB 0.27 vs 0.41 ms, 64 KiB 2.2 vs
// 6.6 ms), and lost below 1 KiB (8 B: 0.26 vs 0.22 ms). Back to back, the
// chain's root sends each byte once where the tree's root sends it log2(p)
// times. scatter_allgather never won (64 MiB on 8 hosts: 4.35 s against the
// chain's 2.75 s) and is only taken when forced. (Open MPI switches to its
// pipeline at 370728 bytes.)
constexpr std::size_t kBcastChainFrom = 4096;
// Allreduce: recursive doubling won up to 16 KiB and the ring from 64 KiB
// on, on 4 and 8 hosts (8 hosts: 16 KiB 1.7 vs 2.0 ms, 64 KiB 6.6 vs
// 3.9 ms); the switch sits between the two. (Open MPI: 10000 bytes; Harp's
// Table I likewise uses bidirectional exchange for small and
// regroup-allgather for large tables.)
constexpr std::size_t kAllreduceRingFrom = 32768;
// Reduce: Open MPI uses a binomial tree below 2048 bytes, or below 20480
// bytes with fewer than 8 processes, and a pipeline (our chain) above.
constexpr std::size_t kReduceChainFrom = 2048;
constexpr std::size_t kReduceChainFromFewPeers = 20480;
constexpr int kFewPeers = 8;
// Allgather: Open MPI uses recursive doubling (powers of two) or Bruck below
// 50000 bytes in all and the ring above.
constexpr std::size_t kAllgatherRingFrom = 50000;

// Chunk model (Twister section 4.1, eq. 3). alpha is the cost of one message
// beyond its bytes: MPI over TCP (~50 us) plus the network thread's turn
// (the 8 B binomial broadcast above took ~75 us per hop); beta is 1 Gbit/s.
// On slower links the model's chunks are larger than its optimum, which
// costs little: at 250 Mbit/s, 64 MiB over 8 hosts in its 320 KiB chunks
// fills the pipeline in ~60 ms of ~2.1 s.
constexpr double kAlphaSeconds = 100e-6;
constexpr double kBetaSecondsPerByte = 8e-9;
// Below 64 KiB per message the per-message cost dominates whatever the
// model says; above 4 MiB a pipeline of few peers takes long to fill, and
// the scratch of the reductions (kPipelineDepth chunks) grows.
constexpr std::size_t kChunkUnit = 64 << 10;
constexpr std::size_t kMinChunk = 64 << 10;
constexpr std::size_t kMaxChunk = 4 << 20;
// gather/scatter/alltoall: Open MPI's ring allreduce segment size.
constexpr std::size_t kFixedChunk = 1 << 20;

struct Named {
  std::string_view name;
  Algorithm algorithm;
};

std::optional<Algorithm> Parse(const char* variable, const char* value,
                               std::initializer_list<Named> accepted) {
  if (value == nullptr || *value == '\0' || std::string_view(value) == "auto")
    return std::nullopt;
  std::string names;
  for (const Named& n : accepted) {
    if (n.name == value) return n.algorithm;
    names += (names.empty() ? "" : "|") + std::string(n.name);
  }
  throw Error(kErrArg,
              std::string(variable) + "=" + value + ": expected auto|" + names);
}

std::size_t ParseBytes(const char* variable, const char* value) {
  if (value == nullptr || *value == '\0') return 0;
  std::string what = std::string(variable) + "=" + value;
  std::size_t bytes = ParseByteSize(value, what);
  if (bytes == 0) throw Error(kErrArg, what + ": expected a positive number of bytes");
  return bytes;
}

std::size_t Chunk(const Tuning& tuning, std::size_t bytes, int npeers) {
  return tuning.chunk_bytes ? tuning.chunk_bytes
                            : ModelChunkBytes(bytes, npeers);
}

// A forced algorithm that would give a wrong result for a non-commutative
// operation is overridden: correctness before the benchmark's wish.
Algorithm Checked(std::optional<Algorithm> forced, Algorithm unsafe,
                  bool commutative, Algorithm fallback, const char* what) {
  if (commutative || *forced != unsafe) return *forced;
  BDMPI_WARN("coll", "%s: %s ignored for a non-commutative operation", what,
             std::string(AlgorithmName(unsafe)).c_str());
  return fallback;
}

}  // namespace

std::string_view AlgorithmName(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kBinomial:
      return "binomial";
    case Algorithm::kChain:
      return "chain";
    case Algorithm::kScatterAllgather:
      return "scatter_allgather";
    case Algorithm::kRecursiveDoubling:
      return "recursive_doubling";
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kBruck:
      return "bruck";
  }
  return "?";
}

Tuning Tuning::FromEnvironment() {
  return FromEnvironment([](const char* name) { return std::getenv(name); });
}

Tuning Tuning::FromEnvironment(
    const std::function<const char*(const char*)>& getenv) {
  auto get = [&](const char* name) {
    return std::pair<const char*, const char*>(name, getenv(name));
  };
  Tuning t;
  auto [bv, b] = get("BDMPI_BCAST_ALGORITHM");
  t.bcast = Parse(bv, b,
                  {{"binomial", Algorithm::kBinomial},
                   {"chain", Algorithm::kChain},
                   {"scatter_allgather", Algorithm::kScatterAllgather}});
  auto [av, a] = get("BDMPI_ALLREDUCE_ALGORITHM");
  t.allreduce = Parse(av, a,
                      {{"recursive_doubling", Algorithm::kRecursiveDoubling},
                       {"ring", Algorithm::kRing}});
  auto [rv, r] = get("BDMPI_REDUCE_ALGORITHM");
  t.reduce =
      Parse(rv, r,
            {{"binomial", Algorithm::kBinomial}, {"chain", Algorithm::kChain}});
  auto [gv, g] = get("BDMPI_ALLGATHER_ALGORITHM");
  t.allgather =
      Parse(gv, g, {{"bruck", Algorithm::kBruck}, {"ring", Algorithm::kRing}});
  auto [cv, c] = get("BDMPI_CHUNK_SIZE");
  t.chunk_bytes = ParseBytes(cv, c);
  return t;
}

std::size_t ModelChunkBytes(std::size_t bytes, int npeers) {
  if (npeers < 2) return kMaxChunk;
  double chunk = std::sqrt(static_cast<double>(bytes) * kAlphaSeconds /
                           ((npeers - 1) * kBetaSecondsPerByte));
  if (!(chunk < static_cast<double>(kMaxChunk))) return kMaxChunk;
  std::size_t rounded =
      static_cast<std::size_t>(chunk) / kChunkUnit * kChunkUnit;
  return std::max(kMinChunk, rounded);
}

std::size_t FixedChunkBytes(const Tuning& tuning) {
  return tuning.chunk_bytes ? tuning.chunk_bytes : kFixedChunk;
}

Choice SelectBcast(std::size_t bytes, int npeers, const Tuning& tuning) {
  Algorithm a = tuning.bcast                             ? *tuning.bcast
                : bytes < kBcastChainFrom || npeers <= 2 ? Algorithm::kBinomial
                                                         : Algorithm::kChain;
  return {a, Chunk(tuning, bytes, npeers)};
}

Choice SelectAllreduce(std::size_t bytes, int npeers, bool commutative,
                       const Tuning& tuning) {
  Algorithm a = commutative && bytes >= kAllreduceRingFrom
                    ? Algorithm::kRing
                    : Algorithm::kRecursiveDoubling;
  if (tuning.allreduce)
    a = Checked(tuning.allreduce, Algorithm::kRing, commutative,
                Algorithm::kRecursiveDoubling, "BDMPI_ALLREDUCE_ALGORITHM");
  return {a, Chunk(tuning, bytes, npeers)};
}

Choice SelectReduce(std::size_t bytes, int npeers, bool commutative,
                    const Tuning& tuning) {
  std::size_t from =
      npeers < kFewPeers ? kReduceChainFromFewPeers : kReduceChainFrom;
  Algorithm a =
      commutative && bytes >= from ? Algorithm::kChain : Algorithm::kBinomial;
  if (tuning.reduce)
    a = Checked(tuning.reduce, Algorithm::kChain, commutative,
                Algorithm::kBinomial, "BDMPI_REDUCE_ALGORITHM");
  return {a, Chunk(tuning, bytes, npeers)};
}

Choice SelectAllgather(std::size_t total_bytes, int npeers,
                       const Tuning& tuning) {
  Algorithm a = tuning.allgather                   ? *tuning.allgather
                : total_bytes < kAllgatherRingFrom ? Algorithm::kBruck
                                                   : Algorithm::kRing;
  return {a, Chunk(tuning, total_bytes, npeers)};
}

}  // namespace bdmpi::coll
