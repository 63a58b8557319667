// Singleton start. Without bdmpiexec there is no master, and a
// rank cannot work without one: the master owns the message queues, the
// scheduling and the clean-up after a crash, and starts its slaves itself.
// So MPI_Init replaces the process (same pid, same parent, same terminal)
// with bdmpiexec running this program as a job of one rank. bdmpiexec then
// does what it does for every job, so a singleton is cleaned up on every
// exit path by the same tested code, and its exit status is the rank's.
//
// The price: what the program did before MPI_Init runs again in the rank
// (output printed before MPI_Init appears twice). The MPI standard leaves
// the state before MPI_Init unspecified, and most programs call it first.
//
// Started as several tasks by another launcher (`srun ./prog` in a Slurm
// allocation, another MPI's mpiexec), each task would become a job of its
// own; MPI_Init refuses at once and names the command to use instead.
#include "slave/runtime/singleton.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/job_names.h"
#include "common/rank_wiring.h"
#include "common/launch_guard.h"

namespace bdmpi {
namespace {

constexpr const char* kEnvSingletonOptions = "BDMPI_SINGLETON_OPTIONS";

std::string ReadLink(const char* path) {
  char target[PATH_MAX];
  ssize_t n = readlink(path, target, sizeof target - 1);
  if (n <= 0) throw Error(kErrOther, std::string("cannot read ") + path);
  return std::string(target, static_cast<std::size_t>(n));
}

std::string DirectoryOf(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// bdmpiexec of the BDMPI this library belongs to: libbdmpi sits in lib/
// (or lib/<multiarch>/) and bdmpiexec in the sibling bin/, in the build
// tree and the install tree alike. A static libbdmpi.a has no place of its
// own; then bdmpiexec is looked up in PATH.
std::string FindLauncher() {
  if (const char* path = std::getenv("BDMPI_BDMPIEXEC")) return path;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&BecomeSingletonJobUnlessLaunched), &info) != 0 &&
      info.dli_fname != nullptr) {
    char resolved[PATH_MAX];
    if (realpath(info.dli_fname, resolved) != nullptr &&
        std::strstr(resolved, "/libbdmpi.so") != nullptr) {
      std::string dir = DirectoryOf(resolved);
      for (const char* up : {"/../bin/bdmpiexec", "/../../bin/bdmpiexec"}) {
        std::string candidate = dir + up;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
      }
    }
  }
  return "bdmpiexec";
}

// This process's arguments as the kernel holds them: MPI_Init may be given
// null argc/argv, and the program may have consumed its own.
std::vector<std::string> OwnArguments() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t start = 0; start < all.size();) {
    std::size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    args.emplace_back(all, start, end - start);
    start = end + 1;
  }
  return args;
}

// The number of tasks a parallel launcher other than bdmpiexec started this
// program as (srun, or another MPI's mpiexec through PMI/PMIx), and the
// launcher's name; 0 when none did or it started just one.
int ForeignTaskCount(std::string& launcher) {
  struct Source {
    const char* size_variable;
    const char* launcher;
  };
  // SLURM_STEP_NUM_TASKS is the step's (srun's) own; SLURM_NTASKS is also
  // set in a batch script, where a direct start is a plain singleton.
  for (const Source& source : {Source{"SLURM_STEP_NUM_TASKS", "srun"},
                               Source{"PMI_SIZE", "a PMI launcher (another MPI's mpiexec)"},
                               Source{"PMIX_SIZE", "a PMIx launcher"},
                               Source{"OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun"}}) {
    const char* value = std::getenv(source.size_variable);
    int tasks = value != nullptr ? std::atoi(value) : 0;
    if (tasks > 1) {
      launcher = source.launcher;
      return tasks;
    }
  }
  return 0;
}

std::string Named(const std::string& exe) {
  return exe.empty() ? std::string("this process") : exe;
}

}  // namespace

void RefuseOutsideRank() {
  std::string exe = OwnExecutable();
  std::string base = exe.substr(exe.rfind('/') + 1);
  const char* preload = std::getenv("LD_PRELOAD");
  std::string how = preload != nullptr ? " (LD_PRELOAD=" + std::string(preload) + ")" : "";
  if (const char* launch = std::getenv(kEnvInLaunch))
    throw Error(kErrOther,
                "libbdmpi's MPI_Init was called in " + Named(exe) + how +
                    ", a process of the launch of bdmpiexec " + launch + " (" + kEnvInLaunch +
                    " is set: bdmprun, mpirun, orted or srun, or a program BDMPI_BDMPRUN or "
                    "BDMPI_MPIRUN names), not in a rank; it refuses, since starting a job "
                    "there would start the launch again. BDMPI_BDMPRUN and BDMPI_MPIRUN must "
                    "name bdmprun and Open MPI's mpirun; a preload for the ranks goes to "
                    "bdmpiexec (-x LD_PRELOAD=...), which passes it to the ranks only");
  if (base == "bdmprun" || base == "bdmpiexec")
    throw Error(kErrOther, "libbdmpi's MPI_Init was called in " + exe + how +
                               ", BDMPI's own launcher, not in a rank; it refuses");
  std::string other = LoadedLibrary("libmpi.so");
  if (!other.empty())
    throw Error(kErrOther,
                "libbdmpi's MPI_Init was called in " + Named(exe) + how +
                    ", which also has another MPI library, " + other +
                    " (a program built with another MPI, such as BDMPI's master bdmprun, "
                    "that a preload of libbdmpi reached); it refuses. Build the program with "
                    "bdmpicc, or keep libbdmpi out of its LD_PRELOAD");
}

void BecomeSingletonJobUnlessLaunched() {
  if (wiring::Find(Wire::kJobId) != nullptr) return;
  // A child (or later descendant) of a rank has the rank's environment, and
  // with it the rank's preload: it is not a rank, and starting a job from
  // it is not what anyone asked for.
  if (const char* master = wiring::Find(Wire::kMasterPid))
    throw Error(kErrOther,
                Named(OwnExecutable()) + " descends from a rank of a BDMPI job (" +
                    kEnvMasterPid + "=" + master + " is set but " + kEnvJobId +
                    " is not) and is not a rank itself; its MPI_Init refuses to start a job "
                    "of its own. Start MPI programs with bdmpiexec");
  // The launcher the singleton start ran came back here, the same process
  // or one it started, instead of starting a job: it is not bdmpiexec.
  if (const char* start = std::getenv(kEnvSingletonStart))
    throw Error(kErrOther,
                "this program was started by its own singleton start (process " +
                    std::string(start) + "), whose launcher " + FindLauncher() +
                    " ran it again instead of starting a job: it refuses, since that would "
                    "go on without end. BDMPI_BDMPIEXEC must name bdmpiexec (or a script "
                    "that execs it), not the program");
  // Each of N tasks would start a job of one rank of its own: N jobs that
  // cannot talk to each other, none of them the job the user asked for.
  std::string foreign;
  if (int tasks = ForeignTaskCount(foreign)) {
    std::vector<std::string> args = OwnArguments();
    std::string program = args.empty() ? "./prog" : args.front();
    throw Error(kErrOther, "this program was started by " + foreign + " as one of " +
                               std::to_string(tasks) +
                               " tasks, which would make each task a separate BDMPI job of "
                               "one rank; start BDMPI programs with `mpiexec -n " +
                               std::to_string(tasks) + " " + program + "` (or bdmpiexec), which starts "
                               "the ranks itself, in the batch script instead of " + foreign);
  }
  std::string launcher = FindLauncher();
  std::vector<std::string> command = {launcher, "-nn", "1", "-ns", "1", "-nr", "1"};
  // More bdmpiexec options (--node-memory, --scratch-dir, --job-id, -v ...)
  // for a program that is started directly, in its environment.
  if (const char* options = std::getenv(kEnvSingletonOptions)) {
    std::istringstream words(options);
    for (std::string word; words >> word;) command.push_back(word);
  }
  command.push_back("--");
  command.push_back(ReadLink("/proc/self/exe"));
  std::vector<std::string> args = OwnArguments();
  if (!args.empty()) command.insert(command.end(), args.begin() + 1, args.end());

  std::vector<char*> argv;
  for (std::string& arg : command) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // Output written before MPI_Init must not be lost with the old image.
  std::fflush(nullptr);
  setenv(kEnvSingletonStart, std::to_string(getpid()).c_str(), 1);
  execvp(argv[0], argv.data());
  unsetenv(kEnvSingletonStart);
  throw Error(kErrOther, "this program was started without bdmpiexec and could not "
                         "start it to run as a job of one rank (" + launcher + ": " +
                         std::strerror(errno) + "); put BDMPI's bin directory in "
                         "PATH, or start the program with bdmpiexec or mpiexec");
}

}  // namespace bdmpi
