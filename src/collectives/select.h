// Which algorithm and chunk size an inter-node collective uses, by operation,
// message size and number of peers, and the environment variables that
// force a choice for benchmarks:
//
//   BDMPI_BCAST_ALGORITHM      binomial | chain | scatter_allgather
//   BDMPI_ALLREDUCE_ALGORITHM  recursive_doubling | ring
//   BDMPI_REDUCE_ALGORITHM     binomial | chain
//   BDMPI_ALLGATHER_ALGORITHM  bruck | ring
//   BDMPI_CHUNK_SIZE           bytes, with an optional K, M or G suffix
//
// (empty or "auto": decide by size). Every master must see the same values:
// peers that chose differently would not understand each other's messages.
// The thresholds are provisional; select.cpp says where each comes from.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

namespace bdmpi::coll {

enum class Algorithm {
  kBinomial,
  kChain,
  kScatterAllgather,
  kRecursiveDoubling,
  kRing,
  kBruck,
};

std::string_view AlgorithmName(Algorithm algorithm);

struct Choice {
  Algorithm algorithm;
  std::size_t chunk_bytes;
};

// What the environment forces; default-constructed: nothing.
struct Tuning {
  std::optional<Algorithm> bcast, allreduce, reduce, allgather;
  std::size_t chunk_bytes = 0;  // 0: from the message size (ModelChunkBytes)

  // Throws Error(kErrArg) naming the variable and the accepted values.
  static Tuning FromEnvironment();
  static Tuning FromEnvironment(
      const std::function<const char*(const char*)>& getenv);
};

// All arguments must be the same on every peer (they are for these
// operations: every master knows the message size).
Choice SelectBcast(std::size_t bytes, int npeers, const Tuning& tuning = {});
Choice SelectAllreduce(std::size_t bytes, int npeers, bool commutative,
                       const Tuning& tuning = {});
Choice SelectReduce(std::size_t bytes, int npeers, bool commutative,
                    const Tuning& tuning = {});
Choice SelectAllgather(std::size_t total_bytes, int npeers,
                       const Tuning& tuning = {});

// Chunk size for gather(v), scatter(v) and alltoall(v), whose peers do not
// all know the sizes: fixed, unless forced.
std::size_t FixedChunkBytes(const Tuning& tuning = {});

// Twister's optimal number of chunks for a pipeline over p peers,
// k = sqrt((p - 1) bytes beta / alpha), as a chunk size bytes / k, clamped
// and rounded to whole 64 KiB pages.
std::size_t ModelChunkBytes(std::size_t bytes, int npeers);

}  // namespace bdmpi::coll
