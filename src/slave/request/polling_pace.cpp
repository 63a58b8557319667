// The pacing of a polling loop; see polling_pace.h.
#include "slave/request/polling_pace.h"

#include <algorithm>

namespace bdmpi {

std::chrono::nanoseconds PollingPace::AfterVainTest(Clock::time_point start, Clock::time_point end) {
  if (!looping_ || start - last_end_ > kTightGap) {
    looping_ = true;
    loop_start_ = start;
  }
  last_end_ = end;
  std::chrono::nanoseconds waited = end - loop_start_;
  if (waited < kSleepAfter) return std::chrono::nanoseconds(0);
  return std::clamp(waited / kWaitedShare, kMinSleep, kMaxSleep);
}

void PollingPace::AfterTest(Clock::time_point end, bool vain) {
  if (!vain) looping_ = false;
  last_end_ = end;
}

}  // namespace bdmpi
