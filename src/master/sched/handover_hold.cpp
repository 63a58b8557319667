#include "master/sched/handover_hold.h"

#include <algorithm>

namespace bdmpi {

void HandoverHold::Enable(std::chrono::microseconds hold_limit,
                          std::chrono::microseconds spread_after) {
  hold_limit_ns_ = std::chrono::nanoseconds(hold_limit).count();
  spread_after_ns_ = std::chrono::nanoseconds(spread_after).count();
}

void HandoverHold::Hold(int sender, std::int64_t now) {
  sender_ = sender;
  hold_until_ = now + hold_limit_ns_;
}

void HandoverHold::SpreadAt(std::int64_t when) {
  spread_at_ = spread_at_ < 0 ? when : std::min(spread_at_, when);
}

std::optional<std::int64_t> HandoverHold::NextDeadline() const {
  if (holding()) return spread_at_ < 0 ? hold_until_ : std::min(hold_until_, spread_at_);
  if (spread_at_ >= 0) return spread_at_;
  return std::nullopt;
}

}  // namespace bdmpi
