#include "collectives/transfer.h"

#include <deque>
#include <string>

#include "common/error.h"

namespace bdmpi::coll {

std::vector<std::size_t> EvenBlocks(std::size_t bytes, int n,
                                    std::size_t element) {
  std::size_t count = bytes / element;
  std::size_t base = count / n;
  std::size_t extra = count % n;
  std::vector<std::size_t> offsets(n + 1, 0);
  for (int b = 0; b < n; ++b)
    offsets[b + 1] =
        offsets[b] + (base + (static_cast<std::size_t>(b) < extra)) * element;
  return offsets;
}

std::vector<std::size_t> BlockOffsets(std::span<const std::size_t> sizes) {
  std::vector<std::size_t> offsets(sizes.size() + 1, 0);
  for (std::size_t b = 0; b < sizes.size(); ++b)
    offsets[b + 1] = offsets[b] + sizes[b];
  return offsets;
}

Task Exchange(Transport& t, int tag, int to, std::span<const std::byte> send,
              int from, std::span<std::byte> recv, std::size_t chunk) {
  const std::size_t send_chunks = ChunkCount(send.size(), chunk);
  const std::size_t recv_chunks = ChunkCount(recv.size(), chunk);
  std::size_t sent = 0, received = 0;
  std::deque<RequestId> sends, recvs;
  while (sent < send_chunks || received < recv_chunks || !sends.empty() ||
         !recvs.empty()) {
    while (sends.size() < kPipelineDepth && sent < send_chunks) {
      auto c = ChunkOf(send, chunk, sent++);
      sends.push_back(t.Isend(to, tag, c.data(), c.size()));
    }
    while (recvs.size() < kPipelineDepth && received < recv_chunks) {
      auto c = ChunkOf(recv, chunk, received++);
      recvs.push_back(t.Irecv(from, tag, c.data(), c.size()));
    }
    // Wait for the oldest message of each direction; the others stay in
    // flight meanwhile.
    std::vector<RequestId> oldest;
    if (!sends.empty()) oldest.push_back(sends.front()), sends.pop_front();
    if (!recvs.empty()) oldest.push_back(recvs.front()), recvs.pop_front();
    co_await AwaitAll(oldest);
  }
}

void CheckCommon(const Transport& t, int tag, std::size_t chunk) {
  BDMPI_ENFORCE(t.size() > 0 && t.rank() >= 0 && t.rank() < t.size(),
                "transport rank " + std::to_string(t.rank()) + " of " +
                    std::to_string(t.size()));
  BDMPI_ENFORCE(tag >= 0 && tag + kTagsPerOperation <= 32768,
                "tag " + std::to_string(tag));
  BDMPI_ENFORCE(chunk > 0, "chunk size 0");
}

void CheckRoot(const Transport& t, int root) {
  BDMPI_ENFORCE(
      root >= 0 && root < t.size(),
      "root " + std::to_string(root) + " of " + std::to_string(t.size()));
}

std::vector<int> CheckedOrder(const Transport& t, std::span<const int> order) {
  std::vector<bool> seen(t.size(), false);
  BDMPI_ENFORCE(order.size() == seen.size(),
                "order of " + std::to_string(order.size()) + " peers");
  for (int peer : order) {
    BDMPI_ENFORCE(
        peer >= 0 && peer < t.size() && !seen[peer],
        "order is not a permutation (peer " + std::to_string(peer) + ")");
    seen[peer] = true;
  }
  return {order.begin(), order.end()};
}

void CheckReduction(const Reduction& op, std::size_t bytes) {
  BDMPI_ENFORCE(op.fn != nullptr, "no reduction function");
  BDMPI_ENFORCE(op.element_bytes > 0 && bytes % op.element_bytes == 0,
                std::to_string(bytes) + " bytes of " +
                    std::to_string(op.element_bytes) + "-byte elements");
}

std::vector<std::size_t> CheckedSizes(const Transport& t,
                                      std::span<const std::size_t> sizes,
                                      std::size_t total) {
  BDMPI_ENFORCE(sizes.size() == static_cast<std::size_t>(t.size()),
                std::to_string(sizes.size()) + " block sizes for " +
                    std::to_string(t.size()) + " peers");
  std::vector<std::size_t> copy(sizes.begin(), sizes.end());
  std::size_t sum = BlockOffsets(copy).back();
  BDMPI_ENFORCE(sum == total, "blocks of " + std::to_string(sum) +
                                  " bytes in " + std::to_string(total));
  return copy;
}

void CheckOwnBlock(const Transport& t, std::span<const std::size_t> sizes,
                   std::size_t bytes) {
  BDMPI_ENFORCE(sizes.size() == static_cast<std::size_t>(t.size()) &&
                    sizes[t.rank()] == bytes,
                "own block of " + std::to_string(bytes) + " bytes");
}

}  // namespace bdmpi::coll
