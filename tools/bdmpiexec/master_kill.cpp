#include "bdmpiexec/master_kill.h"

#include <signal.h>

#include <cstring>

#include "common/oom_kill.h"

namespace bdmpi {

MasterMemory NoteMasterMemory() {
  MasterMemory memory;
  memory.cgroup = FindMemoryCgroup();
  memory.before = ReadOomCounts(memory.cgroup);
  return memory;
}

std::string DescribeMasterKill(int sig, const std::optional<MasterMemory>& memory) {
  if (sig == SIGKILL && memory) {
    std::string oom = DescribeSigkill(memory->cgroup, memory->before);
    // The ranks start with a higher oom_score_adj than the master's, so the
    // killer took the master only when it held much of the memory itself:
    // its buffered messages (at most --mem-budget), next to what the
    // running ranks cannot page out.
    if (!oom.empty())
      return "bdmpiexec: the master " + oom +
             "; the node's memory is too small for the master's buffered messages next to "
             "its ranks' unpageable memory: raise the limit, or lower --mem-budget (the "
             "messages the master holds in memory) or -nr (the ranks that run at once)\n";
  }
  return "bdmpiexec: the master was killed by signal " + std::to_string(sig) + " (" +
         strsignal(sig) + ")\n";
}

}  // namespace bdmpi
