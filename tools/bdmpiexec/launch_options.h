// bdmpiexec's command line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bdmpi {

struct LaunchOptions {
  int nnodes = 1;
  int nslaves = 1;
  int nrunning = 1;
  int ncritical = 1;
  std::string mem_threshold;  // passed through (k/m/g suffixes)
  std::string mem_budget;
  std::string scratch_dir;
  std::string policy;
  std::string job_id;
  bool no_bind = false;
  int verbosity = 0;
  bool help = false;
  std::vector<std::string> program;
};

extern const char kLaunchUsage[];

// Throws Error(kErrArg) with a message on bad input. Fills job_id and
// scratch_dir with defaults when not given.
LaunchOptions ParseLaunchOptions(int argc, char** argv);

// The bdmprun command line for these options.
std::vector<std::string> MasterCommand(const LaunchOptions& options,
                                       const std::string& master_path);

}  // namespace bdmpi
