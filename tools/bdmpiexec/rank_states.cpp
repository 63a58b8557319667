#include "bdmpiexec/rank_states.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "bdmpiexec/proc_files.h"
#include "common/job_liveness.h"
#include "common/job_names.h"

namespace bdmpi {
namespace {

// Whether a NUL-separated environment sets `name`, and to what.
bool FindVariable(const std::string& environment, const std::string& name, std::string& value) {
  std::string prefix = name + "=";
  for (std::size_t start = 0; start < environment.size();) {
    std::size_t end = environment.find('\0', start);
    if (end == std::string::npos) end = environment.size();
    if (environment.compare(start, prefix.size(), prefix) == 0) {
      value = environment.substr(start + prefix.size(), end - start - prefix.size());
      return true;
    }
    start = end + 1;
  }
  return false;
}

// The kernel's one-letter state (/proc/PID/stat), in words a user reads:
// a rank that computes runs; one inside MPI waits for a message or for its
// turn (the master deschedules it).
std::string StateInWords(const std::vector<std::string>& stat) {
  char state = stat.empty() || stat[0].empty() ? '?' : stat[0][0];
  switch (state) {
    case 'R': return "running";
    case 'S': return "waiting (in MPI or another blocking call)";
    case 'D': return "waiting for the disk";
    case 'T':
    case 't': return "stopped";
    case 'Z': return "exited";
    default: return std::string("in state ") + state;
  }
}

// What the kernel adds to a rank's state: the CPU time it has used (a
// rank that "runs" with little of it waits for a core; with much, it
// spins) and the processor it was last on; for a rank that waits, the
// kernel function it waits in (/proc/PID/wchan: "wq_sleep" is a wait on
// a message queue, for the master's answer or its turn).
std::string KernelDetail(const std::string& pid, const std::vector<std::string>& field) {
  if (field.size() < 37) return "";
  double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  double cpu_s = (std::atof(field[11].c_str()) + std::atof(field[12].c_str())) / ticks;
  char text[96];
  std::snprintf(text, sizeof text, "; %.1f s of CPU, last on CPU %s", cpu_s, field[36].c_str());
  std::string detail = text;
  if (field[0] == "S" || field[0] == "D") {
    std::string wchan = ReadProcFile("/proc/" + pid + "/wchan");
    if (!wchan.empty() && wchan != "0") detail += ", in " + wchan;
  }
  return detail;
}

// Calls visit(pid, environment, world rank) for each process of
// the job whose environment names it as a rank.
template <class Visit>
void ForEachLocalRank(const std::string& job_id, Visit visit) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return;
  while (dirent* entry = readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    std::string dir = std::string("/proc/") + entry->d_name;
    std::string environment = ReadProcFile(dir + "/environ");
    std::string id, rank;
    if (!FindVariable(environment, kEnvJobId, id) || id != job_id ||
        !FindVariable(environment, kEnvWorldRank, rank))
      continue;
    visit(entry->d_name, environment, rank);
  }
  closedir(proc);
}

}  // namespace

std::vector<std::string> DescribeLocalRanks(const std::string& job_id) {
  std::vector<std::pair<long, std::string>> ranks;
  ForEachLocalRank(job_id, [&](const std::string& pid, const std::string&, const std::string& rank) {
    std::vector<std::string> stat = StatFieldsAfterCommand(ReadProcFile("/proc/" + pid + "/stat"));
    ranks.emplace_back(std::atol(rank.c_str()), "rank " + rank + " (pid " + pid + "): " +
                                                    StateInWords(stat) + KernelDetail(pid, stat));
  });
  std::sort(ranks.begin(), ranks.end());
  std::vector<std::string> lines;
  for (auto& [rank, line] : ranks) lines.push_back(std::move(line));
  return lines;
}

std::vector<LocalMaster> LocalMasters(const std::string& job_id) {
  // Each master's liveness file, "bdmpi-<id>-n<node>-live-<tag>", names it
  // from its first moment (common/job_liveness.h), before any rank exists.
  std::vector<LocalMaster> masters;
  for (const std::string& name : OwnEntries("/dev/shm", "bdmpi-" + job_id + "-n")) {
    std::optional<JobNames> names = JobNames::OfLiveness(name);
    if (!names || names->job_id() != job_id) continue;
    std::optional<JobRecord> record = ReadLivenessRecord(name);
    if (!record || record->master_pid <= 0) continue;
    masters.push_back({record->master_pid, record->spill_dir});
  }
  std::sort(masters.begin(), masters.end(),
            [](const LocalMaster& a, const LocalMaster& b) { return a.pid < b.pid; });
  return masters;
}

}  // namespace bdmpi
