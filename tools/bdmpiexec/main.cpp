// bdmpiexec: runs an MPI program built with libbdmpi out of core.
//
//   bdmpiexec -ns SLAVES [-nr RUNNING] [options] program [args...]
//
// It starts the master (bdmprun) of the node, which starts the slaves, or
// mpirun/srun, which start a master per node; it passes signals on. Before
// the launch it removes what dead jobs of this user left on the node; after
// it, it waits until every process of the job on this node is gone (its
// descendants, descendants.h, and the liveness files) and removes whatever
// the masters could not (a master killed by SIGKILL cleans up nothing).
// Masters end the job when bdmpiexec dies (PR_SET_PDEATHSIG).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bdmpiexec/ask_status.h"
#include "bdmpiexec/cleanup.h"
#include "bdmpiexec/cpu_use.h"
#include "bdmpiexec/descendants.h"
#include "bdmpiexec/launch_environment.h"
#include "bdmpiexec/launch_options.h"
#include "bdmpiexec/master_kill.h"
#include "bdmpiexec/rank_states.h"
#include "common/error.h"
#include "common/job_names.h"

namespace {

// How long bdmpiexec waits for the job's processes on this node to go after
// the master or launcher returned.
constexpr int kProcessesGoneMs = 10'000;

// After the job's time limit, how long the masters get to end their ranks
// and clean up after SIGTERM before they are killed.
constexpr unsigned kTimeoutGraceS = 5;
// timeout(1)'s status for a command it ended.
constexpr int kTimedOutStatus = 124;

volatile sig_atomic_t forwarded_signal = 0;
volatile sig_atomic_t alarms = 0;
volatile pid_t master_pid = -1;

// How the child that started the job takes a signal passed on.
volatile sig_atomic_t child_is_srun = 0;
volatile sig_atomic_t child_shares_group = 0;

// A signal to bdmpiexec is passed on to the master, or to mpirun/srun,
// exactly once: mpirun ends at once at a second signal within 5 s, killing
// its masters before they remove the job's objects and Open MPI's shared
// memory. A launcher shares bdmpiexec's process group only while stdin is
// a terminal (RunMaster); then a signal from the terminal (Ctrl-C) reached
// it already. srun only reports the tasks' states at one SIGINT, and kills
// them at once (SIGKILL) at a second or at SIGTERM, before they clean up:
// it gets SIGUSR2, which it passes on to the masters as it is, and a
// master ends the job at it.
void ForwardSignal(int sig, siginfo_t* info, void*) {
  forwarded_signal = sig;
  if (master_pid <= 0) return;
  bool from_terminal = info != nullptr && info->si_code == SI_KERNEL;
  if (child_is_srun) {
    kill(master_pid, SIGUSR2);
  } else if (!(child_shares_group && from_terminal)) {
    kill(master_pid, sig);
  }
}

void CountAlarm(int) { alarms = alarms + 1; }

// Only wakes RunMaster's sigsuspend (SIGCHLD is ignored by default).
void NoteChildEnd(int) {}

volatile sig_atomic_t status_requests = 0;

void CountStatusRequest(int) { status_requests = status_requests + 1; }

// SIGUSR1: the job's ranks, as their masters see them, on stderr
// (AskStatus); the job goes on.
void RequestStatus(const std::string& job_id, pid_t child) {
  bdmpi::AskStatus(job_id, child, stderr);
}

// How long after the ranks' states (RequestStatus, which waits for them)
// the job is ended.
constexpr unsigned kStatusWaitS = 1;

// The time limit's alarms. The first says so, with what this node's ranks
// were doing as the kernel sees them and how the processors spent their
// time since the job started (cpu_use.h), and asks every master for its
// ranks' states (which call each one waits in; with several nodes the
// ranks bdmpiexec cannot see) and gives them a moment. Then the masters
// are asked to end the job, and the last alarm kills them.
void EndJobOnAlarm(const bdmpi::LaunchOptions& options, const bdmpi::CpuTimes& cpu_at_start,
                   int alarms_seen, pid_t pid) {
  if (alarms_seen >= 3) {
    kill(pid, SIGKILL);
    return;
  }
  if (alarms_seen == 1) {
    std::string text = "bdmpiexec: job " + options.job_id + " reached its time limit of " +
                       std::to_string(options.timeout_s) +
                       " s (--timeout / MPIEXEC_TIMEOUT) on " + std::to_string(options.nnodes) +
                       " node(s) and is ended";
    std::vector<std::string> ranks = bdmpi::DescribeLocalRanks(options.job_id);
    if (ranks.empty()) text += "; no rank of it runs on this node\n";
    else text += "; its ranks on this node:\n";
    for (const std::string& rank : ranks) text += "bdmpiexec:   " + rank + "\n";
    std::string cpu_use = bdmpi::DescribeCpuUse(cpu_at_start, bdmpi::ReadCpuTimes());
    if (!cpu_use.empty()) text += "bdmpiexec: the processors since it started: " + cpu_use + "\n";
    text += "bdmpiexec: every node's ranks, as their masters see them:\n";
    std::fputs(text.c_str(), stderr);
    RequestStatus(options.job_id, pid);
    alarm(kStatusWaitS);
    return;
  }
  kill(pid, child_is_srun ? SIGUSR2 : SIGTERM);  // srun: as in ForwardSignal
  alarm(kTimeoutGraceS);
}

std::string SelfDirectory() {
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  path[n] = '\0';
  std::string self(path);
  return self.substr(0, self.rfind('/'));
}

// bdmprun next to bdmpiexec (build tree and install tree alike), unless
// BDMPI_BDMPRUN names another.
std::string FindMaster() {
  if (const char* path = std::getenv("BDMPI_BDMPRUN")) return path;
  std::string beside = SelfDirectory() + "/bdmprun";
  if (access(beside.c_str(), X_OK) == 0) return beside;
  return "bdmprun";
}

// Runs the master (or mpirun/srun) and returns its exit status; with a
// time limit, ends it then, and sets `timed_out`.
int RunMaster(const std::vector<std::string>& command, const bdmpi::LaunchOptions& options,
              const sigset_t& usr1, bool& timed_out) {
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  // mpirun or srun gets a process group of its own, so that a signal to
  // bdmpiexec's group (`timeout`, `kill -- -PGID`) reaches it only through
  // bdmpiexec (ForwardSignal), unless stdin is a terminal, which a process
  // outside the foreground group may not read. The local master stays in
  // the group: it takes a signal twice alike.
  bool launcher = options.launcher != bdmpi::Launcher::kLocal;
  bool own_group = launcher && isatty(STDIN_FILENO) == 0;
  child_is_srun = options.launcher == bdmpi::Launcher::kSrun;
  child_shares_group = !own_group && launcher;

  struct sigaction action {};
  action.sa_sigaction = ForwardSignal;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  action.sa_flags = 0;
  action.sa_handler = CountStatusRequest;
  sigaction(SIGUSR1, &action, nullptr);
  action.sa_handler = CountAlarm;
  sigaction(SIGALRM, &action, nullptr);

  // Where the child is the master itself, before it starts: a SIGKILL from
  // the kernel's out-of-memory killer is told by the counts growing since.
  std::optional<bdmpi::MasterMemory> memory;
  if (!launcher) memory = bdmpi::NoteMasterMemory();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("bdmpiexec: fork");
    return 1;
  }
  if (pid == 0) {
    // Killed with SIGKILL, bdmpiexec cannot pass anything on: the master
    // (or mpirun/srun, which pass it to every master) then gets SIGTERM.
    // SIGUSR1 stays held (main) until the master blocks it itself, first
    // thing: one asking for the status early must not kill it.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
    if (own_group) setpgid(0, 0);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "bdmpiexec: cannot run the master '%s': %s\n", argv[0],
                 std::strerror(errno));
    _exit(127);
  }
  // Also here, so that no signal passed on can come before the child's own
  // call (whichever runs first makes the group).
  if (own_group) setpgid(pid, pid);
  master_pid = pid;
  // The alarms, the status requests and the child's end are taken only in
  // sigsuspend below, so that none comes between the check and the wait
  // (a blocking waitpid would see it only at the next signal, or never). A
  // SIGUSR1 that came before its handler existed was held (main), even one
  // inherited pending: it is counted there, and answered.
  action.sa_handler = NoteChildEnd;
  sigaction(SIGCHLD, &action, nullptr);
  sigset_t handled = usr1, waiting;
  sigaddset(&handled, SIGALRM);
  sigaddset(&handled, SIGCHLD);
  sigprocmask(SIG_BLOCK, &handled, &waiting);
  for (int sig : {SIGUSR1, SIGALRM, SIGCHLD}) sigdelset(&waiting, sig);
  bdmpi::CpuTimes cpu_at_start;
  if (options.timeout_s > 0) {
    cpu_at_start = bdmpi::ReadCpuTimes();
    alarm(static_cast<unsigned>(options.timeout_s));
  }
  int status = 0;
  int alarms_seen = 0;
  int status_requests_seen = 0;
  for (;;) {
    while (alarms_seen < alarms) EndJobOnAlarm(options, cpu_at_start, ++alarms_seen, pid);
    for (; status_requests_seen < status_requests; ++status_requests_seen)
      RequestStatus(options.job_id, pid);
    pid_t ended = waitpid(pid, &status, WNOHANG);
    if (ended == pid) break;
    if (ended < 0 && errno != EINTR) {
      std::perror("bdmpiexec: waitpid");
      return 1;
    }
    sigsuspend(&waiting);
  }
  sigprocmask(SIG_SETMASK, &waiting, nullptr);
  alarm(0);
  master_pid = -1;
  timed_out = alarms_seen > 0;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    // After the time limit, bdmpiexec's own SIGKILL may be the one.
    if (timed_out) memory.reset();
    std::fputs(bdmpi::DescribeMasterKill(sig, memory).c_str(), stderr);
    return 128 + sig;
  }
  return WEXITSTATUS(status);
}

}  // namespace

int main(int argc, char** argv) {
  // SIGUSR1 asks for the job's status; its default action would end
  // bdmpiexec: held until RunMaster installs its handler (also for
  // --status: a status command must not die of another's question).
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigprocmask(SIG_BLOCK, &usr1, nullptr);
  try {
    bdmpi::RefuseNestedLaunch();
  } catch (const bdmpi::Error& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
  bdmpi::LaunchOptions options;
  try {
    options = bdmpi::ParseLaunchOptions(argc, argv);
  } catch (const bdmpi::Error& error) {
    std::fprintf(stderr, "%s\nTry 'bdmpiexec --help'.\n", error.what());
    return 2;
  }
  if (options.help) {
    std::fputs(bdmpi::kLaunchUsage, stdout);
    return 0;
  }
  if (options.version) {
    std::fputs(bdmpi::kLaunchVersion, stdout);
    return 0;
  }
  if (!options.status_job.empty()) return bdmpi::AskStatus(options.status_job, -1, stdout);
  bdmpi::ExportVariables(options);
  bdmpi::PrepareLaunchEnvironment();
  if (options.verbosity > 0 && std::getenv("BDMPI_LOG") == nullptr)
    setenv("BDMPI_LOG", options.verbosity > 1 ? "debug" : "info", 1);

  // Set before the launch command is made: mpirun passes it on by name.
  std::string secret = bdmpi::NewJobId() + bdmpi::NewJobId();
  setenv(bdmpi::kEnvLaunchSecret, secret.c_str(), 1);
  std::vector<std::string> command;
  try {
    command = bdmpi::LaunchCommand(options, bdmpi::MasterCommand(options, FindMaster()));
  } catch (const bdmpi::Error& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
  if (options.verbosity > 0) {
    std::string line = "bdmpiexec:";
    for (const std::string& arg : command) line += " " + arg;
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  bdmpi::CollectDeadJobs();
  bdmpi::AdoptOrphanedDescendants();
  bool timed_out = false;
  int status = RunMaster(command, options, usr1, timed_out);
  // mpirun may return before its masters and ranks are gone; those of this
  // node are waited for: first as processes (a master removes its liveness
  // file a moment before it exits), then through the liveness files, which
  // also cover processes that are not bdmpiexec's descendants (srun's).
  std::vector<std::string> alive = bdmpi::WaitForDescendants(kProcessesGoneMs);
  if (!alive.empty()) {
    std::string child = command.front().substr(command.front().rfind('/') + 1);
    std::string text = "bdmpiexec: processes of job " + options.job_id +
                       " still ran on this node " + std::to_string(kProcessesGoneMs / 1000) +
                       " s after " + child + " ended; they were killed:";
    for (const std::string& process : alive) text += "\nbdmpiexec:   " + process;
    std::fprintf(stderr, "%s\n", text.c_str());
    bdmpi::KillDescendants();
    if (status == 0) status = 1;
  }
  // Normally the masters removed everything; after a crash this finds the
  // rest.
  int leftovers = bdmpi::RemoveLaunchLeftovers(options.job_id, secret, options.nnodes,
                                               kProcessesGoneMs);
  if (leftovers < 0) {
    std::fprintf(stderr,
                 "bdmpiexec: processes of job %s still run on this node %d s after "
                 "its masters ended; their objects were left\n",
                 options.job_id.c_str(), kProcessesGoneMs / 1000);
    if (status == 0) status = 1;
  } else if (leftovers > 0) {
    std::fprintf(stderr, "bdmpiexec: removed %d leftover object(s) of job %s\n",
                 leftovers, options.job_id.c_str());
  }
  if (forwarded_signal != 0) {
    // However the masters or mpirun reported it, the job ended because of it.
    const char* name = sigabbrev_np(forwarded_signal);
    std::fprintf(stderr, "bdmpiexec: interrupted by SIG%s; the job was ended\n",
                 name != nullptr ? name : "?");
    status = 128 + forwarded_signal;
  } else if (timed_out) {
    status = kTimedOutStatus;
  }
  return status;
}
