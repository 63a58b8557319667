#include <deque>

#include "collectives/allreduce.h"
#include "collectives/patterns.h"
#include "collectives/transfer.h"

namespace bdmpi::coll {
namespace {

// One reduce-scatter step: sends `send` to `to` while receiving the left
// neighbour's partial of `inout` in chunks into the scratch slots and
// folding each into `inout` as it arrives (theirs op mine).
Task ExchangeReduce(Transport& t, int tag, int to,
                    std::span<const std::byte> send, int from,
                    std::span<std::byte> inout, std::span<std::byte> scratch,
                    const Reduction& op, std::size_t chunk) {
  const std::size_t send_chunks = ChunkCount(send.size(), chunk);
  const std::size_t recv_chunks = ChunkCount(inout.size(), chunk);
  const std::size_t slot_bytes = scratch.size() / kPipelineDepth;
  std::deque<RequestId> sends, recvs;
  std::size_t sent = 0, posted = 0;
  for (std::size_t i = 0; i < recv_chunks || sent < send_chunks; ++i) {
    while (sends.size() < kPipelineDepth && sent < send_chunks) {
      auto c = ChunkOf(send, chunk, sent++);
      sends.push_back(t.Isend(to, tag, c.data(), c.size()));
    }
    // Chunk i uses slot i % depth, free again once chunk i - depth was
    // folded, which happened in an earlier iteration.
    while (posted < recv_chunks && posted < i + kPipelineDepth) {
      auto c = ChunkOf(inout, chunk, posted);
      auto slot =
          scratch.subspan((posted % kPipelineDepth) * slot_bytes, c.size());
      recvs.push_back(t.Irecv(from, tag, slot.data(), slot.size()));
      ++posted;
    }
    std::vector<RequestId> oldest;
    if (!sends.empty()) oldest.push_back(sends.front()), sends.pop_front();
    if (i < recv_chunks) oldest.push_back(recvs.front()), recvs.pop_front();
    co_await AwaitAll(oldest);
    if (i < recv_chunks) {
      auto c = ChunkOf(inout, chunk, i);
      op.fn(scratch.data() + (i % kPipelineDepth) * slot_bytes, c.data(),
            c.size());
    }
  }
  std::vector<RequestId> rest(sends.begin(), sends.end());
  co_await AwaitAll(rest);
}

// After step s of the reduce-scatter, peer r holds blocks r - s .. r reduced
// over s + 2 peers; after n - 1 steps block r + 1 is complete at r, which is
// where the ring allgather starts.
Task AllreduceRing(Transport& t, int tag, std::span<std::byte> data,
                   Reduction op, std::size_t chunk) {
  const int n = t.size();
  const int r = t.rank();
  if (n == 1) co_return;
  chunk = ElementChunk(chunk, op.element_bytes);
  const std::vector<std::size_t> offsets =
      EvenBlocks(data.size(), n, op.element_bytes);
  std::vector<std::byte> scratch(kPipelineDepth *
                                 std::min(chunk, offsets[1] - offsets[0]));
  for (int step = 0; step + 1 < n; ++step) {
    co_await ExchangeReduce(
        t, tag, Mod(r + 1, n), BlockOf(data, offsets, Mod(r - step, n)),
        Mod(r - 1, n), BlockOf(data, offsets, Mod(r - step - 1, n)), scratch,
        op, chunk);
  }
  co_await RingAllgather(t, tag + 1, data, offsets, 1, chunk);
}

}  // namespace

std::unique_ptr<Operation> StartAllreduceRing(Transport& t, int tag,
                                              std::span<std::byte> data,
                                              Reduction op,
                                              std::size_t chunk_bytes) {
  CheckCommon(t, tag, chunk_bytes);
  CheckReduction(op, data.size());
  return MakeOperation(t,
                       AllreduceRing(t, tag, data, std::move(op), chunk_bytes));
}

}  // namespace bdmpi::coll
