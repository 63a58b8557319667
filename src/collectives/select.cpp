#include "collectives/select.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/log.h"

namespace bdmpi::coll {
namespace {

// Provisional numbers, to be replaced by measurements on the emulated
// cluster (issue 5):
//
// Broadcast: Open MPI 1.6's tuned decision (coll_tuned_decision_fixed.c)
// uses a binomial tree below 2048 bytes, a segmented binary tree up to
// 370728 bytes and a pipeline (our chain) above. Our binomial tree is
// pipelined in chunks too, so it takes the middle range as well.
constexpr std::size_t kBcastChainFrom = 370728;
// Allreduce: Open MPI's tuned decision uses recursive doubling below 10000
// bytes and, for commutative operations, the ring above (segmented in
// 1 MiB pieces); Harp (Table I) likewise uses bidirectional exchange for
// small and regroup-allgather for large tables.
constexpr std::size_t kAllreduceRingFrom = 10000;
// Reduce: Open MPI uses a binomial tree below 2048 bytes, or below 20480
// bytes with fewer than 8 processes, and a pipeline (our chain) above.
constexpr std::size_t kReduceChainFrom = 2048;
constexpr std::size_t kReduceChainFromFewPeers = 20480;
constexpr int kFewPeers = 8;
// Allgather: Open MPI uses recursive doubling (powers of two) or Bruck below
// 50000 bytes in all and the ring above.
constexpr std::size_t kAllgatherRingFrom = 50000;

// Chunk model (Twister section 4.1, eq. 3). alpha is the cost of one message
// beyond its bytes: MPI over TCP on Gigabit Ethernet (~50 us) plus the
// network thread's turn; beta is 1 Gbit/s, the node links of the emulated
// cluster. Assumed, not measured.
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
  char* end = nullptr;
  errno = 0;
  unsigned long long number = std::strtoull(value, &end, 10);
  unsigned shift = 0;
  switch (*end) {
    case 'k':
    case 'K':
      shift = 10;
      ++end;
      break;
    case 'm':
    case 'M':
      shift = 20;
      ++end;
      break;
    case 'g':
    case 'G':
      shift = 30;
      ++end;
      break;
    default:
      break;
  }
  if (end == value || *end != '\0' || errno != 0 || number == 0 ||
      number > (~0ull >> (shift + 1)) || value[0] == '-')
    throw Error(kErrArg, std::string(variable) + "=" + value +
                             ": expected a positive number of bytes, "
                             "optionally with K, M or G");
  return static_cast<std::size_t>(number << shift);
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
