#include "bdmpiexec/launch_options.h"
#include "bdmpiexec/mpirun_path.h"

#include <unistd.h>

extern char** environ;

#include <cstdlib>

#include "common/cli.h"
#include "common/error.h"
#include "common/job_names.h"

namespace bdmpi {

const char kLaunchUsage[] =
    "usage: bdmpiexec [options] program [args...]\n"
    "\n"
    "Runs an MPI program linked with libbdmpi with more ranks than fit in\n"
    "memory: only RUNNING ranks per node run at a time; the others wait,\n"
    "descheduled at MPI's blocking points, with their messages buffered.\n"
    "\n"
    "  -nn N                 nodes: one master each (default: the Slurm\n"
    "                        allocation's node count, else 1)\n"
    "  -ns N                 slaves (MPI ranks) per node (default 1)\n"
    "  -nr N                 slaves running at once per node (default 1)\n"
    "  -nc N                 slaves allowed in a critical section (default 1)\n"
    "  --mem-threshold SIZE  messages larger than this go through disk\n"
    "                        (default 64k; k/m/g suffixes)\n"
    "  --mem-budget SIZE     bytes of small messages a master buffers in\n"
    "                        memory before spilling them too (default 256m)\n"
    "  --scratch-dir DIR     where the job's private spill directory goes\n"
    "                        (default $BDMPI_SCRATCH_DIR, $TMPDIR or /tmp)\n"
    "  --policy memory|fifo  which runnable slave resumes next (default\n"
    "                        memory: the one with most memory resident)\n"
    "  --no-bind             with -nr 1, do not keep the master and its\n"
    "                        slaves on one core\n"
    "  --storage-alloc on|off  serve large allocations (malloc, new, ...) from\n"
    "                        per-rank scratch files that the runtime writes\n"
    "                        back and drops while a rank waits, so that data\n"
    "                        larger than memory needs no swap (default on)\n"
    "  --storage-threshold SIZE  smallest allocation served from storage\n"
    "                        (default 1m)\n"
    "  --node-memory SIZE    memory per node for the ranks' storage-backed\n"
    "                        data; ranks that wait are switched out beyond it\n"
    "                        (default: the memory cgroup's limit, else the\n"
    "                        available memory, less a margin)\n"
    "  --prefetch eager|lazy how a resumed rank gets its data back: eager\n"
    "                        reads what it rewrote with large reads before\n"
    "                        its MPI call returns (the rest on first touch);\n"
    "                        lazy: all on first touch (default lazy)\n"
    "  --job-id ID           name of the job's IPC objects (default random)\n"
    "  --hostfile FILE       run the masters on these hosts (via mpirun)\n"
    "  --hosts H1,H2,...     the same, as a list\n"
    "  --topology FILE       lines 'HOST RACK': chains cross each rack once\n"
    "                        (default: Slurm's SLURM_TOPOLOGY_ADDR)\n"
    "  --launcher auto|local|mpirun|srun\n"
    "                        how masters start (default auto: srun inside a\n"
    "                        Slurm allocation, mpirun for several nodes)\n"
    "  --launcher-arg ARG    pass ARG to mpirun / srun (repeatable)\n"
    "  -v, --verbose         log what the master does (-v -v: debug)\n"
    "  -h, --help            this text\n"
    "\n"
    "Exit status: 0, or the first failing rank's (128+N for signal N).\n";

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

}  // namespace

LaunchOptions ParseLaunchOptions(int argc, char** argv) {
  LaunchOptions options;
  int i = 1;
  auto value = [&](const std::string& name) -> const char* {
    if (i + 1 >= argc) Bad(name + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return options;
    }
    if (arg == "-nn") options.nnodes = ParsePositiveInt("bdmpiexec", arg, value(arg));
    else if (arg == "-ns") options.nslaves = ParsePositiveInt("bdmpiexec", arg, value(arg));
    else if (arg == "-nr") options.nrunning = ParsePositiveInt("bdmpiexec", arg, value(arg));
    else if (arg == "-nc") options.ncritical = ParsePositiveInt("bdmpiexec", arg, value(arg));
    else if (arg == "--mem-threshold") options.mem_threshold = value(arg);
    else if (arg == "--mem-budget") options.mem_budget = value(arg);
    else if (arg == "--scratch-dir") options.scratch_dir = value(arg);
    else if (arg == "--policy") options.policy = value(arg);
    else if (arg == "--storage-alloc") {
      options.storage_alloc = value(arg);
      if (options.storage_alloc != "on" && options.storage_alloc != "off")
        Bad("--storage-alloc is on or off, got '" + options.storage_alloc + "'");
    } else if (arg == "--storage-threshold") options.storage_threshold = value(arg);
    else if (arg == "--node-memory") options.node_memory = value(arg);
    else if (arg == "--prefetch") {
      options.prefetch = value(arg);
      if (options.prefetch != "eager" && options.prefetch != "lazy")
        Bad("--prefetch is eager or lazy, got '" + options.prefetch + "'");
    }
    else if (arg == "--job-id") options.job_id = value(arg);
    else if (arg == "--no-bind") options.no_bind = true;
    else if (arg == "--hostfile") options.hostfile = value(arg);
    else if (arg == "--topology") options.topology_file = value(arg);
    else if (arg == "--hosts") options.hosts = value(arg);
    else if (arg == "--launcher-arg") options.launcher_args.emplace_back(value(arg));
    else if (arg == "--launcher") {
      std::string name = value(arg);
      if (name == "auto") options.launcher = Launcher::kAuto;
      else if (name == "local") options.launcher = Launcher::kLocal;
      else if (name == "mpirun") options.launcher = Launcher::kMpirun;
      else if (name == "srun") options.launcher = Launcher::kSrun;
      else Bad("--launcher is auto, local, mpirun or srun, got '" + name + "'");
    }
    else if (arg == "-v" || arg == "--verbose") ++options.verbosity;
    else Bad("unknown option '" + arg + "'");
  }
  for (; i < argc; ++i) options.program.emplace_back(argv[i]);
  if (options.program.empty()) Bad("no program given");
  if (options.nnodes == 0) {
    const char* slurm_nodes = std::getenv("SLURM_JOB_NUM_NODES");
    options.nnodes = slurm_nodes != nullptr ? std::atoi(slurm_nodes) : 1;
    if (options.nnodes < 1) options.nnodes = 1;
  }
  if (options.nrunning > options.nslaves) options.nrunning = options.nslaves;
  if (options.job_id.empty()) options.job_id = NewJobId();
  if (!ValidJobId(options.job_id))
    Bad("--job-id may hold only letters, digits, '-' and '_' (at most 32)");
  if (options.scratch_dir.empty()) options.scratch_dir = DefaultScratch();
  return options;
}

std::vector<std::string> MasterCommand(const LaunchOptions& options,
                                       const std::string& master_path) {
  std::vector<std::string> command = {
      master_path, "--job-id", options.job_id, "--scratch-dir", options.scratch_dir,
      "-ns", std::to_string(options.nslaves), "-nr", std::to_string(options.nrunning),
      "-nc", std::to_string(options.ncritical)};
  auto pass = [&](const char* name, const std::string& value) {
    if (value.empty()) return;
    command.emplace_back(name);
    command.push_back(value);
  };
  pass("--mem-threshold", options.mem_threshold);
  pass("--mem-budget", options.mem_budget);
  pass("--policy", options.policy);
  pass("--topology", options.topology_file);
  pass("--storage-alloc", options.storage_alloc);
  pass("--storage-threshold", options.storage_threshold);
  pass("--node-memory", options.node_memory);
  pass("--prefetch", options.prefetch);
  if (options.no_bind) command.emplace_back("--no-bind");
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
      // to: BDMPI's (logging, forced algorithms, chunk size) must agree.
      for (char** var = environ; *var != nullptr; ++var) {
        std::string entry(*var);
        if (entry.rfind("BDMPI_", 0) == 0)
          command.insert(command.end(), {"-x", entry.substr(0, entry.find('='))});
      }
      break;
  }
  command.insert(command.end(), options.launcher_args.begin(), options.launcher_args.end());
  command.insert(command.end(), master.begin(), master.end());
  return command;
}

}  // namespace bdmpi
