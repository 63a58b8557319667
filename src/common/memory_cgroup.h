// The node's memory as the kernel sees it: the memory cgroup that limits a
// process (else the machine's memory), the cgroup's count of its reclaim's
// refaults, and the kernel's counts of out-of-memory kills, by which the
// master tells an OOM kill of a rank, and bdmpiexec one of the master,
// from any other SIGKILL (oom_kill.h).
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
