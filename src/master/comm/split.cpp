#include "master/comm/split.h"

#include <algorithm>
#include <map>
#include <string>

#include "common/error.h"

namespace bdmpi {

std::vector<PlannedComm> PlanSplit(std::span<const SplitEntry> entries, int world_size) {
  std::map<int, std::vector<const SplitEntry*>> by_color;
  for (const SplitEntry& entry : entries) {
    if (entry.color != kUndefinedColor) by_color[entry.color].push_back(&entry);
  }
  std::vector<PlannedComm> comms;
  for (auto& [color, members] : by_color) {
    std::sort(members.begin(), members.end(), [](const SplitEntry* a, const SplitEntry* b) {
      return a->key != b->key ? a->key < b->key : a->rank < b->rank;
    });
    const SplitEntry* leader = *std::min_element(
        members.begin(), members.end(),
        [](const SplitEntry* a, const SplitEntry* b) { return a->world_rank < b->world_rank; });
    std::int32_t id = CommId(leader->world_rank, leader->creation, world_size);
    if (id < 0)
      throw Error(kErrIntern, "rank " + std::to_string(leader->world_rank) +
                                  " has taken part in too many communicator creations "
                                  "for 31-bit communicator ids");
    comms.push_back(PlannedComm{id, color, std::move(members)});
  }
  return comms;
}

}  // namespace bdmpi
