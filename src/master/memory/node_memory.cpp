#include "master/memory/node_memory.h"

#include <algorithm>

#include "common/memory_cgroup.h"

namespace bdmpi {
namespace {

// The node's memory as the defaults see it: the cgroup limit or
// MemAvailable, whichever is smaller and known.
std::uint64_t KnownMemory() {
  std::uint64_t total = CgroupMemoryLimit();
  std::uint64_t available = AvailableMemory();
  if (total == 0 || (available != 0 && available < total)) total = available;
  if (total == 0) total = 1ull << 30;  // nothing known: be modest
  return total;
}

// Of `total`, what buffered messages may take: --mem-budget, at most a
// quarter.
std::uint64_t MessageShare(std::uint64_t requested, std::uint64_t total) {
  return std::min(requested, total / 4);
}

}  // namespace

std::uint64_t MessageBudget(std::uint64_t requested) {
  return MessageShare(requested, KnownMemory());
}

std::uint64_t DefaultNodeMemory(std::uint64_t message_budget) {
  std::uint64_t total = KnownMemory();
  return total - total / 8 - MessageShare(message_budget, total);
}

}  // namespace bdmpi
