// Receive buffers dead while their collective waits; see dead_pages.h.
#include "slave/memory/dead_pages.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "common/log.h"

namespace bdmpi::memory {

namespace {

// The pages marked now, with the guard that marked them. A rank waits in
// one collective at a time (its MPI calls hold its lock), but a switch-out
// reads the list under the arena's lock: this one is taken alone, never
// around a call into the arena.
std::mutex g_dead_pages_lock;
std::vector<std::pair<const DeadWhileWaiting*, ByteSpan>> g_dead_pages;

}  // namespace

std::vector<ByteSpan> WholePagesOfUnion(std::vector<ByteSpan> spans, std::uint64_t page) {
  std::erase_if(spans, [](const ByteSpan& span) { return span.bytes == 0; });
  std::sort(spans.begin(), spans.end(),
            [](const ByteSpan& a, const ByteSpan& b) { return a.start < b.start; });
  std::vector<ByteSpan> pages;
  auto add_whole = [&](std::uintptr_t start, std::uintptr_t end) {
    std::uintptr_t lo = (start + page - 1) & ~(page - 1);
    std::uintptr_t hi = end & ~(page - 1);
    if (lo < hi) pages.push_back({lo, hi - lo});
  };
  std::size_t i = 0;
  while (i < spans.size()) {
    std::uintptr_t start = spans[i].start, end = start + spans[i].bytes;
    for (++i; i < spans.size() && spans[i].start <= end; ++i)
      end = std::max<std::uintptr_t>(end, spans[i].start + spans[i].bytes);
    add_whole(start, end);
  }
  return pages;
}

void DeadWhileWaiting::Add(const void* p, std::uint64_t bytes) {
  if (bytes < kArenaPage || !Owns(p)) return;
  spans_.push_back({reinterpret_cast<std::uintptr_t>(p), bytes});
}

void DeadWhileWaiting::Mark() {
  if (spans_.empty()) return;
  std::vector<ByteSpan> pages = WholePagesOfUnion(std::move(spans_), kArenaPage);
  spans_.clear();
  if (pages.empty()) return;
  std::lock_guard lock(g_dead_pages_lock);
  for (const ByteSpan& span : pages) g_dead_pages.emplace_back(this, span);
  marked_ = true;
}

DeadWhileWaiting::~DeadWhileWaiting() {
  if (!marked_) return;
  std::lock_guard lock(g_dead_pages_lock);
  std::erase_if(g_dead_pages, [this](const auto& entry) { return entry.first == this; });
}

std::vector<CopiedBlock> DeadBlocks() {
  std::lock_guard lock(g_dead_pages_lock);
  std::vector<CopiedBlock> blocks;
  blocks.reserve(g_dead_pages.size());
  std::uint64_t bytes = 0;
  for (const auto& [guard, span] : g_dead_pages) {
    blocks.push_back({.address = span.start, .bytes = span.bytes});
    bytes += span.bytes;
  }
  if (bytes > 0)
    BDMPI_DEBUG("disk", "switch-out in a collective: %llu bytes of its receive buffers dead",
                static_cast<unsigned long long>(bytes));
  return blocks;
}

}  // namespace bdmpi::memory
