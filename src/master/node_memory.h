// The node's memory budget for the slaves' storage-backed data, and the
// master's bookkeeping of whose data is resident.
#pragma once

#include <cstdint>
#include <string>

namespace bdmpi {

// The memory limit of this process's memory cgroup (v1
// memory.limit_in_bytes, the smallest along the path up to the root; v2
// memory.max), or 0 when there is none.
std::uint64_t CgroupMemoryLimit();
// MemAvailable from /proc/meminfo, in bytes (0 if unknown).
std::uint64_t AvailableMemory();

// The default budget: the cgroup limit if set, else MemAvailable, less a
// margin for what is not storage-backed (the master's buffered messages,
// up to message_budget, and an eighth for small allocations, code and
// page tables).
std::uint64_t DefaultNodeMemory(std::uint64_t message_budget);

}  // namespace bdmpi
