// Building blocks shared by the algorithms: cutting spans into chunks and
// blocks, and moving a span to or from a peer as a window of chunk-sized
// messages. Every transfer goes through these, so no message is ever larger
// than the chunk size and no algorithm keeps more than kPipelineDepth
// messages per direction in flight.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "collectives/operation.h"
#include "collectives/task.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// Messages in flight per direction in a pipeline. Four hides one round trip
// behind the transfer of the previous chunks without needing more than four
// chunks of scratch where a chunk must be received before it is reduced.
inline constexpr std::size_t kPipelineDepth = 4;

// `chunk` rounded down to whole elements, at least one element.
inline std::size_t ElementChunk(std::size_t chunk, std::size_t element) {
  return std::max(element, chunk - chunk % element);
}

inline std::size_t ChunkCount(std::size_t bytes, std::size_t chunk) {
  return (bytes + chunk - 1) / chunk;
}

// Chunk i of s when s is cut into pieces of `chunk` bytes.
template <typename T>
std::span<T> ChunkOf(std::span<T> s, std::size_t chunk, std::size_t i) {
  std::size_t offset = i * chunk;
  return s.subspan(offset, std::min(chunk, s.size() - offset));
}

// Offsets (n + 1 of them) of n blocks of `bytes` bytes cut as evenly as
// possible at element boundaries, the first blocks one element larger.
std::vector<std::size_t> EvenBlocks(std::size_t bytes, int n,
                                    std::size_t element = 1);

// Offsets (n + 1) of blocks of the given sizes laid end to end.
std::vector<std::size_t> BlockOffsets(std::span<const std::size_t> sizes);

// Block b of data given block offsets.
template <typename T>
std::span<T> BlockOf(std::span<T> data, const std::vector<std::size_t>& offsets,
                     int b) {
  return data.subspan(offsets[b], offsets[b + 1] - offsets[b]);
}

// Sends `send` to peer `to` while receiving `recv` from peer `from`, each as
// chunk-sized messages with at most kPipelineDepth in flight. An empty span
// sends or receives nothing (both sides always know the size). Peers must
// not be -1 unless their span is empty.
Task Exchange(Transport& t, int tag, int to, std::span<const std::byte> send,
              int from, std::span<std::byte> recv, std::size_t chunk);

inline Task SendChunks(Transport& t, int tag, int to,
                       std::span<const std::byte> send, std::size_t chunk) {
  return Exchange(t, tag, to, send, -1, {}, chunk);
}

inline Task RecvChunks(Transport& t, int tag, int from,
                       std::span<std::byte> recv, std::size_t chunk) {
  return Exchange(t, tag, -1, {}, from, recv, chunk);
}

// a mod n in [0, n): ranks relative to a root and back, ring neighbours.
inline int Mod(int a, int n) { return ((a % n) + n) % n; }

// Argument checks of the Start functions. These arguments come from the
// master, not from users, so a bad one is an internal error (kErrIntern).
void CheckCommon(const Transport& t, int tag, std::size_t chunk);
void CheckRoot(const Transport& t, int root);
// A copy of `order` after checking that it is a permutation of the ranks.
std::vector<int> CheckedOrder(const Transport& t, std::span<const int> order);
void CheckReduction(const Reduction& op, std::size_t bytes);
// A copy of per-peer block sizes after checking there is one per peer and
// that they add up to `total`.
std::vector<std::size_t> CheckedSizes(const Transport& t,
                                      std::span<const std::size_t> sizes,
                                      std::size_t total);
// At a non-root peer of gatherv/scatterv: its own size is right.
void CheckOwnBlock(const Transport& t, std::span<const std::size_t> sizes,
                   std::size_t bytes);

}  // namespace bdmpi::coll
