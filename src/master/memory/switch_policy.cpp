#include "master/memory/switch_policy.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace bdmpi {

bool WokenSoon(SlaveState state, std::span<const int> sources,
               const std::function<SlaveState(int)>& state_of) {
  if (state != SlaveState::kRBlocked || sources.empty()) return false;
  for (int source : sources) {
    if (source < 0) return false;
    SlaveState s = state_of(source);
    if (s != SlaveState::kRunning && s != SlaveState::kRunnable) return false;
  }
  return true;
}

namespace {

// 0 goes first: blocked, not woken soon, not reading ahead.
int SwitchOutClass(const SwitchOutCandidate& c) {
  return (c.state == SlaveState::kRunnable ? 4 : 0) + (c.woken_soon ? 2 : 0) +
         (c.read_ahead ? 1 : 0);
}

}  // namespace

std::vector<std::size_t> SwitchOutOrder(std::span<const SwitchOutCandidate> candidates) {
  constexpr int kClasses = 8;
  std::uint64_t largest[kClasses] = {};
  for (const SwitchOutCandidate& c : candidates) {
    std::uint64_t& most = largest[SwitchOutClass(c)];
    most = std::max(most, c.bytes);
  }
  // A key per candidate, so that the order is strict whatever the sizes.
  auto key = [&](std::size_t i) {
    const SwitchOutCandidate& c = candidates[i];
    int cls = SwitchOutClass(c);
    bool alike = c.bytes >= largest[cls] - largest[cls] / 2;
    std::int64_t recent = alike ? c.stopped_ns : 0;
    std::uint64_t size = alike ? 0 : c.bytes;
    return std::tuple(cls, !alike, -recent, ~size, i);
  };
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::sort(order, [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

double ResumeScore(double resident_fraction, bool awaited_by_resident) {
  if (!awaited_by_resident || resident_fraction >= 1.0) return resident_fraction;
  return (1.0 + resident_fraction) / 2;
}

}  // namespace bdmpi
