#include "collectives/patterns.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include "collectives/transfer.h"

namespace bdmpi::coll {

Task TreeBcast(Transport& t, int tag, std::span<std::byte> data, int parent,
               std::vector<int> children, std::size_t chunk) {
  const std::size_t chunks = ChunkCount(data.size(), chunk);
  const std::size_t send_window =
      kPipelineDepth * std::max<std::size_t>(1, children.size());
  std::deque<RequestId> recvs, sends;
  std::size_t posted = 0;
  for (std::size_t i = 0; i < chunks; ++i) {
    if (parent >= 0) {
      while (posted < chunks && posted < i + kPipelineDepth) {
        auto c = ChunkOf(data, chunk, posted++);
        recvs.push_back(t.Irecv(parent, tag, c.data(), c.size()));
      }
      RequestId r = recvs.front();
      recvs.pop_front();
      co_await Await(r);
    }
    auto c = ChunkOf(data, chunk, i);
    for (int child : children) {
      if (sends.size() >= send_window) {
        RequestId s = sends.front();
        sends.pop_front();
        co_await Await(s);
      }
      sends.push_back(t.Isend(child, tag, c.data(), c.size()));
    }
  }
  std::vector<RequestId> rest(sends.begin(), sends.end());
  co_await AwaitAll(rest);
}

Task TreeReduce(Transport& t, int tag, std::span<std::byte> data, Reduction op,
                int parent, std::vector<int> children, std::size_t chunk) {
  chunk = ElementChunk(chunk, op.element_bytes);
  if (children.empty()) {
    if (parent >= 0) co_await SendChunks(t, tag, parent, data, chunk);
    co_return;
  }
  const std::size_t chunks = ChunkCount(data.size(), chunk);
  const std::size_t fan_in = children.size();
  const std::size_t slot_bytes = std::min(chunk, data.size());
  // Slot (i % depth, c) receives chunk i from child c; the last child's slot
  // ends up holding the reduced chunk, which is sent from there.
  std::vector<std::byte> scratch(kPipelineDepth * fan_in * slot_bytes);
  auto slot = [&](std::size_t i, std::size_t c) {
    return std::span(scratch).subspan(
        ((i % kPipelineDepth) * fan_in + c) * slot_bytes,
        ChunkOf(data, chunk, i).size());
  };
  std::deque<RequestId> recvs, sends;
  std::size_t posted = 0;
  for (std::size_t i = 0; i < chunks; ++i) {
    while (posted < chunks && posted < i + kPipelineDepth) {
      // The slots are free once the send of chunk posted - depth is over.
      if (posted >= kPipelineDepth && parent >= 0) {
        RequestId s = sends.front();
        sends.pop_front();
        co_await Await(s);
      }
      for (std::size_t c = 0; c < fan_in; ++c) {
        auto s = slot(posted, c);
        recvs.push_back(t.Irecv(children[c], tag, s.data(), s.size()));
      }
      ++posted;
    }
    auto mine = ChunkOf(data, chunk, i);
    const std::byte* acc = mine.data();
    for (std::size_t c = 0; c < fan_in; ++c) {
      RequestId r = recvs.front();
      recvs.pop_front();
      co_await Await(r);
      auto s = slot(i, c);
      op.fn(acc, s.data(), s.size());
      acc = s.data();
    }
    if (parent >= 0)
      sends.push_back(t.Isend(parent, tag, acc, mine.size()));
    else
      std::memcpy(mine.data(), acc, mine.size());
  }
  std::vector<RequestId> rest(sends.begin(), sends.end());
  co_await AwaitAll(rest);
}

Task RingAllgather(Transport& t, int tag, std::span<std::byte> data,
                   std::vector<std::size_t> offsets, int block_shift,
                   std::size_t chunk) {
  const int n = t.size();
  const int r = t.rank();
  for (int step = 0; step + 1 < n; ++step) {
    int send_block = Mod(r + block_shift - step, n);
    int recv_block = Mod(r + block_shift - step - 1, n);
    co_await Exchange(t, tag, Mod(r + 1, n), BlockOf(data, offsets, send_block),
                      Mod(r - 1, n), BlockOf(data, offsets, recv_block), chunk);
  }
}

std::vector<int> BinomialChildren(int vrank, int n) {
  std::vector<int> children;
  for (int mask = 1; mask < n && !(vrank & mask); mask <<= 1)
    if (vrank + mask < n) children.push_back(vrank + mask);
  return children;
}

ChainLinks ChainLinksOf(const std::vector<int>& order, int rank) {
  auto it = std::find(order.begin(), order.end(), rank);
  ChainLinks links;
  if (it != order.begin()) links.before = *(it - 1);
  if (it + 1 != order.end()) links.after.push_back(*(it + 1));
  return links;
}

int BinomialParent(int vrank) { return vrank == 0 ? -1 : vrank & (vrank - 1); }

Task LinearAtRoot(Transport& t, int tag, std::span<std::byte> data,
                  std::vector<std::size_t> offsets, bool to_root,
                  std::size_t chunk) {
  const int n = t.size();
  const std::size_t window = std::max<std::size_t>(kPipelineDepth, n);
  std::deque<RequestId> inflight;
  // Starting after the root spreads the order over the peers when the roots
  // of successive operations differ.
  for (int step = 1; step < n; ++step) {
    int peer = Mod(t.rank() + step, n);
    auto block = BlockOf(data, offsets, peer);
    for (std::size_t i = 0; i < ChunkCount(block.size(), chunk); ++i) {
      if (inflight.size() >= window) {
        RequestId oldest = inflight.front();
        inflight.pop_front();
        co_await Await(oldest);
      }
      auto c = ChunkOf(block, chunk, i);
      inflight.push_back(to_root ? t.Irecv(peer, tag, c.data(), c.size())
                                 : t.Isend(peer, tag, c.data(), c.size()));
    }
  }
  std::vector<RequestId> rest(inflight.begin(), inflight.end());
  co_await AwaitAll(rest);
}

}  // namespace bdmpi::coll
