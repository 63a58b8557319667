// The node's memory: the limit the kernel enforces on the master and its
// ranks (a memory cgroup, else the machine), the default budget for the
// ranks' data, the cgroup's count of its reclaim's refaults, and the
// kernel's count of out-of-memory kills, by which the master tells an OOM
// kill from any other SIGKILL.
#pragma once

#include <cstdint>
#include <string>

namespace bdmpi {

// The memory cgroup this process is in and what it says.
struct MemoryCgroup {
  bool v2 = false;
  std::string dir;  // e.g. /sys/fs/cgroup/memory/bdmpi-demo; empty: none found
  // The smallest limit along the path up to the root (a parent's limit
  // applies too), 0 when there is none, and the file that set it.
  std::uint64_t limit = 0;
  std::string limit_file;
};

// From /proc/self/cgroup: the v1 memory controller's cgroup, else the v2
// one (memory.limit_in_bytes / memory.max).
MemoryCgroup FindMemoryCgroup();
// The memory limit of this process's memory cgroup, or 0 when there is none.
std::uint64_t CgroupMemoryLimit();
// MemAvailable and MemTotal from /proc/meminfo, in bytes (0 if unknown).
std::uint64_t AvailableMemory();
std::uint64_t TotalMemory();

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

// What the memory.stat of the cgroup whose limit applies says of its
// reclaim (over it and its descendants): the pages it evicted and faulted
// back (workingset_refault_file and _anon), and what it cannot reclaim
// without swap (anonymous and shared memory), in bytes. False when there
// is no limit or no such counts (kernels before 5.9 count refaults of
// both kinds as one, which is taken then).
struct CgroupReclaim {
  std::uint64_t refaulted = 0;
  std::uint64_t unreclaimable = 0;
};
bool ReadCgroupReclaim(const MemoryCgroup& cgroup, CgroupReclaim& out);

// Out-of-memory kills so far, as the kernel counts them: in the cgroup
// (v1 memory.oom_control's oom_kill, v2 memory.events' oom_kill, which
// count the kills of its descendants too) and on the whole machine
// (/proc/vmstat oom_kill); -1 where unknown.
struct OomCounts {
  long cgroup = -1;
  long machine = -1;
};
OomCounts ReadOomCounts(const MemoryCgroup& cgroup);
// The most memory the cgroup has used (v1 memory.max_usage_in_bytes, v2
// memory.peak), 0 when unknown.
std::uint64_t CgroupPeakUsage(const MemoryCgroup& cgroup);
// The file ReadOomCounts reads the cgroup's count from ("" without one).
std::string OomEventsFile(const MemoryCgroup& cgroup);

}  // namespace bdmpi
