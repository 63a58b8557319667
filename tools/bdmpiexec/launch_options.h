// bdmpiexec's command line: the job's options (common/job_options.h), which
// it checks before anything starts and passes on to every bdmprun, and its
// own (how the masters start).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/job_options.h"

namespace bdmpi {

enum class Launcher { kAuto, kLocal, kMpirun, kSrun };

// A variable -x or --env gives the ranks: a value, or this environment's.
struct ExportedVariable {
  std::string name;
  std::optional<std::string> value;  // none: pass on the launcher's own
};

struct LaunchOptions : JobOptions {
  int nnodes = 0;   // 0: the Slurm allocation's node count, else 1
  int timeout_s = 0;  // --timeout / MPIEXEC_TIMEOUT; 0: no limit
  int verbosity = 0;
  bool help = false;
  bool version = false;
  std::vector<ExportedVariable> exported;
  Launcher launcher = Launcher::kAuto;
  std::string hostfile;
  std::string hosts;
  std::vector<std::string> launcher_args;  // passed to mpirun / srun
  // --status JOBID: ask that running job's masters for their ranks' state.
  std::string status_job;
  // Settings carried by their variables (OptionRow::variable).
  std::string mpirun;   // BDMPI_MPIRUN: Open MPI's mpirun (mpirun_path.h)
  std::string bdmprun;  // BDMPI_BDMPRUN: the master program
};

// --help, printed from the option tables.
extern const char* const kLaunchUsage;

// --version: BDMPI's version and the MPI standard it implements.
extern const char* const kLaunchVersion;

// Throws Error(kErrArg) with a message naming the option on bad input, so
// that nothing starts: values out of range, an option given twice, -n
// against -nn/-ns, MPMD syntax, a program that is not an executable file, a
// scratch directory that is not one. Derives -ns from -n (spread_ranks.h). Fills job_id and
// scratch_dir with defaults when not given; warns on stderr about values
// it adjusts.
LaunchOptions ParseLaunchOptions(int argc, char** argv);

// Sets the settings' variables (OptionRow::variable) and then those of
// -x VAR=VALUE and --env in this process, whose environment the masters
// and (through them) the ranks inherit.
void ExportVariables(const LaunchOptions& options);

// The bdmprun command line for these options.
std::vector<std::string> MasterCommand(const LaunchOptions& options,
                                       const std::string& master_path);

// How the masters start: bdmprun itself on one node, else wrapped in
// `srun` inside a Slurm allocation or `mpirun` (local host, host list or
// host file). Resolves kAuto.
std::vector<std::string> LaunchCommand(LaunchOptions& options,
                                       const std::vector<std::string>& master);

}  // namespace bdmpi
