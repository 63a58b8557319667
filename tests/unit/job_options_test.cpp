// The options schema (common/job_options.h) as bdmpiexec uses it: parsing
// with both tables, what it passes on to bdmprun and the slaves, --help,
// and the checks that must fail before anything starts.
#include "bdmpiexec/launch_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/byte_size.h"
#include "common/coll_engine.h"
#include "common/error.h"
#include "collectives/select.h"
#include "common/job_names.h"
#include "common/launch_guard.h"
#include "master/options.h"

namespace bdmpi {
namespace {

std::vector<char*> Argv(std::vector<std::string>& storage) {
  std::vector<char*> argv;
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return argv;
}

LaunchOptions Launch(std::initializer_list<std::string> args) {
  std::vector<std::string> storage = {"bdmpiexec"};
  storage.insert(storage.end(), args);
  std::vector<char*> argv = Argv(storage);
  return ParseLaunchOptions(static_cast<int>(storage.size()), argv.data());
}

// The message of the error Launch(args) throws; "" if none.
std::string LaunchError(std::initializer_list<std::string> args) {
  try {
    Launch(args);
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), kErrArg);
    return error.what();
  }
  return "";
}

MasterOptions Master(std::vector<std::string> storage) {
  std::vector<char*> argv = Argv(storage);
  return ParseMasterOptions(static_cast<int>(storage.size()), argv.data());
}

const std::string kProgram = "/bin/true";

TEST(JobOptionsTest, EveryRowHasNameHelpAndRoundTrips) {
  for (const OptionRow<JobOptions>& row : JobOptionTable()) {
    EXPECT_EQ(row.name.rfind('-', 0), 0u) << row.name;
    EXPECT_FALSE(row.help.empty()) << row.name;
    ASSERT_TRUE(row.set && row.get) << row.name;
    EXPECT_EQ(FindOption(JobOptionTable(), row.name), &row);
  }
}

TEST(JobOptionsTest, BdmprunGetsWhatBdmpiexecParsed) {
  LaunchOptions launched =
      Launch({"-ns", "6", "-nr", "3", "-nc", "2", "--mem-threshold", "8k", "--mem-budget", "3g",
              "--policy", "fifo", "--no-bind", "--storage-alloc", "off",
              "--storage-threshold", "64k", "--node-memory", "2g", "--prefetch", "eager",
              "--topology", "racks.txt", "--job-id", "job_1", "--scratch-dir", "/tmp",
              kProgram, "-ns", "arg"});
  std::vector<std::string> command = MasterCommand(launched, "bdmprun");
  // pgrep -f "bdmprun --job-id ID" finds the masters (tests/multinode).
  ASSERT_GE(command.size(), 3u);
  EXPECT_EQ(command[1], "--job-id");
  EXPECT_EQ(command[2], "job_1");
  MasterOptions master = Master(command);
  EXPECT_EQ(master.job_id, "job_1");
  EXPECT_EQ(master.nslaves, 6);
  EXPECT_EQ(master.nrunning, 3);
  EXPECT_EQ(master.ncritical, 2);
  EXPECT_EQ(master.mem_threshold, 8u << 10);
  EXPECT_EQ(master.mem_budget, 3ull << 30);
  EXPECT_EQ(master.policy, SchedulePolicy::kFifo);
  EXPECT_FALSE(master.bind);
  EXPECT_FALSE(master.storage_alloc);
  EXPECT_EQ(master.storage_threshold, 64u << 10);
  EXPECT_EQ(master.node_memory, 2ull << 30);
  EXPECT_EQ(master.prefetch, Prefetch::kEager);
  EXPECT_EQ(master.topology_file, "racks.txt");
  EXPECT_EQ(master.scratch_dir, "/tmp");
  EXPECT_EQ(master.program, (std::vector<std::string>{kProgram, "-ns", "arg"}));
}

TEST(JobOptionsTest, DefaultsAreNotPassedOn) {
  LaunchOptions launched = Launch({"--job-id", "j", "--scratch-dir", "/tmp", kProgram});
  EXPECT_EQ(MasterCommand(launched, "bdmprun"),
            (std::vector<std::string>{"bdmprun", "--job-id", "j", "--", kProgram}));
}

TEST(JobOptionsTest, SlavesGetTheRowsVariables) {
  MasterOptions options =
      Master({"bdmprun", "--single-copy", "off", "--storage-alloc", "off",
              "--storage-threshold", "8k", "--prefetch", "eager", "p"});
  std::vector<std::string> env = JobOptionEnvironment(options);
  EXPECT_EQ(env, (std::vector<std::string>{std::string(kEnvSingleCopy) + "=off",
                                           std::string(kEnvStorageAlloc) + "=off",
                                           std::string(kEnvStorageThreshold) + "=8192",
                                           std::string(kEnvPrefetch) + "=eager"}));
  EXPECT_TRUE(IsJobOptionVariable("BDMPI_PREFETCH=lazy"));
  EXPECT_FALSE(IsJobOptionVariable("BDMPI_PREFETCHX=lazy"));
  EXPECT_FALSE(IsJobOptionVariable("BDMPI_PREFETCH"));
}

// What a rank's tool interface reads back (BDMPI_JOB_SETTINGS): the
// master's options, with values holding spaces intact.
TEST(JobOptionsTest, SettingsTextRoundTrips) {
  MasterOptions options =
      Master({"bdmprun", "-ns", "6", "-nr", "3", "--mem-threshold", "8k", "--no-bind",
              "--prefetch", "eager", "--scratch-dir", "/tmp", "--topology", "a file.txt",
              "--report", "p"});
  JobOptions back = ParseJobSettings(JobSettingsText(options));
  EXPECT_EQ(back.nslaves, 6);
  EXPECT_EQ(back.nrunning, 3);
  EXPECT_EQ(back.mem_threshold, 8u << 10);
  EXPECT_FALSE(back.bind);
  EXPECT_TRUE(back.report);
  EXPECT_EQ(back.prefetch, Prefetch::kEager);
  EXPECT_EQ(back.topology_file, "a file.txt");
  EXPECT_EQ(back.job_id, options.job_id);
  EXPECT_EQ(ParseJobSettings("").nslaves, JobOptions{}.nslaves);
  EXPECT_THROW(ParseJobSettings("--no-such-option"), Error);
  EXPECT_THROW(ParseJobSettings("-ns"), Error);
}

TEST(JobOptionsTest, HelpListsEveryOptionWithItsDefault) {
  std::string usage = kLaunchUsage;
  for (const OptionRow<JobOptions>& row : JobOptionTable()) {
    std::string names = row.alias.empty() ? row.name : row.alias + ", " + row.name;
    EXPECT_NE(usage.find("  " + names), std::string::npos) << row.name;
  }
  for (const char* own : {"-n, -np N", "-nn N", "-x VAR[=VALUE]", "-env, --env VAR VALUE",
                          "--timeout SECONDS", "--version", "--hostfile FILE", "--launcher auto|local|mpirun|srun",
                          "-v, --verbose", "-h, --help"})
    EXPECT_NE(usage.find(own), std::string::npos) << own;
  EXPECT_NE(usage.find("(default 64k)"), std::string::npos);
  EXPECT_NE(usage.find("(default 256m)"), std::string::npos);
  for (std::size_t start = 0, end; (end = usage.find('\n', start)) != std::string::npos;
       start = end + 1)
    EXPECT_LE(end - start, 78u) << usage.substr(start, end - start);
}

// Settings read with getenv where they are used: given as options or as
// their variables, checked by bdmpiexec, and set as variables for the
// masters and ranks instead of passed on as arguments.
class VariableRowsTest : public ::testing::Test {
 protected:
  void SetUp() override { Clear(); }
  void TearDown() override { Clear(); }
  static void Clear() {
    for (const OptionRow<JobOptions>& row : JobOptionTable())
      if (!row.variable.empty()) unsetenv(row.variable.c_str());
    unsetenv("BDMPI_MPIRUN");
    unsetenv("BDMPI_BDMPRUN");
  }
  static std::string Env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "(unset)";
  }
};

TEST_F(VariableRowsTest, OptionsBecomeVariablesNotArguments) {
  LaunchOptions launched =
      Launch({"--job-id", "j", "--scratch-dir", "/tmp", "--placed-messages", "64k",
              "--preload", "off", "--peer-timeout", "2.5", "--bcast-algorithm", "chain",
              "--chunk-size", "1m", "--log", "info", "--log-categories", "disk,sched",
              "--mpirun", "/opt/mpirun", kProgram});
  EXPECT_EQ(MasterCommand(launched, "bdmprun"),
            (std::vector<std::string>{"bdmprun", "--job-id", "j", "--", kProgram}));
  ExportVariables(launched);
  EXPECT_EQ(Env(kEnvPlacedMessages), "65536");
  EXPECT_EQ(Env(kEnvPreload), "off");
  EXPECT_EQ(Env(kEnvPeerTimeout), "2.5");
  EXPECT_EQ(Env("BDMPI_BCAST_ALGORITHM"), "chain");
  EXPECT_EQ(Env("BDMPI_CHUNK_SIZE"), "1048576");
  EXPECT_EQ(Env("BDMPI_LOG"), "info");
  EXPECT_EQ(Env("BDMPI_LOG_CATEGORIES"), "disk,sched");
  EXPECT_EQ(Env("BDMPI_MPIRUN"), "/opt/mpirun");
  EXPECT_EQ(Env("BDMPI_BDMPRUN"), "(unset)");
}

TEST_F(VariableRowsTest, TheVariableIsTheDefaultAndTheOptionWins) {
  setenv(kEnvPlacedMessages, "off", 1);
  setenv("BDMPI_ALLREDUCE_ALGORITHM", "ring", 1);
  setenv(kEnvPeerTimeout, "120", 1);
  LaunchOptions launched = Launch({"--placed-messages", "on", kProgram});
  EXPECT_EQ(launched.placed_messages, "");
  EXPECT_EQ(launched.allreduce_algorithm, "ring");
  ExportVariables(launched);
  // The default: unset, which is what the readers take for it.
  EXPECT_EQ(Env(kEnvPlacedMessages), "(unset)");
  EXPECT_EQ(Env(kEnvPeerTimeout), "(unset)");
  EXPECT_EQ(Env("BDMPI_ALLREDUCE_ALGORITHM"), "ring");
}

TEST_F(VariableRowsTest, BadValuesNameTheVariableOrTheOption) {
  setenv("BDMPI_REDUCE_ALGORITHM", "ring", 1);
  std::string message = LaunchError({kProgram});
  EXPECT_NE(message.find("BDMPI_REDUCE_ALGORITHM=ring"), std::string::npos) << message;
  EXPECT_NE(message.find("--reduce-algorithm is auto|binomial|chain"), std::string::npos)
      << message;
  unsetenv("BDMPI_REDUCE_ALGORITHM");
  EXPECT_NE(LaunchError({"--peer-timeout", "-1", kProgram}).find("--peer-timeout"),
            std::string::npos);
  EXPECT_NE(LaunchError({"--chunk-size", "0", kProgram}).find("--chunk-size"),
            std::string::npos);
  EXPECT_NE(LaunchError({"--log", "loud", kProgram}).find("--log is"), std::string::npos);
  EXPECT_NE(LaunchError({"--placed-messages", "sometimes", kProgram})
                .find("--placed-messages"),
            std::string::npos);
  EXPECT_NE(LaunchError({"--direct-queue", "1", kProgram}).find("--direct-queue takes on or off"),
            std::string::npos);
}

TEST_F(VariableRowsTest, TheInboxIsOnUnlessTurnedOff) {
  LaunchOptions on = Launch({kProgram});
  ExportVariables(on);
  EXPECT_EQ(Env(kEnvDirectQueue), "(unset)");
  LaunchOptions off = Launch({"--direct-queue", "off", kProgram});
  ExportVariables(off);
  EXPECT_EQ(Env(kEnvDirectQueue), "off");
  unsetenv(kEnvDirectQueue);
}

// The rows' names are the ones collectives/select.cpp takes, and it
// refuses what the rows refuse.
TEST(CollEngineTest, ParsesWhatEachCollectiveCanTake) {
  ForcedEngines none = ParseCollEngines("auto", "--coll-engine");
  for (CollEngine engine : none) EXPECT_EQ(engine, CollEngine::kAuto);
  ForcedEngines forced =
      ParseCollEngines("allreduce=fold_bcast,scan=schedule,bcast=auto", "--coll-engine");
  EXPECT_EQ(forced[static_cast<std::size_t>(CollKind::kAllreduce)], CollEngine::kFoldBcast);
  EXPECT_EQ(forced[static_cast<std::size_t>(CollKind::kScan)], CollEngine::kSchedule);
  EXPECT_EQ(forced[static_cast<std::size_t>(CollKind::kBcast)], CollEngine::kAuto);
  EXPECT_EQ(forced[static_cast<std::size_t>(CollKind::kBarrier)], CollEngine::kAuto);
  // Every collective takes the schedule; scans take no master, only the
  // allreduce takes fold_bcast; inter is never forced.
  for (std::size_t k = 0; k < kNumCollKinds; ++k) {
    auto kind = static_cast<CollKind>(k);
    EXPECT_TRUE(EngineServes(CollEngine::kSchedule, kind)) << CollKindName(kind);
    EXPECT_FALSE(EngineServes(CollEngine::kInter, kind)) << CollKindName(kind);
  }
  auto message = [](const std::string& text) {
    try {
      ParseCollEngines(text, "--coll-engine");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message("scan=master"),
            "--coll-engine: master cannot serve scan (engines for scan: auto|schedule|chain)");
  EXPECT_EQ(message("bcast=fold_bcast"),
            "--coll-engine: fold_bcast cannot serve bcast (engines for bcast: "
            "auto|master|schedule|node)");
  EXPECT_EQ(message("bcast=ring"),
            "--coll-engine: no engine 'ring' (engines for bcast: auto|master|schedule|node)");
  // The node engine serves the barrier, the bcast and the allreduce.
  EXPECT_EQ(message("barrier=node,bcast=node,allreduce=node"), "(accepted)");
  EXPECT_EQ(message("reduce=node"),
            "--coll-engine: node cannot serve reduce (engines for reduce: auto|master|schedule)");
  EXPECT_EQ(NodeCollCallOfTag(NodeCollTag(CollKind::kBcast)), "MPI_Bcast");
  EXPECT_EQ(NodeCollCallOfTag(NodeCollTag(CollKind::kReduce)), "");
  EXPECT_EQ(message("gather=schedule"),
            "--coll-engine: no collective 'gather' (kinds: "
            "barrier|bcast|reduce|allreduce|scan|exscan)");
  EXPECT_EQ(message("bcast"), "--coll-engine: 'bcast' is not KIND=ENGINE (kinds: "
                              "barrier|bcast|reduce|allreduce|scan|exscan)");
  EXPECT_EQ(message("bcast=master,bcast=schedule"), "--coll-engine: bcast is given twice");
  EXPECT_NE(message("reduce=inter").find("inter cannot be forced"), std::string::npos);
}

TEST_F(VariableRowsTest, CollEngineIsCheckedAtTheLaunch) {
  EXPECT_EQ(LaunchError({"--coll-engine", "exscan=master", kProgram}),
            "bdmpiexec: --coll-engine: master cannot serve exscan (engines for exscan: "
            "auto|schedule|chain)");
  setenv("BDMPI_COLL_ENGINE", "allreduce=chain", 1);
  EXPECT_NE(LaunchError({kProgram}).find("BDMPI_COLL_ENGINE=allreduce=chain"),
            std::string::npos);
}

TEST_F(VariableRowsTest, AlgorithmRowsMatchTheSelection) {
  int rows = 0;
  for (const OptionRow<JobOptions>& row : JobOptionTable()) {
    if (row.variable.find("_ALGORITHM") == std::string::npos) continue;
    ++rows;
    std::string names = row.value_name;
    for (std::size_t start = 0, end = 0; end != std::string::npos; start = end + 1) {
      end = names.find('|', start);
      std::string name = names.substr(start, end - start);
      if (name == "auto") continue;
      JobOptions options;
      EXPECT_NO_THROW(row.set(options, name)) << row.name << " " << name;
      EXPECT_NO_THROW(coll::Tuning::FromEnvironment([&](const char* v) {
        return row.variable == v ? name.c_str() : nullptr;
      })) << row.variable << "=" << name;
    }
    JobOptions options;
    EXPECT_THROW(row.set(options, "bogus"), Error) << row.name;
    EXPECT_THROW(coll::Tuning::FromEnvironment([&](const char* v) {
                   return row.variable == v ? "bogus" : nullptr;
                 }),
                 Error)
        << row.variable;
  }
  EXPECT_EQ(rows, 4);
}

TEST(JobOptionsTest, HelpNeedsNoProgram) { EXPECT_TRUE(Launch({"--help"}).help); }

TEST(JobOptionsTest, BadValuesNameTheOption) {
  EXPECT_EQ(LaunchError({"--mem-budget", "12q", kProgram}),
            "bdmpiexec: --mem-budget: bad size suffix in '12q' (a byte count, optionally "
            "with k, m or g)");
  EXPECT_EQ(LaunchError({"-ns", "0", kProgram}),
            "bdmpiexec: -ns needs a positive integer, got '0'");
  EXPECT_EQ(LaunchError({"--policy", "random", kProgram}),
            "bdmpiexec: --policy is memory|fifo, got 'random'");
  EXPECT_EQ(LaunchError({"--node-memory", "0", kProgram}),
            "bdmpiexec: --node-memory must be at least 1");
  EXPECT_EQ(LaunchError({"--frob", kProgram}), "bdmpiexec: unknown option '--frob'");
  EXPECT_EQ(LaunchError({"-ns"}), "bdmpiexec: -ns needs a value");
  EXPECT_EQ(LaunchError({"-ns", "2"}), "bdmpiexec: no program given");
}

TEST(JobOptionsTest, ThresholdMustLeaveAWindowThatFits) {
  std::string message = LaunchError({"--mem-threshold", "100000g", kProgram});
  EXPECT_EQ(message.rfind("bdmpiexec: --mem-threshold 100000g is larger than the shared "
                          "memory in /dev/shm", 0),
            0u)
      << message;
  EXPECT_EQ(Launch({"--mem-threshold", "1m", kProgram}).mem_threshold, 1u << 20);
}

TEST(JobOptionsTest, ProgramMustBeAnExecutableFile) {
  EXPECT_EQ(LaunchError({"/tmp"}), "bdmpiexec: cannot run the program '/tmp': it is a directory");
  EXPECT_EQ(LaunchError({"/nonexistent/x"}),
            "bdmpiexec: cannot run the program '/nonexistent/x': No such file or directory");
  EXPECT_EQ(LaunchError({"no-such-program-anywhere"}),
            "bdmpiexec: program 'no-such-program-anywhere' not found in PATH");
  EXPECT_EQ(Launch({"true"}).program.front(), "true");
  // On other hosts the masters look for it themselves.
  EXPECT_EQ(Launch({"--hosts", "a,b", "/nonexistent/x"}).program.front(), "/nonexistent/x");
}

TEST(JobOptionsTest, ScratchDirMustBeADirectory) {
  EXPECT_EQ(LaunchError({"--scratch-dir", "/nonexistent", kProgram}),
            "bdmpiexec: --scratch-dir /nonexistent is not a directory");
}

TEST(JobOptionsTest, RunningAboveSlavesIsClampedWithAWarning) {
  testing::internal::CaptureStderr();
  LaunchOptions options = Launch({"-ns", "2", "-nr", "5", kProgram});
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_EQ(options.nrunning, 2);
  EXPECT_EQ(warning, "bdmpiexec: warning: -nr 5 is more than -ns 2: 2 rank(s) per node run "
                     "at once\n");
}

TEST(JobOptionsTest, LauncherOptions) {
  LaunchOptions options = Launch({"-nn", "3", "--launcher", "mpirun", "--launcher-arg", "-x",
                                  "--launcher-arg", "Y", "-v", "--verbose", kProgram});
  EXPECT_EQ(options.nnodes, 3);
  EXPECT_EQ(options.launcher, Launcher::kMpirun);
  EXPECT_EQ(options.launcher_args, (std::vector<std::string>{"-x", "Y"}));
  EXPECT_EQ(options.verbosity, 2);
  EXPECT_TRUE(ValidJobId(options.job_id));
}

TEST(JobOptionsTest, RunningIsAutoOrACount) {
  EXPECT_EQ(Launch({"-nr", "auto", "-ns", "4", kProgram}).nrunning, kAutoRunning);
  EXPECT_EQ(Launch({"-nr", "3", "-ns", "4", kProgram}).nrunning, 3);
  // auto is the default, so bdmprun is not told; a count is.
  JobOptions options;
  options.program = {kProgram};
  EXPECT_EQ(JobOptionArgs(options), std::vector<std::string>{});
  options.nrunning = 2;
  EXPECT_EQ(JobOptionArgs(options), (std::vector<std::string>{"-nr", "2"}));
  const OptionRow<JobOptions>* row = FindOption(JobOptionTable(), "-nr");
  ASSERT_NE(row, nullptr);
  JobOptions parsed;
  try {
    row->set(parsed, "many");
    ADD_FAILURE() << "-nr many was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("-nr needs a positive integer or auto, got 'many'"),
              std::string::npos)
        << error.what();
  }
  EXPECT_NE(OptionHelp(JobOptionTable()).find("-nr N|auto"), std::string::npos);
}

// ------------------------------------------------ mpiexec conventions

TEST(MpiexecOptionsTest, RanksInAllAreSpreadOverTheNodes) {
  LaunchOptions one = Launch({"-n", "5", kProgram});
  EXPECT_EQ(one.nnodes, 1);
  EXPECT_EQ(one.nslaves, 5);
  EXPECT_EQ(one.nrunning, kAutoRunning);  // each master counts its cores
  LaunchOptions three = Launch({"-np", "6", "-nn", "3", kProgram});
  EXPECT_EQ(three.nslaves, 2);
  // -ns agreeing with -n is no contradiction.
  EXPECT_EQ(Launch({"-n", "8", "-nn", "2", "-ns", "4", kProgram}).nslaves, 4);
}

TEST(MpiexecOptionsTest, RanksFollowTheSlurmAllocation) {
  setenv("SLURM_JOB_NUM_NODES", "2", 1);
  LaunchOptions options = Launch({"-n", "8", kProgram});
  std::string too_few = LaunchError({"-n", "1", kProgram});
  unsetenv("SLURM_JOB_NUM_NODES");
  EXPECT_EQ(options.nnodes, 2);
  EXPECT_EQ(options.nslaves, 4);
  EXPECT_NE(too_few.find("than the 2 nodes (the Slurm allocation)"), std::string::npos)
      << too_few;
}

TEST(MpiexecOptionsTest, UnevenRanksAreLaidOutInBlocks) {
  // 3, 2 and 2 ranks: -ns is the largest share, and the masters get -n.
  LaunchOptions seven = Launch({"-n", "7", "-nn", "3", kProgram});
  EXPECT_EQ(seven.nranks, 7);
  EXPECT_EQ(seven.nslaves, 3);
  MasterOptions master = Master(MasterCommand(seven, "bdmprun"));
  EXPECT_EQ(master.nranks, 7);  // each master derives its own share
  EXPECT_EQ(master.nslaves, 3);
  EXPECT_EQ(Launch({"-n", "5", "-nn", "2", kProgram}).nslaves, 3);
  // -nr is checked against the largest share.
  EXPECT_EQ(Launch({"-n", "7", "-nn", "3", "-nr", "3", kProgram}).nrunning, 3);
}

TEST(MpiexecOptionsTest, EveryNodeNeedsARank) {
  EXPECT_EQ(LaunchError({"-n", "2", "-nn", "3", kProgram}),
            "bdmpiexec: -n 2 ranks are fewer than the 3 nodes (-nn), and every node runs at "
            "least one rank: use -n 3 or more, or -nn 2");
}

TEST(MpiexecOptionsTest, ContradictionsAndRepeatsAreErrors) {
  EXPECT_EQ(LaunchError({"-n", "8", "-nn", "2", "-ns", "3", kProgram}),
            "bdmpiexec: -n 8 contradicts -ns 3 on 2 node(s) (-nn), which make 6 ranks: give "
            "-n alone, or -ns (with -nn)");
  EXPECT_EQ(LaunchError({"-n", "4", "-ns", "2", kProgram}),
            "bdmpiexec: -n 4 contradicts -ns 2 on 1 node(s) (no -nn given), which make 2 "
            "ranks: give -n alone, or -ns (with -nn)");
  EXPECT_EQ(LaunchError({"-ns", "2", "-ns", "3", kProgram}),
            "bdmpiexec: -ns is given twice; give it once");
  EXPECT_EQ(LaunchError({"-n", "2", "-np", "2", kProgram}),
            "bdmpiexec: -np is given twice (also as -n); give it once");
  EXPECT_EQ(LaunchError({"--timeout", "2", "--timeout", "3", kProgram}),
            "bdmpiexec: --timeout is given twice; give it once");
  EXPECT_EQ(LaunchError({"--hosts", "a", "--hostfile", "f", kProgram}),
            "bdmpiexec: --hostfile and --hosts contradict each other: give one");
  // The repeatable ones.
  EXPECT_EQ(Launch({"-v", "-v", "-x", "A=1", "-x", "B=2", kProgram}).exported.size(), 2u);
}

// Scripts written for Open MPI's mpirun or MPICH's mpiexec run unchanged:
// their options mean ours, or nothing (with a warning where they asked for
// something BDMPI does not do), and the program still starts after them.
TEST(MpiexecOptionsTest, OpenMpiAndMpichHabitsAreAccepted) {
  testing::internal::CaptureStderr();
  LaunchOptions ompi =
      Launch({"--allow-run-as-root", "--oversubscribe", "--mca", "btl", "^openib", "-mca",
              "pml", "ob1", "--map-by", "core", "--bind-to", "core", "-np", "4", kProgram,
              "--mca"});
  std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(ompi.nslaves, 4);
  EXPECT_TRUE(ompi.bind);
  EXPECT_EQ(ompi.program, (std::vector<std::string>{kProgram, "--mca"}));
  EXPECT_NE(warnings.find("bdmpiexec: warning: --mca has no effect: Open MPI's MCA "
                          "parameters do not apply"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("--map-by has no effect"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("--bind-to"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("--oversubscribe"), std::string::npos) << warnings;
  EXPECT_FALSE(Launch({"--bind-to", "none", kProgram}).bind);
  // Ranks per node and hosts.
  LaunchOptions mpich = Launch({"-ppn", "3", "-n", "6", "-nn", "2", kProgram});
  EXPECT_EQ(mpich.nslaves, 3);
  EXPECT_EQ(Launch({"-N", "2", "-nn", "2", kProgram}).nslaves, 2);
  EXPECT_EQ(Launch({"--npernode", "5", kProgram}).nslaves, 5);
  EXPECT_EQ(Launch({"-H", "a:4,b:4", "-nn", "2", kProgram}).hosts, "a,b");
  EXPECT_EQ(LaunchError({"-ppn", "2", "-ns", "3", kProgram}),
            "bdmpiexec: -ns is given twice; give it once");
  EXPECT_EQ(LaunchError({"--mca", "btl"}), "bdmpiexec: --mca needs a value");
}

TEST(MpiexecOptionsTest, ExportedVariablesReachEveryMaster) {
  setenv("BDMPI_TEST_INHERITED", "yes", 1);
  LaunchOptions options = Launch({"-nn", "2", "-x", "A=1=2", "-x", "BDMPI_TEST_INHERITED",
                                  "--env", "B", "two words", "-env", "C", "", kProgram});
  unsetenv("BDMPI_TEST_INHERITED");
  ASSERT_EQ(options.exported.size(), 4u);
  EXPECT_EQ(options.exported[0].name, "A");
  EXPECT_EQ(options.exported[0].value, "1=2");
  EXPECT_FALSE(options.exported[1].value.has_value());
  EXPECT_EQ(options.exported[2].value, "two words");
  EXPECT_EQ(options.exported[3].value, "");
  std::vector<std::string> command = LaunchCommand(options, {"bdmprun"});
  for (const char* name : {"A", "B", "C"}) {
    auto at = std::find(command.begin(), command.end(), std::string(name));
    ASSERT_NE(at, command.end()) << name;
    EXPECT_EQ(*(at - 1), "-x") << name;
  }
  EXPECT_EQ(LaunchError({"-x", "NOT_SET_ANYWHERE_42", kProgram}),
            "bdmpiexec: -x NOT_SET_ANYWHERE_42: NOT_SET_ANYWHERE_42 is not set here; give its "
            "value as NOT_SET_ANYWHERE_42=VALUE");
  EXPECT_EQ(LaunchError({"-x", "1A=2", kProgram}),
            "bdmpiexec: -x needs VAR or VAR=VALUE, got '1A=2'");
  EXPECT_EQ(LaunchError({"--env", "A"}), "bdmpiexec: --env needs a value");
}

TEST(MpiexecOptionsTest, TimeLimitFromTheOptionOrMpiexecTimeout) {
  EXPECT_EQ(Launch({kProgram}).timeout_s, 0);
  EXPECT_EQ(Launch({"--timeout", "30", kProgram}).timeout_s, 30);
  setenv("MPIEXEC_TIMEOUT", "20", 1);
  int from_variable = Launch({kProgram}).timeout_s;
  int option_wins = Launch({"--timeout", "0", kProgram}).timeout_s;
  setenv("MPIEXEC_TIMEOUT", "soon", 1);
  std::string bad = LaunchError({kProgram});
  unsetenv("MPIEXEC_TIMEOUT");
  EXPECT_EQ(from_variable, 20);
  EXPECT_EQ(option_wins, 0);
  EXPECT_EQ(bad, "bdmpiexec: MPIEXEC_TIMEOUT needs a positive integer, got 'soon'");
  EXPECT_EQ(LaunchError({"--timeout", "-1", kProgram}),
            "bdmpiexec: --timeout needs a positive integer, got '-1'");
}

TEST(MpiexecOptionsTest, MpmdIsRefusedUnlessAfterDashes) {
  EXPECT_EQ(LaunchError({"-n", "2", kProgram, ":", "-n", "2", kProgram}),
            "bdmpiexec: MPMD launches ('prog1 : prog2') are not supported: every rank of a "
            "BDMPI job runs the same program (put '--' before the program to pass it a ':' "
            "argument)");
  EXPECT_EQ(Launch({"-n", "2", "--", kProgram, ":"}).program,
            (std::vector<std::string>{kProgram, ":"}));
}

TEST(MpiexecOptionsTest, VersionNeedsNoProgram) {
  EXPECT_TRUE(Launch({"--version"}).version);
  EXPECT_NE(std::string(kLaunchVersion).find("MPI 4.1"), std::string::npos);
}

// ------------------------------------------------------------ byte sizes

TEST(ByteSizeTest, NamesWhatItParses) {
  try {
    ParseByteSize("1kk", "BDMPI_CHUNK_SIZE=1kk");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "BDMPI_CHUNK_SIZE=1kk: bad size suffix in '1kk' (a byte count, optionally "
              "with k, m or g)");
  }
}

TEST(ByteSizeTest, FormatIsTheShortestExactSpelling) {
  EXPECT_EQ(FormatByteSize(0), "0");
  EXPECT_EQ(FormatByteSize(1000), "1000");
  EXPECT_EQ(FormatByteSize(65536), "64k");
  EXPECT_EQ(FormatByteSize(3u << 20), "3m");
  EXPECT_EQ(FormatByteSize(1536u << 20), "1536m");
  EXPECT_EQ(FormatByteSize(2ull << 30), "2g");
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4097}, std::size_t{5} << 30})
    EXPECT_EQ(ParseByteSize(FormatByteSize(bytes)), bytes);
}

}  // namespace
}  // namespace bdmpi
