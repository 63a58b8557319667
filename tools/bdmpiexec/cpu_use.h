// How the machine's processors spent their time while a job ran, for the
// time limit's report: a rank that "runs" without progress on a processor
// that others kept busy, or that the hypervisor took away (steal), was
// starved; on one mostly idle it was spinning.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace bdmpi {

// Each processor's time in clock ticks, by kind.
enum CpuTimeKind { kCpuUser, kCpuSystem, kCpuIdle, kCpuIowait, kCpuSteal, kCpuTimeKinds };
using CpuTimes = std::vector<std::array<unsigned long long, kCpuTimeKinds>>;

// The "cpuN" lines of /proc/stat's text (user with nice; system with the
// interrupts' time), in processor order; empty when there are none.
CpuTimes ParseCpuTimes(const std::string& proc_stat);
CpuTimes ReadCpuTimes();

// "cpu0 40% user, 20% system, 38% idle, 2% waiting for the disk, 0% stolen;
// cpu1 ...": the shares between two readings; empty when they do not match.
std::string DescribeCpuUse(const CpuTimes& before, const CpuTimes& after);

}  // namespace bdmpi
