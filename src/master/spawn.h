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
};

// fork + exec; throws, naming the path and errno, when exec fails (the
// child reports it through a close-on-exec pipe). The child dies with its
// master (PR_SET_PDEATHSIG) and starts with an empty signal mask. Only
// async-signal-safe calls run between fork and exec, because Open MPI has
// threads running in the master.
pid_t SpawnSlave(const SpawnSpec& spec);

}  // namespace bdmpi
