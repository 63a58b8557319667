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

std::optional<std::uint64_t> TouchEstimates::Expected(int point) const {
  for (const auto& [at, bytes] : points_)
    if (at == point) return bytes;
  return std::nullopt;
}

void TouchEstimates::Note(int point, std::uint64_t bytes) {
  for (auto& [at, estimate] : points_) {
    if (at == point) {
      estimate = std::max(bytes, estimate / 2);
      return;
    }
  }
  points_.push_back({point, bytes});
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
