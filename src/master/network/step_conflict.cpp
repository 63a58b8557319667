#include "master/network/step_conflict.h"

#include <map>
#include <utility>

namespace bdmpi {

std::optional<StepConflict> FindStepConflict(std::span<const ControlMsg> states) {
  // The first node seen with each step, and its signature.
  std::map<std::pair<int, std::uint64_t>, std::pair<int, StepSignature>> first;
  for (std::size_t node = 0; node < states.size(); ++node) {
    const ControlMsg& state = states[node];
    if (state.kind != ControlKind::kState) continue;
    for (int i = 0; i < state.nsteps && i < kMaxStepRefs; ++i) {
      const StepRef& ref = state.steps[i];
      auto [it, added] =
          first.try_emplace({ref.comm, ref.seq}, static_cast<int>(node), ref.signature);
      if (added || it->second.second == ref.signature) continue;
      return StepConflict{ref.comm, ref.seq, it->second.first, it->second.second,
                          static_cast<int>(node), ref.signature};
    }
  }
  return std::nullopt;
}

}  // namespace bdmpi
