// Alltoall(v) among masters: peer r sends block j of `send` to peer j, which
// stores it as block r of its `recv`; blocks lie end to end in peer order
// with the given sizes. send_bytes[j] at r equals recv_bytes[r] at j (both
// sides know every size, as in MPI). All peers pass the same chunk size.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// Pairwise exchange: n - 1 steps, in step s sending to r + s while receiving
// from r - s, each pipelined in chunks straight between the two buffers, so
// no extra memory whatever the sizes (the buffers may be mapped spill
// files). The own block is copied locally.
std::unique_ptr<Operation> StartAlltoallvPairwise(
    Transport& t, int tag, std::span<const std::byte> send,
    std::span<const std::size_t> send_bytes, std::span<std::byte> recv,
    std::span<const std::size_t> recv_bytes, std::size_t chunk_bytes);

}  // namespace bdmpi::coll
