#include "master/sched/master_cpu.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace bdmpi {
namespace {

// The value of the first of `names` set to a number, else -1.
int EnvNumber(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    long number = std::strtol(value, &end, 10);
    if (*end == '\0' && number >= 0 && number < 1 << 20) return static_cast<int>(number);
  }
  return -1;
}

}  // namespace

int ChooseMasterCpu(const cpu_set_t& allowed, int current, int local_rank, int local_size) {
  int count = CPU_COUNT(&allowed);
  bool alone = local_rank < 0 || (local_size >= 0 && local_size < 2);
  if (alone || count < 2) return current;
  // The (local_rank mod count)-th allowed processor: distinct ones for the
  // masters of one host while there are enough. (Linux numbers one thread
  // of every core before the second threads, so these are distinct cores
  // as well where there are as many cores as masters.)
  int wanted = local_rank % count;
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (seen++ == wanted) return cpu;
  }
  return current;
}

int MasterCpu() {
  int current = sched_getcpu();
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return current;
  int local_rank = EnvNumber({"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"});
  int local_size = EnvNumber({"OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_TASKS_PER_NODE"});
  return ChooseMasterCpu(allowed, current, local_rank, local_size);
}

int LocalMasterCount() {
  int count = EnvNumber({"OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_TASKS_PER_NODE"});
  return count > 0 ? count : 1;
}

int AutoRunningSlots(int cores, int local_masters, int nslaves) {
  int share = cores / std::max(local_masters, 1);
  return std::clamp(share, 1, std::max(nslaves, 1));
}

}  // namespace bdmpi
