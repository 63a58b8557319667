#include "common/oom_kill.h"

#include <unistd.h>

#include "common/run_report.h"

namespace bdmpi {

namespace {

// An unknown count (-1) never grew.
bool Grew(long from, long to) { return from >= 0 && to > from; }

}  // namespace

bool OomCountsGrew(const OomCounts& before, const OomCounts& after) {
  return Grew(before.cgroup, after.cgroup) || Grew(before.machine, after.machine);
}

std::string DescribeOomCounts(const MemoryCgroup& cgroup, const OomCounts& before,
                              const OomCounts& after, std::uint64_t peak,
                              std::uint64_t machine_memory) {
  if (!OomCountsGrew(before, after)) return "";
  std::string text = "was killed by the kernel's out-of-memory killer (signal 9, SIGKILL; ";
  if (Grew(before.cgroup, after.cgroup)) {
    text += "oom_kill in " + OomEventsFile(cgroup) + " went from " +
            std::to_string(before.cgroup) + " to " + std::to_string(after.cgroup) + ")";
  } else {
    text += "oom_kill in /proc/vmstat went from " + std::to_string(before.machine) + " to " +
            std::to_string(after.machine) + ")";
  }
  if (cgroup.limit != 0) {
    text += ": the memory limit is " + HumanBytes(cgroup.limit) + " (" + cgroup.limit_file +
            (cgroup.v2 ? ", cgroup v2" : ", cgroup v1") + ")";
    if (peak != 0 && !cgroup.dir.empty() && cgroup.limit_file.starts_with(cgroup.dir + "/"))
      text += ", which the job's cgroup used up to " + HumanBytes(peak);
  } else {
    text += ": no memory cgroup limits this node; the machine has " +
            HumanBytes(machine_memory) + " and no swap to spare";
  }
  return text;
}

std::string DescribeSigkill(const MemoryCgroup& cgroup, const OomCounts& before) {
  OomCounts now = ReadOomCounts(cgroup);
  if (!OomCountsGrew(before, now)) {
    usleep(20'000);
    now = ReadOomCounts(cgroup);
    if (!OomCountsGrew(before, now)) return "";
  }
  bool limited = cgroup.limit != 0;
  return DescribeOomCounts(cgroup, before, now, limited ? CgroupPeakUsage(cgroup) : 0,
                           limited ? 0 : TotalMemory());
}

}  // namespace bdmpi
