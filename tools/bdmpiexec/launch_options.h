// bdmpiexec's command line: the job's options (common/job_options.h), which
// it checks before anything starts and passes on to every bdmprun, and its
// own (how the masters start).
#pragma once

#include <string>
#include <vector>

#include "common/job_options.h"

namespace bdmpi {

enum class Launcher { kAuto, kLocal, kMpirun, kSrun };

struct LaunchOptions : JobOptions {
  int nnodes = 0;  // 0: the Slurm allocation's node count, else 1
  int verbosity = 0;
  bool help = false;
  Launcher launcher = Launcher::kAuto;
  std::string hostfile;
  std::string hosts;
  std::vector<std::string> launcher_args;  // passed to mpirun / srun
};

// --help, printed from the option tables.
extern const char* const kLaunchUsage;

// Throws Error(kErrArg) with a message naming the option on bad input, so
// that nothing starts: values out of range, a program that is not an
// executable file, a scratch directory that is not one. Fills job_id and
// scratch_dir with defaults when not given; warns on stderr about values
// it adjusts.
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
