#include "master/memory/switch_policy.h"

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

bool SwitchOutBefore(const SwitchOutCandidate& a, const SwitchOutCandidate& b) {
  bool a_blocked = a.state != SlaveState::kRunnable;
  bool b_blocked = b.state != SlaveState::kRunnable;
  if (a_blocked != b_blocked) return a_blocked;
  if (a.woken_soon != b.woken_soon) return b.woken_soon;
  if (a.read_ahead != b.read_ahead) return b.read_ahead;
  return a.bytes > b.bytes;
}

double ResumeScore(double resident_fraction, bool awaited_by_resident) {
  if (!awaited_by_resident || resident_fraction >= 1.0) return resident_fraction;
  return (1.0 + resident_fraction) / 2;
}

}  // namespace bdmpi
