#include "bdmpiexec/cpu_use.h"

#include <cmath>
#include <sstream>

#include "bdmpiexec/proc_files.h"

namespace bdmpi {

CpuTimes ParseCpuTimes(const std::string& proc_stat) {
  CpuTimes times;
  std::istringstream lines(proc_stat);
  std::string line;
  while (std::getline(lines, line)) {
    // "cpu" alone is the sum of them all.
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line);
    std::string name;
    // user nice system idle iowait irq softirq steal
    unsigned long long value[8] = {};
    fields >> name;
    int read = 0;
    while (read < 8 && fields >> value[read]) ++read;
    if (read < 8) continue;  // a kernel without steal (before 2.6.11)
    times.push_back({value[0] + value[1], value[2] + value[5] + value[6], value[3], value[4],
                     value[7]});
  }
  return times;
}

CpuTimes ReadCpuTimes() { return ParseCpuTimes(ReadProcFile("/proc/stat")); }

std::string DescribeCpuUse(const CpuTimes& before, const CpuTimes& after) {
  if (before.empty() || before.size() != after.size()) return "";
  static const char* const kNames[kCpuTimeKinds] = {"user", "system", "idle",
                                                     "waiting for the disk", "stolen"};
  std::string text;
  for (std::size_t cpu = 0; cpu < after.size(); ++cpu) {
    unsigned long long delta[kCpuTimeKinds] = {};
    unsigned long long total = 0;
    for (int kind = 0; kind < kCpuTimeKinds; ++kind) {
      // A counter never goes back; a processor brought online again may.
      unsigned long long was = before[cpu][kind], is = after[cpu][kind];
      delta[kind] = is >= was ? is - was : 0;
      total += delta[kind];
    }
    text += (cpu == 0 ? "cpu" : "; cpu") + std::to_string(cpu);
    for (int kind = 0; kind < kCpuTimeKinds; ++kind) {
      double share = total == 0 ? 0.0 : 100.0 * static_cast<double>(delta[kind]) /
                                            static_cast<double>(total);
      text += (kind == 0 ? " " : ", ") + std::to_string(std::lround(share)) + "% " + kNames[kind];
    }
  }
  return text;
}

}  // namespace bdmpi
