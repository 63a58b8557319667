// Starting slave processes.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace bdmpi {

struct SpawnSpec {
  std::string path;                    // resolved program path
  std::vector<std::string> argv;
  std::vector<std::string> env;        // complete environment, "K=V"
  int cpu = -1;                        // pin to this CPU, or -1
  // Descriptors the slave inherits besides 0, 1 and 2 (the node's
  // liveness lock, common/job_liveness.h).
  std::vector<int> keep_fds;
};

// fork + exec; throws, naming the path and errno, when exec fails (the
// child reports it through a close-on-exec pipe). The child dies with its
// master (PR_SET_PDEATHSIG), starts with an empty signal mask, and inherits
// no descriptor but 0-2 and `keep_fds`: the master's others are Open MPI's
// (a singleton master's pipe and sockets to its orted, its PMIx server) or
// came with bdmpiexec's environment, none of them a rank's business, and
// one held by a rank would outlive the master. Only
// async-signal-safe calls run between fork and exec, because Open MPI has
// threads running in the master.
pid_t SpawnSlave(const SpawnSpec& spec);

}  // namespace bdmpi
