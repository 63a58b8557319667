// The master's share of the node's memory: the default budget for the
// ranks' data and the bytes of messages it buffers, both taken from the
// limit the kernel enforces on the master and its ranks (a memory cgroup,
// else the machine: common/memory_cgroup.h).
#pragma once

#include <cstdint>

namespace bdmpi {

// The default budget: the cgroup limit if set, else MemAvailable, less a
// margin for what no rank holds (the master's buffered messages, up to
// message_budget, and an eighth for code, page tables and the page cache
// that the ranks' I/O needs).
std::uint64_t DefaultNodeMemory(std::uint64_t message_budget);
// The bytes of messages a master buffers in memory (--mem-budget, at most
// a quarter of the memory DefaultNodeMemory starts from): the default
// budget's margin holds them, and more would crowd the ranks out of a
// small cgroup (its reclaim then evicts what they are about to touch).
std::uint64_t MessageBudget(std::uint64_t requested);

}  // namespace bdmpi
