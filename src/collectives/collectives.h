// What the master calls for the inter-node step of each collective: picks
// the algorithm and chunk size (select.h) and starts it. The arguments are
// those of the algorithms' Start functions (bcast.h, allreduce.h, ...);
// `racks` is each peer's rack (empty: one rack), which orders the chains.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "collectives/operation.h"
#include "collectives/select.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

std::unique_ptr<Operation> StartBcast(Transport& t, int tag,
                                      std::span<std::byte> data, int root,
                                      std::span<const int> racks,
                                      const Tuning& tuning);
std::unique_ptr<Operation> StartAllreduce(Transport& t, int tag,
                                          std::span<std::byte> data,
                                          Reduction op, const Tuning& tuning);
std::unique_ptr<Operation> StartReduce(Transport& t, int tag,
                                       std::span<std::byte> data, Reduction op,
                                       int root, std::span<const int> racks,
                                       const Tuning& tuning);
std::unique_ptr<Operation> StartAllgatherv(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, const Tuning& tuning);
std::unique_ptr<Operation> StartGatherv(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, int root, const Tuning& tuning);
std::unique_ptr<Operation> StartScatterv(
    Transport& t, int tag, std::span<std::byte> data,
    std::span<const std::size_t> block_bytes, int root, const Tuning& tuning);
std::unique_ptr<Operation> StartAlltoallv(
    Transport& t, int tag, std::span<const std::byte> send,
    std::span<const std::size_t> send_bytes, std::span<std::byte> recv,
    std::span<const std::size_t> recv_bytes, const Tuning& tuning);
std::unique_ptr<Operation> StartBarrier(Transport& t, int tag);

// The algorithm the last Start call on this thread chose ("binomial",
// "ring", ...; "linear", "pairwise", "dissemination" for those without a
// choice), for the run report.
std::string_view LastAlgorithm();

}  // namespace bdmpi::coll
