// What a resumed rank is expected to touch (touch_estimate.h).
#include "master/memory/touch_estimate.h"

#include <algorithm>

namespace bdmpi {

std::uint64_t TouchedSince(const TouchReading& base, const TouchReading& now) {
  auto grown = [](std::uint64_t before, std::uint64_t after) {
    return after > before ? after - before : 0;
  };
  return grown(base.anonymous, now.anonymous) +
         std::max(grown(base.shared, now.shared), grown(base.read, now.read));
}

const char* ResumedFromName(ResumedFrom from) {
  return from == ResumedFrom::kSwitchedOut ? "switched out" : "resident";
}

std::optional<std::uint64_t> TouchEstimates::Expected(int point, ResumedFrom from) const {
  for (const Estimate& estimate : estimates_)
    if (estimate.point == point && estimate.from == from) return estimate.bytes;
  return std::nullopt;
}

void TouchEstimates::Note(int point, ResumedFrom from, std::uint64_t bytes) {
  for (Estimate& estimate : estimates_) {
    if (estimate.point == point && estimate.from == from) {
      estimate.bytes = std::max(bytes, estimate.bytes / 2);
      return;
    }
  }
  estimates_.push_back({point, from, bytes});
}

std::uint64_t TouchAdmission(std::uint64_t resident, std::optional<std::uint64_t> expected,
                             std::uint64_t full) {
  if (!expected) return full;
  constexpr std::uint64_t kMargin = 1ull << 20;
  return std::min(full, resident + *expected + *expected / 8 + kMargin);
}

std::uint64_t TouchGrown(std::uint64_t counted, std::uint64_t touched, std::uint64_t step,
                         std::uint64_t full) {
  if (touched <= counted) return counted;
  return std::min(full, std::max(touched + step, counted));
}

}  // namespace bdmpi
