#include "bdmpiexec/launch_options.h"
#include "bdmpiexec/foreign_options.h"
#include "bdmpiexec/mpirun_path.h"
#include "bdmpiexec/spread_ranks.h"

#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "common/cli.h"
#include "common/error.h"
#include "common/node_limits.h"
#include "common/program_path.h"

namespace bdmpi {

namespace {

[[noreturn]] void Bad(const std::string& message) {
  throw Error(kErrArg, "bdmpiexec: " + message);
}

std::string DefaultScratch() {
  for (const char* name : {"BDMPI_SCRATCH_DIR", "TMPDIR"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return value;
  }
  return "/tmp";
}

using LauncherRow = OptionRow<LaunchOptions>;
using JobRow = OptionRow<JobOptions>;

// MPICH's spelling of an exported variable, with two values: --env VAR VALUE.
constexpr const char* kEnvOption = "--env";

// Options that add to a list, or count, each time they are given; any
// other given twice is an error (which of the two was meant?).
const std::set<std::string> kRepeatable = {"--launcher-arg", "--verbose", "-x", kEnvOption};

bool IsVariableName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// -x VAR=VALUE, or -x VAR for this environment's VAR, which must be set.
ExportedVariable ParseExport(const std::string& option, const std::string& text) {
  std::size_t equals = text.find('=');
  ExportedVariable var{text.substr(0, equals), std::nullopt};
  if (!IsVariableName(var.name))
    throw Error(kErrArg, option + " needs VAR or VAR=VALUE, got '" + text + "'");
  if (equals != std::string::npos) var.value = text.substr(equals + 1);
  else if (std::getenv(var.name.c_str()) == nullptr)
    throw Error(kErrArg, option + " " + var.name + ": " + var.name +
                             " is not set here; give its value as " + var.name + "=VALUE");
  return var;
}

// --timeout's and MPIEXEC_TIMEOUT's seconds; 0 is no limit, as in Open MPI
// and MPICH.
int ParseSeconds(const std::string& what, const std::string& text) {
  return text == "0" ? 0 : ParsePositiveInt(what, text);
}

// -x and --env: each adds a variable for the ranks.
LauncherRow ExportOption(const char* name, std::string value_name, std::string help) {
  return LauncherRow(
      name, std::move(value_name), std::move(help),
      [name](LaunchOptions& o, const std::string& v) { o.exported.push_back(ParseExport(name, v)); },
      nullptr);
}

// bdmpiexec's own options; -nn, after the job's -n, first in --help, the
// others after the job's.
const std::vector<LauncherRow>& LauncherOptionTable() {
  static const std::vector<LauncherRow> table = {
      LauncherOnly(CountOption("-nn", &LaunchOptions::nnodes, "nodes: one master each")
                       .Default("the Slurm allocation's node count, else 1")),
      LauncherOnly(TextOption("--hostfile", &LaunchOptions::hostfile, "FILE",
                              "run the masters on these hosts (via mpirun)")),
      LauncherOnly(TextOption("--hosts", &LaunchOptions::hosts, "H1,H2,...",
                              "the same, as a list")),
      LauncherOnly(ChoiceOption("--launcher", &LaunchOptions::launcher,
                                {{"auto", Launcher::kAuto},
                                 {"local", Launcher::kLocal},
                                 {"mpirun", Launcher::kMpirun},
                                 {"srun", Launcher::kSrun}},
                                "how masters start (auto: srun inside a Slurm allocation, "
                                "mpirun for several nodes)")),
      LauncherRow("--launcher-arg", "ARG", "pass ARG to mpirun / srun (repeatable)",
                  [](LaunchOptions& o, const std::string& v) { o.launcher_args.push_back(v); },
                  nullptr),
      TextOption("--mpirun", &LaunchOptions::mpirun, "PATH",
                 "Open MPI's mpirun, which starts the masters of several nodes")
          .Default("the one BDMPI was built with, else the first in PATH that is not "
                   "BDMPI's own")
          .Variable("BDMPI_MPIRUN"),
      TextOption("--bdmprun", &LaunchOptions::bdmprun, "PATH", "the master program")
          .Default("bdmprun beside bdmpiexec")
          .Variable("BDMPI_BDMPRUN"),
      LauncherRow("--verbose", "", "log what the master does (-v -v: debug)",
                  [](LaunchOptions& o, const std::string&) { ++o.verbosity; }, nullptr)
          .Alias("-v"),
      ExportOption("-x", "VAR[=VALUE]",
                   "set VAR (or pass on this environment's VAR) in every rank, on every "
                   "node (repeatable)"),
      ExportOption(kEnvOption, "VAR VALUE", "the same as -x VAR=VALUE (repeatable)")
          .Alias("-env"),
      LauncherRow("--timeout", "SECONDS",
                  "end the job after this long, reporting the state of its ranks, "
                  "with exit status 124",
                  [](LaunchOptions& o, const std::string& v) {
                    o.timeout_s = ParseSeconds("--timeout", v);
                  },
                  nullptr, "$MPIEXEC_TIMEOUT, else none"),
      LauncherOnly(TextOption("--status", &LaunchOptions::status_job, "JOBID",
                              "print each rank of a running job on every node, with its "
                              "state (blocked ranks with their call), as SIGUSR1 to its "
                              "bdmpiexec does on the job's standard error")),
      LauncherOnly(FlagOption("--version", &LaunchOptions::version, true,
                              "print BDMPI's version and the MPI standard it implements")),
      LauncherOnly(FlagOption("--help", &LaunchOptions::help, true, "this text").Alias("-h")),
  };
  return table;
}

std::string MakeUsage() {
  const std::vector<LauncherRow>& own = LauncherOptionTable();
  const std::vector<JobRow>& job = JobOptionTable();
  return "usage: bdmpiexec [options] [--] program [args...]\n"
         "       (also installed as mpiexec and mpirun)\n"
         "\n"
         "Runs an MPI program linked with libbdmpi with more ranks than fit in\n"
         "memory: only RUNNING ranks per node run at a time; the others wait,\n"
         "descheduled at MPI's blocking points, with their messages buffered.\n"
         "\n" +
         OptionHelp(std::vector<JobRow>(job.begin(), job.begin() + 1)) +
         OptionHelp(std::vector<LauncherRow>(own.begin(), own.begin() + 1)) +
         OptionHelp(std::vector<JobRow>(job.begin() + 1, job.end())) +
         OptionHelp(std::vector<LauncherRow>(own.begin() + 1, own.end())) +
         "\n" + std::string(kForeignOptionsHelp) +
         "\n"
         "Every option is checked before anything starts; a bad one ends\n"
         "bdmpiexec with status 2 and a message naming it.\n"
         "Exit status: 0, or the first failing rank's (128+N for signal N);\n"
         "124 when the job reached its --timeout.\n";
}

// Masters on other hosts find the program themselves (it may exist only
// there); on this host it must be an executable file before anything starts.
void CheckProgramAndScratch(const LaunchOptions& options) {
  if (!options.hostfile.empty() || !options.hosts.empty()) return;
  ResolveProgram(options.program.front());
  struct stat st {};
  if (stat(options.scratch_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(kErrArg, "--scratch-dir " + options.scratch_dir + " is not a directory");
  if (access(options.scratch_dir.c_str(), W_OK | X_OK) != 0)
    throw Error(kErrArg, "--scratch-dir " + options.scratch_dir + ": " + std::strerror(errno));
}

// The masters this launch starts on this host (all of them, unless a host
// list or Slurm places them): what they need must fit this host's limits.
void CheckHostLimits(const LaunchOptions& options) {
  bool host_list = !options.hostfile.empty() || !options.hosts.empty();
  bool slurm = std::getenv("SLURM_JOB_ID") != nullptr && options.nnodes > 1 &&
               options.launcher != Launcher::kMpirun;
  if (host_list || slurm || options.launcher == Launcher::kSrun) return;
  HostShare share;
  share.masters = options.nnodes;
  share.ranks = options.nranks > 0 ? options.nranks
                                   : static_cast<long>(options.nslaves) * options.nnodes;
  share.ranks_per_master = (share.ranks + share.masters - 1) / share.masters;
  auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::size_t window = (options.mem_threshold + page - 1) / page * page;
  std::string problems = NodeLimitProblems(share, window, NodeLimits::OfThisHost());
  if (!problems.empty())
    throw Error(kErrArg, "this host cannot run the job as asked:\n" + problems);
}

}  // namespace

const char* const kLaunchUsage = [] {
  static const std::string usage = MakeUsage();
  return usage.c_str();
}();

const char* const kLaunchVersion =
    "bdmpiexec (BDMPI) " BDMPI_VERSION_STRING "\n"
    "BDMPI implements MPI 4.1 but for what its README's \"Left out\" names.\n";

LaunchOptions ParseLaunchOptions(int argc, char** argv) {
  LaunchOptions options;
  options.scratch_dir = DefaultScratch();
  std::map<std::string, std::string> given;  // row name -> spelling used
  auto apply_once = [&](const auto& row, const std::string& arg) {
    auto [previous, first] = given.emplace(row.name, arg);
    if (!first && !kRepeatable.contains(row.name))
      throw Error(kErrArg, previous->second == arg
                               ? arg + " is given twice; give it once"
                               : arg + " is given twice (also as " + previous->second +
                                     "); give it once");
  };
  std::set<std::string> warned;  // foreign options, one warning each
  std::function<bool(const std::string&, const std::function<std::string()>&)> apply =
      [&](const std::string& arg, const std::function<std::string()>& value_of) {
        if (const LauncherRow* row = FindOption(LauncherOptionTable(), arg)) {
          apply_once(*row, arg);
          std::string value = row->Flag() ? std::string() : value_of();
          if (row->name == kEnvOption) value += "=" + value_of();
          row->set(options, value);
        } else if (const OptionRow<JobOptions>* job = FindOption(JobOptionTable(), arg)) {
          apply_once(*job, arg);
          job->set(options, job->Flag() ? std::string() : value_of());
        } else if (const ForeignOption* foreign = FindForeignOption(arg)) {
          std::string value = foreign->values > 0 ? value_of() : std::string();
          for (int extra = 1; extra < foreign->values; ++extra) value_of();
          NativeOption native = foreign->translate ? foreign->translate(value) : NativeOption{};
          if (!native.name.empty()) return apply(native.name, [&] { return native.value; });
          if (foreign->ignored_because != nullptr && warned.insert(arg).second)
            std::fprintf(stderr, "bdmpiexec: warning: %s has no effect: %s\n", arg.c_str(),
                         foreign->ignored_because);
        } else {
          return false;
        }
        return true;
      };
  options.program = ScanCommandLine("bdmpiexec", argc, argv, apply);
  if (options.help || options.version || !options.status_job.empty()) return options;
  try {
    auto given_here = [&](const std::string& name) { return given.contains(name); };
    ApplyVariables<JobOptions>(JobOptionTable(), options, given_here);
    ApplyVariables(LauncherOptionTable(), options, given_here);
    // MPMD (`mpiexec -n 2 a : -n 2 b`): a ':' the user did not protect
    // with '--' would otherwise reach the program as an argument.
    bool after_dashes = argc > static_cast<int>(options.program.size()) &&
                        std::string(argv[argc - options.program.size() - 1]) == "--";
    for (const std::string& arg : options.program) {
      if (arg == ":" && !after_dashes)
        throw Error(kErrArg, "MPMD launches ('prog1 : prog2') are not supported: every rank "
                             "of a BDMPI job runs the same program (put '--' before the "
                             "program to pass it a ':' argument)");
    }
    if (!options.hostfile.empty() && !options.hosts.empty())
      throw Error(kErrArg, "--hostfile and --hosts contradict each other: give one");
    std::string nodes_from = "-nn";
    if (options.nnodes == 0) {
      const char* slurm_nodes = std::getenv("SLURM_JOB_NUM_NODES");
      options.nnodes = slurm_nodes != nullptr ? std::atoi(slurm_nodes) : 1;
      if (options.nnodes < 1) options.nnodes = 1;
      nodes_from = slurm_nodes != nullptr ? "the Slurm allocation" : "no -nn given";
    }
    SpreadRanks(options, given.contains("-ns"), nodes_from);
    if (!given.contains("--timeout")) {
      const char* limit = std::getenv("MPIEXEC_TIMEOUT");
      if (limit != nullptr && *limit != '\0')
        options.timeout_s = ParseSeconds("MPIEXEC_TIMEOUT", limit);
    }
    FinishJobOptions(options);
    // Off stays the default, not passed on: the masters show the line only when told.
    if (options.progress == Progress::kAuto && isatty(STDOUT_FILENO))
      options.progress = Progress::kOn;
    CheckProgramAndScratch(options);
    CheckHostLimits(options);
  } catch (const Error& error) {
    Bad(error.what());
  }
  // -nr is a ceiling, not a count of processes: like OMP_NUM_THREADS above
  // the work there is, more than -ns cannot run, and a script that passes
  // the core count for every -ns should not fail. Open MPI and MPICH refuse
  // only what they cannot start (-np beyond the slots), which -nr is not;
  // the warning says what runs.
  if (options.nrunning > options.nslaves) {
    std::fprintf(stderr, "bdmpiexec: warning: -nr %d is more than -ns %d: %d rank(s) per "
                 "node run at once\n", options.nrunning, options.nslaves, options.nslaves);
    options.nrunning = options.nslaves;
  }
  return options;
}

void ExportVariables(const LaunchOptions& options) {
  SetVariables<JobOptions>(JobOptionTable(), options);
  SetVariables(LauncherOptionTable(), options);
  for (const ExportedVariable& var : options.exported) {
    if (var.value) setenv(var.name.c_str(), var.value->c_str(), 1);
  }
}

std::vector<std::string> MasterCommand(const LaunchOptions& options,
                                       const std::string& master_path) {
  // The job id first, where `pgrep -f "bdmprun --job-id ID"` finds it.
  std::vector<std::string> command = {master_path, "--job-id", options.job_id};
  JobOptions rest = options;
  rest.job_id.clear();
  std::vector<std::string> args = JobOptionArgs(rest);
  command.insert(command.end(), args.begin(), args.end());
  command.emplace_back("--");
  command.insert(command.end(), options.program.begin(), options.program.end());
  return command;
}

std::vector<std::string> LaunchCommand(LaunchOptions& options,
                                       const std::vector<std::string>& master) {
  bool in_slurm = std::getenv("SLURM_JOB_ID") != nullptr;
  bool host_list = !options.hostfile.empty() || !options.hosts.empty();
  if (options.launcher == Launcher::kAuto) {
    if (in_slurm && !host_list && options.nnodes > 1) options.launcher = Launcher::kSrun;
    else if (options.nnodes > 1 || host_list) options.launcher = Launcher::kMpirun;
    else options.launcher = Launcher::kLocal;
  }
  std::vector<std::string> command;
  std::string nnodes = std::to_string(options.nnodes);
  switch (options.launcher) {
    case Launcher::kAuto:
    case Launcher::kLocal:
      if (options.nnodes != 1) Bad("--launcher local runs one node; use mpirun or srun");
      return master;
    case Launcher::kSrun:
      // One master per node; a master that fails ends the step.
      command = {"srun", "--mpi=pmix", "--kill-on-bad-exit=1", "-N", nnodes, "-n", nnodes,
                 "--ntasks-per-node=1"};
      break;
    case Launcher::kMpirun:
      // Unaggregated help output: when several masters abort at once the
      // aggregator itself fails with garbled ORTE_ERROR_LOG lines.
      command = {OpenMpiMpirun(), "-np", nnodes, "--bind-to", "none", "--mca",
                 "orte_base_help_aggregate", "0"};
      if (geteuid() == 0) command.emplace_back("--allow-run-as-root");
      if (!options.hostfile.empty()) {
        command.insert(command.end(), {"--hostfile", options.hostfile, "--map-by", "node"});
      } else if (!options.hosts.empty()) {
        command.insert(command.end(), {"--host", options.hosts, "--map-by", "node"});
      } else {
        // Several masters on this host, each acting as its own node.
        command.emplace_back("--oversubscribe");
      }
      // Open MPI passes on to other hosts only the variables it is told
      // to: BDMPI's (logging, forced algorithms, chunk size) must agree,
      // and those of -x and --env are the user's (ExportVariables set them).
      for (char** var = environ; *var != nullptr; ++var) {
        std::string entry(*var);
        if (entry.rfind("BDMPI_", 0) == 0)
          command.insert(command.end(), {"-x", entry.substr(0, entry.find('='))});
      }
      // LD_PRELOAD travels as BDMPI_RANKS_LD_PRELOAD (launch_environment.h).
      for (const ExportedVariable& var : options.exported)
        if (var.name != "LD_PRELOAD") command.insert(command.end(), {"-x", var.name});
      break;
  }
  command.insert(command.end(), options.launcher_args.begin(), options.launcher_args.end());
  command.insert(command.end(), master.begin(), master.end());
  return command;
}

}  // namespace bdmpi
