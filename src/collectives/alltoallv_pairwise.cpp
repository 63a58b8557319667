#include <cstring>

#include "collectives/alltoall.h"
#include "collectives/transfer.h"
#include "common/error.h"

namespace bdmpi::coll {
namespace {

Task AlltoallvPairwise(Transport& t, int tag, std::span<const std::byte> send,
                       std::vector<std::size_t> send_offsets,
                       std::span<std::byte> recv,
                       std::vector<std::size_t> recv_offsets,
                       std::size_t chunk) {
  const int n = t.size();
  const int r = t.rank();
  auto own = BlockOf(send, send_offsets, r);
  if (!own.empty())
    std::memcpy(recv.data() + recv_offsets[r], own.data(), own.size());
  for (int step = 1; step < n; ++step) {
    int to = Mod(r + step, n);
    int from = Mod(r - step, n);
    co_await Exchange(t, tag, to, BlockOf(send, send_offsets, to), from,
                      BlockOf(recv, recv_offsets, from), chunk);
  }
}

}  // namespace

std::unique_ptr<Operation> StartAlltoallvPairwise(
    Transport& t, int tag, std::span<const std::byte> send,
    std::span<const std::size_t> send_bytes, std::span<std::byte> recv,
    std::span<const std::size_t> recv_bytes, std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  std::vector<std::size_t> send_offsets =
      BlockOffsets(CheckedSizes(t, send_bytes, send.size()));
  std::vector<std::size_t> recv_offsets =
      BlockOffsets(CheckedSizes(t, recv_bytes, recv.size()));
  BDMPI_ENFORCE(send_bytes[t.rank()] == recv_bytes[t.rank()],
                "own block sent and received with different sizes");
  return MakeOperation(
      t, AlltoallvPairwise(t, tag, send, std::move(send_offsets), recv,
                           std::move(recv_offsets), chunk_bytes));
}

}  // namespace bdmpi::coll
