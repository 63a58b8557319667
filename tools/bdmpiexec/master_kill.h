// What bdmpiexec says of a master that a signal killed. A master that dies
// of SIGKILL can say nothing itself (bdmpiexec removes what it left,
// cleanup.h); when bdmpiexec started it directly (--launcher local) and
// the kernel's out-of-memory kill counts grew meanwhile, the kernel's
// out-of-memory killer sent it, and the message names the limit and what
// to change (common/oom_kill.h). Under mpirun or srun the child is the
// launcher, whose end says nothing of this.
#pragma once

#include <optional>
#include <string>

#include "common/memory_cgroup.h"

namespace bdmpi {

// The memory cgroup and its out-of-memory kill counts, read just before
// the master starts.
struct MasterMemory {
  MemoryCgroup cgroup;
  OomCounts before;
};
MasterMemory NoteMasterMemory();

// The line (with its newline) for a master killed by `sig`; `memory` is
// what NoteMasterMemory read, where bdmpiexec started the master itself.
std::string DescribeMasterKill(int sig, const std::optional<MasterMemory>& memory);

}  // namespace bdmpi
