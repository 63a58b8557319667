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
  std::string cwd;                     // the working directory; "": the master's
  int cpu = -1;                        // pin to this CPU, or -1
  // Descriptors the slave inherits besides 0, 1 and 2 (the node's
  // liveness lock, common/job_liveness.h).
  std::vector<int> keep_fds;
};

// How a rank's program gets libbdmpi: linked (shared, or static with
// PMPI_Init defined in it), not at all (it is dynamic: the master preloads
// libbdmpi, so that its malloc serves the program from the start, as for
// Python with mpi4py, which loads libbdmpi only at `import mpi4py.MPI`),
// or never (a static program, which the dynamic loader does not start).
enum class Linkage { kLinked, kPreload, kStatic, kUnknown };

// For an ELF file, its own linkage; for a script (`#!`), its
// interpreter's (`/usr/bin/env prog` looked up in `search_path`; a chain
// of at most 5 scripts, as Linux runs);
// kUnknown for anything else or a file that cannot be read (exec will say
// why). `inspected` is the ELF file looked at.
Linkage ProgramLinkage(const std::string& path, const std::string& search_path,
                       std::string& inspected);

// The environment every rank starts from: `environment` (the master's)
// without Open MPI's variables (they describe the master's job), the
// launch's marks (common/launch_guard.h) and the variables the master sets
// for each rank itself, with LD_PRELOAD as the ranks' own (bdmpiexec hands
// it over in BDMPI_RANKS_LD_PRELOAD) and, when `program_path` does not
// link libbdmpi, libbdmpi appended (BDMPI_PRELOAD=off: not; a path: that
// library). Logs what it decided (category "sched").
std::vector<std::string> RankBaseEnvironment(char** environment,
                                             const std::string& program_path);

// fork, chdir to `cwd` + exec; throws, naming the path (or directory) and
// errno, when either fails (the child reports it through a close-on-exec
// pipe). The child dies with its
// master (PR_SET_PDEATHSIG), starts with an empty signal mask, and inherits
// no descriptor but 0-2 and `keep_fds`: the master's others are Open MPI's
// (a singleton master's pipe and sockets to its orted, its PMIx server) or
// came with bdmpiexec's environment, none of them a rank's business, and
// one held by a rank would outlive the master. Only
// async-signal-safe calls run between fork and exec, because Open MPI has
// threads running in the master.
pid_t SpawnSlave(const SpawnSpec& spec);

}  // namespace bdmpi
