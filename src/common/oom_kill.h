// How a process's SIGKILL is told apart as the kernel's out-of-memory
// killer's, and said: by the kernel's counts of OOM kills (memory_cgroup.h)
// from before the process started to after it died. One text for the
// master's message about a rank and bdmpiexec's about the master.
#pragma once

#include <cstdint>
#include <string>

#include "common/memory_cgroup.h"

namespace bdmpi {

// Whether either count grew from `before` to `after` (an unknown count,
// -1, never grew).
bool OomCountsGrew(const OomCounts& before, const OomCounts& after);

// "was killed by the kernel's out-of-memory killer (signal 9, SIGKILL;
// oom_kill in FILE went from A to B): the memory limit is X (FILE, cgroup
// v1), which the job's cgroup used up to Y", for a message that names the
// process first; "" when neither count grew. The cgroup's count is named
// when it grew, else the machine's. `peak` is CgroupPeakUsage (said only
// where the limit is the cgroup's own, not a parent's); without a limit
// the text says the machine's memory, `machine_memory` (TotalMemory).
std::string DescribeOomCounts(const MemoryCgroup& cgroup, const OomCounts& before,
                              const OomCounts& after, std::uint64_t peak,
                              std::uint64_t machine_memory);

// DescribeOomCounts from the counts now, for a process just seen dead of
// SIGKILL: "" when it was no OOM kill. The kernel counts the kill right
// after it sends the signal and the exit may be seen first, so when
// neither count grew they are read once more 20 ms later.
std::string DescribeSigkill(const MemoryCgroup& cgroup, const OomCounts& before);

}  // namespace bdmpi
