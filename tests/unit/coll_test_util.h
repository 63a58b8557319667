// Helpers for the collective algorithm tests: input patterns, reductions
// whose result does not depend on the order of operands, and running one
// operation per peer on the in-process network.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collectives/inproc_transport.h"
#include "collectives/operation.h"

namespace bdmpi::coll::test {

inline constexpr int kPeerCounts[] = {1, 2, 3, 4, 5, 8};
inline constexpr std::size_t kSizes[] = {0, 1, 4096, (1 << 20) + 3};
// A chunk size that is not a multiple of anything, so that chunks cut
// elements unless the algorithm rounds, and a realistic one.
inline constexpr std::size_t kChunks[] = {1000, 64 << 10};

using Bytes = std::vector<std::byte>;

// Reproducible bytes that differ with the seed (splitmix64).
inline Bytes Pattern(std::size_t bytes, std::uint64_t seed) {
  Bytes out(bytes);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t i = 0; i < bytes; i += 8) {
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    std::memcpy(out.data() + i, &z, std::min<std::size_t>(8, bytes - i));
  }
  return out;
}

// "" when equal, else where and how they first differ.
inline std::string Diff(std::span<const std::byte> got,
                        std::span<const std::byte> want) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) +
           " != " + std::to_string(want.size());
  // memcmp first: the byte loop only to locate a difference (64 MiB cases).
  if (got.empty() || std::memcmp(got.data(), want.data(), got.size()) == 0)
    return "";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "first difference at byte " + std::to_string(i) + " of " +
             std::to_string(got.size());
  return "";
}

// Sum of 8-bit integers (element 1 byte) and of triples of 32-bit integers
// (element 12 bytes, which no chunk size divides): exact, so every order of
// operands gives the same bits. The second fails the test if handed a piece
// that is not whole elements.
inline Reduction SumU8() {
  return {[](const std::byte* in, std::byte* inout, std::size_t bytes) {
            for (std::size_t i = 0; i < bytes; ++i)
              inout[i] = static_cast<std::byte>(
                  std::to_integer<std::uint8_t>(in[i]) +
                  std::to_integer<std::uint8_t>(inout[i]));
          },
          1, true};
}

inline Reduction SumU32x3() {
  return {[](const std::byte* in, std::byte* inout, std::size_t bytes) {
            if (bytes % 12 != 0) ADD_FAILURE() << "split element: " << bytes;
            for (std::size_t i = 0; i + 4 <= bytes; i += 4) {
              std::uint32_t a, b;
              std::memcpy(&a, in + i, 4);
              std::memcpy(&b, inout + i, 4);
              b += a;
              std::memcpy(inout + i, &b, 4);
            }
          },
          12, true};
}

// `bytes` rounded to whole elements, at least one element when non-zero.
inline std::size_t WholeElements(std::size_t bytes, std::size_t element) {
  if (bytes == 0) return 0;
  return std::max(element, bytes - bytes % element);
}

// Reference result of reducing `inputs` with `op` in rank order.
inline Bytes ReduceAll(const std::vector<Bytes>& inputs, const Reduction& op) {
  Bytes acc = inputs[0];
  for (std::size_t p = 1; p < inputs.size(); ++p) {
    Bytes next = inputs[p];
    op.fn(acc.data(), next.data(), next.size());  // acc op next
    acc = std::move(next);
  }
  return acc;
}

using StartFn = std::function<std::unique_ptr<Operation>(Transport&)>;

// BDMPI_TEST_SEED=k shifts every seed, to explore other completion orders:
// for k in $(seq 50); do BDMPI_TEST_SEED=$k bin/coll_test || break; done
inline std::uint64_t SeedShift() {
  const char* text = std::getenv("BDMPI_TEST_SEED");
  return text ? std::strtoull(text, nullptr, 10) * 0x100000001ull : 0;
}

// Starts one operation per peer on a network of n peers and progresses them
// all to completion; fails the test on a deadlock. Every test varies the
// order in which requests complete (delay, seeded by `seed`) and checks that
// no message exceeds `max_message` bytes (0: any).
inline void RunAll(int n, const StartFn& start, std::uint64_t seed = 1,
                   std::size_t max_message = 0) {
  InprocNetwork net(
      n, {.seed = seed, .delay = 0.25, .max_message_bytes = max_message});
  std::vector<std::unique_ptr<Operation>> ops;
  for (int r = 0; r < n; ++r) ops.push_back(start(net.peer(r)));
  ASSERT_TRUE(RunToCompletion(net, ops)) << "deadlock; outstanding:\n"
                                         << net.DescribeOutstanding();
  EXPECT_EQ(net.outstanding(), 0u) << net.DescribeOutstanding();
}

inline std::string Case(int n, std::size_t bytes, std::size_t chunk,
                        int root = -1) {
  return "n=" + std::to_string(n) + " bytes=" + std::to_string(bytes) +
         " chunk=" + std::to_string(chunk) +
         (root >= 0 ? " root=" + std::to_string(root) : "");
}

}  // namespace bdmpi::coll::test
