#include "collectives/collectives.h"

#include <string>

#include "collectives/allgather.h"
#include "collectives/allreduce.h"
#include "collectives/alltoall.h"
#include "collectives/barrier.h"
#include "collectives/bcast.h"
#include "collectives/chain_order.h"
#include "collectives/gather.h"
#include "collectives/reduce.h"
#include "common/log.h"

namespace bdmpi::coll {
namespace {

thread_local std::string_view last_algorithm = "";

void LogChoice(const char* what, std::size_t bytes, int npeers,
               const Choice& c) {
  last_algorithm = AlgorithmName(c.algorithm);
  BDMPI_DEBUG("coll", "%s of %zu bytes among %d masters: %s, %zu-byte chunks",
              what, bytes, npeers,
              std::string(AlgorithmName(c.algorithm)).c_str(), c.chunk_bytes);
}

}  // namespace

std::unique_ptr<Operation> StartBcast(Transport& t, int tag,
                                      std::span<std::byte> data, int root,
                                      std::span<const int> racks,
                                      const Tuning& tuning) {
  Choice c = SelectBcast(data.size(), t.size(), tuning);
  LogChoice("bcast", data.size(), t.size(), c);
  switch (c.algorithm) {
    case Algorithm::kChain:
      return StartBcastChain(t, tag, data, ChainOrder(racks, t.size(), root),
                             c.chunk_bytes);
    case Algorithm::kScatterAllgather:
      return StartBcastScatterAllgather(t, tag, data, root, c.chunk_bytes);
    default:
      return StartBcastBinomial(t, tag, data, root, c.chunk_bytes);
  }
}

std::unique_ptr<Operation> StartAllreduce(Transport& t, int tag,
                                          std::span<std::byte> data,
                                          Reduction op, const Tuning& tuning) {
  Choice c = SelectAllreduce(data.size(), t.size(), op.commutative, tuning);
  LogChoice("allreduce", data.size(), t.size(), c);
  if (c.algorithm == Algorithm::kRing)
    return StartAllreduceRing(t, tag, data, std::move(op), c.chunk_bytes);
  return StartAllreduceRecursiveDoubling(t, tag, data, std::move(op),
                                         c.chunk_bytes);
}

std::unique_ptr<Operation> StartReduce(Transport& t, int tag,
                                       std::span<std::byte> data, Reduction op,
                                       int root, std::span<const int> racks,
                                       const Tuning& tuning) {
  Choice c = SelectReduce(data.size(), t.size(), op.commutative, tuning);
  LogChoice("reduce", data.size(), t.size(), c);
  if (c.algorithm == Algorithm::kChain)
    return StartReduceChain(t, tag, data, std::move(op),
                            ChainOrder(racks, t.size(), root), c.chunk_bytes);
  return StartReduceBinomial(t, tag, data, std::move(op), root, c.chunk_bytes);
}

std::unique_ptr<Operation> StartAllgatherv(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, const Tuning& tuning) {
  Choice c = SelectAllgather(data.size(), t.size(), tuning);
  LogChoice("allgatherv", data.size(), t.size(), c);
  if (c.algorithm == Algorithm::kRing)
    return StartAllgathervRing(t, tag, data, block_bytes, c.chunk_bytes);
  return StartAllgathervBruck(t, tag, data, block_bytes, c.chunk_bytes);
}

std::unique_ptr<Operation> StartGatherv(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, int root, const Tuning& tuning) {
  last_algorithm = "linear";
  return StartGathervLinear(t, tag, data, block_bytes, root,
                            FixedChunkBytes(tuning));
}

std::unique_ptr<Operation> StartScatterv(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, int root, const Tuning& tuning) {
  last_algorithm = "linear";
  return StartScattervLinear(t, tag, data, block_bytes, root,
                             FixedChunkBytes(tuning));
}

std::unique_ptr<Operation> StartAlltoallv(
    Transport& t, int tag, std::span<const std::byte> send,
    std::span<const std::size_t> send_bytes, std::span<std::byte> recv,
    std::span<const std::size_t> recv_bytes, const Tuning& tuning) {
  last_algorithm = "pairwise";
  return StartAlltoallvPairwise(t, tag, send, send_bytes, recv, recv_bytes,
                                FixedChunkBytes(tuning));
}

std::unique_ptr<Operation> StartBarrier(Transport& t, int tag) {
  last_algorithm = "dissemination";
  return StartBarrierDissemination(t, tag);
}

std::string_view LastAlgorithm() { return last_algorithm; }

}  // namespace bdmpi::coll
