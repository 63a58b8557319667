// bdmpiexec's command line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bdmpi {

enum class Launcher { kAuto, kLocal, kMpirun, kSrun };

struct LaunchOptions {
  int nnodes = 0;  // 0: the Slurm allocation's node count, else 1
  int nslaves = 1;
  int nrunning = 1;
  int ncritical = 1;
  std::string mem_threshold;  // passed through (k/m/g suffixes)
  std::string mem_budget;
  std::string scratch_dir;
  std::string policy;
  std::string job_id;
  std::string topology_file;
  std::string storage_alloc;      // on|off (checked here, passed through)
  std::string storage_threshold;  // sizes passed through to bdmprun
  std::string node_memory;
  std::string prefetch;           // eager|lazy
  bool no_bind = false;
  int verbosity = 0;
  bool help = false;
  Launcher launcher = Launcher::kAuto;
  std::string hostfile;
  std::string hosts;
  std::vector<std::string> launcher_args;  // passed to mpirun / srun
  std::vector<std::string> program;
};

extern const char kLaunchUsage[];

// Throws Error(kErrArg) with a message on bad input. Fills job_id and
// scratch_dir with defaults when not given.
LaunchOptions ParseLaunchOptions(int argc, char** argv);

// The bdmprun command line for these options.
std::vector<std::string> MasterCommand(const LaunchOptions& options,
                                       const std::string& master_path);

// How the masters start: bdmprun itself on one node, else wrapped in
// `srun` inside a Slurm allocation or `mpirun` (local host, host list or
// host file). Resolves kAuto.
std::vector<std::string> LaunchCommand(LaunchOptions& options,
                                       const std::vector<std::string>& master);

}  // namespace bdmpi
