#include "master/master.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <ctime>
#include <string>

#include "common/error.h"
#include "common/file_io.h"
#include "common/log.h"
#include "common/message_queue.h"
#include "common/node_limits.h"
#include "common/private_dir.h"
#include "common/process_memory.h"
#include "common/program_path.h"
#include "common/storage_table.h"
#include "common/test_hooks.h"
#include "master/launch/process_slave_io.h"
#include "master/launch/spawn.h"
#include "master/memory/node_memory.h"
#include "master/network/topology.h"
#include "master/sched/master_cpu.h"

extern char** environ;

namespace bdmpi {
namespace {

std::size_t RoundUpToPage(std::size_t bytes) {
  std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

std::string DescribeWaitStatus(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "was killed by signal " + std::to_string(sig) + " (" +
           strsignal(sig) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

const char* SlaveStateName(SlaveState state) {
  switch (state) {
    case SlaveState::kStarting: return "starting";
    case SlaveState::kRunnable: return "runnable";
    case SlaveState::kRunning: return "running";
    case SlaveState::kRBlocked: return "rblocked";
    case SlaveState::kCBlocked: return "cblocked";
    case SlaveState::kFinalized: return "finalized";
    case SlaveState::kExited: return "exited";
  }
  return "?";
}

namespace {

// bdmpiexec's, shared by the masters of one launch; bdmprun started by hand
// makes its own.
std::string LaunchSecret() {
  const char* secret = std::getenv(kEnvLaunchSecret);
  if (secret != nullptr && *secret != '\0') return secret;
  return NewJobId() + NewJobId();
}

// --mem-budget as the master keeps to it (MessageBudget), written back so
// that the node budget's margin (DefaultNodeMemory) counts the same.
std::size_t KeepMessageBudget(MasterOptions& options) {
  options.mem_budget = MessageBudget(options.mem_budget);
  return options.mem_budget;
}

}  // namespace

Master::Master(MasterOptions options, int node, int nnodes, std::unique_ptr<SlaveIo> io)
    // First member: made from the argument before options_ takes it over.
    : payloads_(RoundUpToPage(options.mem_threshold), KeepMessageBudget(options)),
      options_(std::move(options)),
      launch_secret_(LaunchSecret()),
      launcher_pid_(getppid()),
      node_(node),
      nnodes_(nnodes),
      // With -n, every master derives its share; else each runs -ns.
      layout_(options_.nranks > 0 ? options_.nranks : options_.nslaves * nnodes, nnodes,
              UniverseSize(options_,
                           options_.nranks > 0 ? options_.nranks : options_.nslaves * nnodes)),
      names_(options_.job_id, node),
      job_dir_(names_.SpillDir(std::filesystem::absolute(options_.scratch_dir).string(),
                               NewNameTag())),
      memory_dir_(options_.memory_payloads ? names_.MemoryDir(NewNameTag()) : ""),
      slaves_(options_.nrunning, options_.policy,
              [this](int slave) { return memory_.ResumeScore(slaves_[slave]); }),
      comms_(node, layout_) {
  // Every slot: the node's ranks and its room for spawned ones, which have
  // their queues, windows and storage slots from the start.
  options_.nslaves = layout_.SlotCount(node);
  if (options_.nrunning == kAutoRunning) ResolveAutoRunning();
  CountPollCores();
  io_ = io != nullptr ? std::move(io)
                      : std::make_unique<ProcessSlaveIo>(names_, NameTags(name_key_), event_token_);
}

Master::~Master() {
  KillSlaves();
  io_.reset();
  // The network's thread goes on moving collectives' data until stopped:
  // stop it before their buffers go.
  network_.reset();
  // Queues and windows unlink themselves; spill files live in the job dir.
  collectives_.Clear();
  slaves_.Clear();
  if (!payloads_.spill_dir().path().empty()) {
    RemoveRecordedJobFiles();
    // (The liveness file, lease_, goes last, after every other member.)
    RemoveTree(payloads_.spill_dir().path());
  }
  if (payloads_.has_memory_dir()) RemoveTree(payloads_.memory_dir().path());
}

void Master::RemoveRecordedJobFiles() const {
  // Only the lock files of this job's shared file pointers (io/operations.cpp
  // names them): the record is the ranks' to write, not a list of anything
  // to delete.
  const std::string mark = ".bdmpi-shfp-" + options_.job_id + "-";
  for (const std::string& path : payloads_.spill_dir().RecordedJobFiles()) {
    std::size_t at = path.rfind(mark);
    if (at != std::string::npos && path.find('/', at) == std::string::npos)
      unlink(path.c_str());
  }
}

int Master::Run() {
  Start();
  EventLoop();
  observe_.Finish(failed_, failure_, network_finished_);
  // Read by tests that check the master stays within its memory budget.
  BDMPI_INFO("disk", "peak buffered memory %zu bytes (budget %zu), peak RSS %ld KiB",
             payloads_.budget().peak(), options_.mem_budget, PeakRssKiB());
  memory_.LogSummary();
  return exit_status_;
}

void Master::Start() {
  // Before the master pins itself: where its network thread will run.
  ThreadPlacement placement = ThreadPlacement::OfCallingThread();
  program_path_ = ResolveProgram(options_.program.front());
  // Before anything of the job exists: a node too small for its share is
  // refused naming the limit (bdmpiexec checked the masters of its own
  // host already; this covers the others).
  RaiseSoftLimits();
  std::string problems = NodeLimitProblems({options_.nslaves, 1, options_.nslaves},
                                           payloads_.window_size(), NodeLimits::OfThisHost());
  if (!problems.empty())
    throw Error(kErrArg, "node " + std::to_string(node_) +
                             " cannot run its part of the job as asked:\n" + problems);
  // Before anything else of the job on this node, so that a collector never
  // finds an object of a live job without it (common/job_liveness.h).
  lease_ = NodeLease::Claim(names_,
                            {launch_secret_, options_.nslaves, job_dir_, memory_dir_, name_key_,
                             getpid()});
  CreateJobDirectory();
  p2p_.LogLending();
  // With one running slave, the master and the slave it serves take turns:
  // on one core a wake-up costs ~5 us, across cores ~55 us.
  if (options_.bind && options_.nrunning == 1) {
    cpu_ = MasterCpu();  // its own, when other masters share the host
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(cpu_, &cpus);
    if (sched_setaffinity(0, sizeof cpus, &cpus) != 0) cpu_ = -1;
    // As a batch task the master does not preempt the running slave when a
    // request arrives; it serves the requests when the slave blocks, which
    // saves two context switches per message.
    sched_param param{};
    if (cpu_ >= 0) sched_setscheduler(0, SCHED_BATCH, &param);
  } else if (options_.bind) {
    BindToCores();
  }
  io_->Create(options_.nslaves, payloads_.window_size());
  // The network thread and the watcher of resumed ranks' memory wake the
  // event loop through the request queue.
  std::shared_ptr<MessageQueue> wake_queue;
  try {
    wake_queue = std::make_shared<MessageQueue>(
        MessageQueue::Open(io_->RequestQueueName(), O_WRONLY | O_NONBLOCK));
  } catch (const Error&) {
    // Without it the network cannot run; resumes are then admitted on the
    // ranks' whole data (the in-process tests' master has no queue).
    if (nnodes_ > 1) throw;
  }
  auto waker = [wake_queue, token = event_token_](int peer) {
    return [wake_queue, token, peer] {
      RequestMsg event;
      event.type = MsgType::kEvent;
      event.token = token;
      event.peer = peer;
      RequestBatch message;
      message.Append(event, nullptr);
      try {
        // A full queue wakes the loop anyway, and it checks HasEvents().
        wake_queue->TrySend(message.data(), message.size());
      } catch (const Error&) {
      }
    };
  };
  if (wake_queue) memory_.SetTouchWaker(waker(kTouchWatchEventPeer), placement);
  if (nnodes_ > 1) {
    Network::Config config;
    config.placement = placement;
    config.spill_dir = &payloads_.spill_dir();
    if (payloads_.has_memory_dir()) config.memory_dir = &payloads_.memory_dir();
    config.inline_max = payloads_.window_size();
    config.rack = DetectRack(options_.topology_file);
    config.tuning = coll::Tuning::FromEnvironment();
    config.peer_timeout = PeerWatch::TimeoutFromEnvironment();
    network_ = std::make_unique<Network>(config, waker(kNetworkEventPeer));
  }
  observe_.Start(slaves_.running_limit(), running_auto_, running_cores_);
  CreateSlaves();
  io_->StartWatching();
  if (network_) network_->Start();
}

void Master::CreateJobDirectory() {
  // Each master has its own: the masters of a launch that share a host
  // need not agree on a name, which no other user could then learn first.
  payloads_.SetSpillDir(SpillDir(CreatePrivateDir(job_dir_), job_dir_));
  memory_.CreateMemoryDirectory(memory_dir_);
}

namespace {

// A slave loads its storage-backed heap (libbdmpi_heap.so, jemalloc) with
// dlopen, and jemalloc's thread data is initial-exec TLS: glibc must set
// room aside for it at the slave's start (src/slave/memory/heap_link.h).
void AllowHeapTls(std::vector<std::string>& env) {
  constexpr const char* kTunable = "glibc.rtld.optional_static_tls=16384";
  for (std::string& var : env) {
    if (var.rfind("GLIBC_TUNABLES=", 0) != 0) continue;
    if (var.find("glibc.rtld.optional_static_tls=") == std::string::npos)
      var += std::string(var.size() > 15 ? ":" : "") + kTunable;
    return;
  }
  env.push_back(std::string("GLIBC_TUNABLES=") + kTunable);
}

}  // namespace

std::vector<std::string> Master::RankEnvironment(const std::string& program_path) const {
  std::vector<std::string> env = RankBaseEnvironment(environ, program_path);
  AllowHeapTls(env);
  // The same for every rank: the job's settings, as variables and as the
  // tool interface's text. They say -ns as the user gave it: the node's
  // ranks, not the places kept for spawned ones (options_.nslaves).
  JobOptions shown = options_;
  shown.nslaves = layout_.Count(node_);
  for (std::string& var : JobOptionEnvironment(shown)) env.push_back(std::move(var));
  env.push_back(std::string(kEnvJobSettings) + "=" + JobSettingsText(shown));
  return env;
}

void Master::CreateSlaves() {
  std::vector<std::string> base_env = RankEnvironment(program_path_);
  slaves_.Create(layout_.Count(node_), layout_.FirstRank(node_), event_token_);
  slaves_.AddReserved(layout_, node_, event_token_);
  p2p_.SlavesCreated(options_.nslaves);
  memory_.SetBudget();
  for (int index = 0; index < layout_.Count(node_); ++index) {
    StartRank(slaves_[index], program_path_, options_.program, base_env);
    slaves_.CountStarted();
  }
}

void Master::StartRank(Slave& slave, const std::string& path,
                       const std::vector<std::string>& argv,
                       const std::vector<std::string>& base_env,
                       const std::string& wdir) {
  SpawnSpec spec;
  spec.path = path;
  spec.argv = argv;
  spec.env = base_env;
  spec.cwd = wdir;
  if (!wdir.empty()) {
    // The shell's idea of the directory follows it, as under mpiexec.
    std::erase_if(spec.env, [](const std::string& var) { return var.rfind("PWD=", 0) == 0; });
    spec.env.push_back("PWD=" + wdir);
  }
  spec.env.push_back(std::string(kEnvJobId) + "=" + options_.job_id);
  spec.env.push_back(std::string(kEnvNode) + "=" + std::to_string(node_));
  spec.env.push_back(std::string(kEnvSlave) + "=" + std::to_string(slave.index));
  spec.env.push_back(std::string(kEnvWorldRank) + "=" + std::to_string(slave.world_rank));
  spec.env.push_back(std::string(kEnvWorldSize) + "=" + std::to_string(layout_.world_size()));
  spec.env.push_back(std::string(kEnvUniverseSize) + "=" +
                     std::to_string(layout_.universe_size()));
  spec.env.push_back(std::string(kEnvNodeSize) + "=" + std::to_string(options_.nslaves));
  spec.env.push_back(std::string(kEnvNodeCount) + "=" + std::to_string(nnodes_));
  spec.env.push_back(std::string(kEnvWindowSize) + "=" + std::to_string(payloads_.window_size()));
  spec.env.push_back(std::string(kEnvSpillDir) + "=" + payloads_.spill_dir().path());
  spec.env.push_back(std::string(kEnvSpillDirInode) + "=" +
                     std::to_string(payloads_.spill_dir().inode()));
  if (payloads_.has_memory_dir()) {
    spec.env.push_back(std::string(kEnvMemoryDir) + "=" + payloads_.memory_dir().path());
    spec.env.push_back(std::string(kEnvMemoryDirInode) + "=" +
                       std::to_string(payloads_.memory_dir().inode()));
  }
  spec.env.push_back(std::string(kEnvSlaveToken) + "=" + std::to_string(slave.token));
  if (options_.nrunning == 1) spec.env.push_back(std::string(kEnvDeferPosts) + "=1");
  if (const char* rule = PollRule()) spec.env.push_back(std::string(kEnvMayPoll) + "=" + rule);
  spec.env.push_back(std::string(kEnvMasterPid) + "=" + std::to_string(getpid()));
  spec.cpu = cpu_;
  spec.keep_fds = {lease_.fd()};
  slave.pid = io_->Spawn(slave.index, spec);
  observe_.RankStarted(slave.index);
  if (slave.pid > 0) {
    std::string statm = "/proc/" + std::to_string(slave.pid) + "/statm";
    // Optional: without it the memory policy sees the slave as not resident.
    slave.statm_fd.reset(open(statm.c_str(), O_RDONLY | O_CLOEXEC));
  }
  BDMPI_DEBUG("sched", "started rank %d as pid %d", slave.world_rank,
              static_cast<int>(slave.pid));
}

void Master::EventLoop() {
  alignas(8) std::byte message[kRequestMsgSize];
  // With other nodes, serve the network until every node is done: they may
  // still be sending to each other through us.
  while (slaves_.live() > 0 || (network_ && !failed_ && !network_finished_)) {
    // Not while this node holds its free slots for a spawn: it may yet
    // start ranks (launch/spawn_ranks.cpp).
    if (slaves_.live() == 0 && network_ && !network_shutdown_ && !spawn_hold_) {
      network_shutdown_ = true;
      observe_.PostRecord();
      network_->Shutdown();
    }
    std::optional<std::size_t> size = ReceiveBeforeHandoverDeadline(message, sizeof message);
    if (size) {
      ServeMessage(message, *size);
    } else {
      OnHandoverDeadline();
    }
  }
}

void Master::ServeMessage(const std::byte* message, std::size_t size) {
  try {
    // A slave's batch often holds a send that wakes a peer and then a call
    // that blocks the sender: starting the peer only after the whole batch
    // lets it take the core the sender leaves (a cheap hand-over) instead of
    // waking it on another core.
    serving_message_ = true;
    served_sender_ = -1;
    bool well_formed = ForEachRequest(
        message, size, [this](const RequestMsg& request, const std::byte* payload) {
          if (!failed_) OnRequest(request, payload);
        });
    if (!failed_) p2p_.TakeBackLentBlocks();
    serving_message_ = false;
    if (!failed_) ScheduleAfterMessage();
    if (!well_formed && !failed_)
      Fail(1, "a malformed message reached the request queue (a program must not "
              "write to BDMPI's queues itself)");
    if (network_ && !failed_ && network_->HasEvents()) OnNetworkEvents();
    if (!failed_) CheckDeadlock();
    if (observe_.recorder().on()) observe_.RecordRankStates();
  } catch (const std::exception& error) {
    serving_message_ = false;
    // E.g. a full scratch disk under a master-side spill file: the job
    // ends here, and the other masters hear why instead of being killed.
    Fail(1, error.what());
  }
}

void Master::OnRequest(const RequestMsg& request, const std::byte* inline_payload) {
  const MessageRow* row = FindMessageRow(request.type);
  if (row != nullptr && row->master_event && request.token == event_token_) {
    OnEvent(request);
    return;
  }
  Slave* sender = AuthenticatedSender(request);
  if (sender == nullptr) return;  // the job has failed
  Slave& slave = *sender;
  if (slave.state == SlaveState::kExited) return;  // sent before it died
  served_sender_ = slave.index;
  slave.reading_back = false;  // it asks after its read-back only
  // The slave has consumed its previous reply, unless the row says it may
  // not have (keeps_reply_files).
  if (row == nullptr || !row->keeps_reply_files) {
    slave.held_files.clear();
    p2p_.LetGoOfReply(slave);
  }
  BDMPI_DEBUG("ipc", "rank %d: %s", slave.world_rank, MsgTypeName(request.type));
  if (row != nullptr && row->handle != nullptr) row->handle(*this, slave, request, inline_payload);
}

void Master::HandleInit(Slave& slave, const RequestMsg& request) {
  slave.initialized = true;
  slave.pending = request;
  slave.state = SlaveState::kRunnable;
  observe_.NoteStateChange(slave);
  slaves_.MakeRunnable(slave);
  Schedule();
}

void Master::HandleFinalize(Slave& slave, const RequestMsg& request) {
  critical_.Leave(slave);
  StopRunning(slave);
  slave.state = SlaveState::kFinalized;
  observe_.NoteStateChange(slave);
  observe_.RecordReadBack(slave);
  ReplyMsg reply;
  reply.type = request.type;
  Reply(slave, reply);
  collectives_.FailCollectivesMissing(&slave);
  if (!failed_) Schedule();
}

void Master::HandleAbort(Slave& slave, const RequestMsg& request) {
  // The job's exit status is the error code, as with mpirun, but never 0.
  int status = request.code & 0xff;
  Fail(status != 0 ? status : 1, "rank " + std::to_string(slave.world_rank) +
                                     " called MPI_Abort with error code " +
                                     std::to_string(request.code));
}

void Master::OnEvent(const RequestMsg& event) {
  if (event.peer == kNetworkEventPeer) {
    if (network_) OnNetworkEvents();
    return;
  }
  if (event.peer == kTouchWatchEventPeer) {
    memory_.OnTouchWatch();
    return;
  }
  if (event.code == SIGUSR1) {
    observe_.OnStatusAsked(event.tag);  // the sender's pid (EventWatcher)
    return;
  }
  if (event.code == SIGUSR2) {
    // srun ends a step's tasks at once with SIGKILL at SIGINT twice or at
    // SIGTERM, leaving their objects; it passes SIGUSR2 on as it is.
    Fail(128 + SIGTERM, "bdmpiexec ends the job (a signal or its time limit; through srun)");
    return;
  }
  if (event.code != 0) {
    // bdmpiexec's death reaches the master as SIGTERM (PR_SET_PDEATHSIG).
    if (getppid() != launcher_pid_) {
      Fail(128 + event.code, "its launcher (pid " + std::to_string(launcher_pid_) +
                                 ") is gone");
      return;
    }
    Fail(128 + event.code,
         std::string("master received signal ") + strsignal(event.code) +
             (nnodes_ > 1 ? " (mpirun/srun end every master when one of them fails)" : ""));
    return;
  }
  if (event.peer < 0 || event.peer >= slaves_.size()) return;
  Slave& slave = slaves_[event.peer];
  if (slave.state == SlaveState::kExited) return;
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(slave.pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (pid == slave.pid) OnSlaveExit(slave, status);
}

void Master::OnSlaveExit(Slave& slave, int wait_status) {
  SlaveState was = slave.state;
  slaves_.MarkExited(slave);
  observe_.NoteStateChange(slave);
  slaves_.Forget(slave);
  if (was == SlaveState::kRunning) StopRunning(slave);
  critical_.Leave(slave);
  slave.held_files.clear();
  p2p_.LetGoOfReply(slave);
  if (failed_) return;  // killed by us while ending the job
  payloads_.RetireSegments(static_cast<std::uint64_t>(slave.index));
  payloads_.ForgetOwed(slave.index);
  // Its memory is gone: whoever waited for it may run.
  slave.storage_releasing = false;
  slave.waiting_for_memory = false;
  memory_.ResumeWaitingForMemory();
  if (slave.discarded) {  // its MPI_Comm_spawn failed and killed it
    Schedule();
    return;
  }
  std::string who = "rank " + std::to_string(slave.world_rank) + " (pid " +
                    std::to_string(slave.pid) + ")";
  if (slave.spawned_rank >= 0) {
    who = "spawned rank " + std::to_string(slave.spawned_rank) +
          " (job rank " + std::to_string(slave.world_rank) + ", pid " +
          std::to_string(slave.pid) + ")";
  }
  bool clean_exit = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
  if (clean_exit && (was == SlaveState::kFinalized || !slave.initialized)) {
    BDMPI_DEBUG("sched", "%s exited", who.c_str());
    Schedule();
    return;
  }
  if (clean_exit) {
    Fail(1, who + " exited without calling MPI_Finalize");
  } else if (WIFSIGNALED(wait_status)) {
    std::string oom = WTERMSIG(wait_status) == SIGKILL ? memory_.DescribeOomKill(slave) : "";
    Fail(128 + WTERMSIG(wait_status),
         who + " " + (oom.empty() ? DescribeWaitStatus(wait_status) : oom));
  } else {
    Fail(WEXITSTATUS(wait_status), who + " " + DescribeWaitStatus(wait_status));
  }
}

bool Master::ReapIfExited(Slave& slave) {
  if (slave.state == SlaveState::kExited) return true;
  // Its exit may not be a zombie yet (the kernel frees its memory first):
  // a moment's patience, then it is not dead after all.
  for (int attempt = 0; attempt < 100; ++attempt) {
    int status = 0;
    pid_t reaped = waitpid(slave.pid, &status, WNOHANG);
    if (reaped == slave.pid) {
      OnSlaveExit(slave, status);
      return true;
    }
    if (reaped < 0) return false;
    usleep(10'000);
  }
  return false;
}

void Master::Fail(int exit_status, const std::string& message, bool tell_others) {
  if (failed_) return;
  failed_ = true;
  exit_status_ = exit_status;
  failure_ = message;
  std::string line = "bdmpi: node " + std::to_string(node_) + ": " + message +
                     "; ending the job\n";
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  // What the ranks read from disk and their faults come from their /proc
  // files, gone once they are killed: the partial report keeps them.
  for (const Slave& slave : slaves_) observe_.RecordReadBack(slave);
  KillSlaves();
  if (network_ && tell_others) network_->Abort(exit_status, message);
}

void Master::OnNetworkEvents() {
  for (NetworkEvent& event : network_->TakeEvents()) {
    if (failed_) return;
    switch (event.kind) {
      case NetworkEvent::Kind::kMessage:
        if (event.message.header.kind == WireKind::kDynamic) {
          OnDynamicMessage(std::move(event.message));
        } else {
          p2p_.DeliverRemote(std::move(event.message));
        }
        break;
      case NetworkEvent::Kind::kCollectiveDone:
        test_hooks::PauseStepDone(node_);
        observe_.recorder().InterNodeStepAlgorithm(event.comm, event.seq, event.algorithm);
        collectives_.OnInterNodeStepDone(event.comm, event.seq);
        break;
      case NetworkEvent::Kind::kAbort:
        Fail(event.status, event.text, /*tell_others=*/false);
        break;
      case NetworkEvent::Kind::kFinished:
        network_finished_ = true;
        break;
      case NetworkEvent::Kind::kDeadlock:
        Fail(event.status, event.text);
        break;
      case NetworkEvent::Kind::kStatus:
        network_->status().Answer(event.status, event.asker, observe_.RankStatusText());
        break;
      case NetworkEvent::Kind::kStatusGathered:
        observe_.DeliverStatus(event.asker, event.text);
        break;
      case NetworkEvent::Kind::kStepMismatch:
        collectives_.FailStepMismatch(event.conflict);
        break;
    }
  }
}

void Master::KillSlaves() {
  for (Slave& slave : slaves_) {
    if (slave.pid > 0 && slave.state != SlaveState::kExited) {
      kill(slave.pid, SIGKILL);
    }
  }
  // Reap them all so nothing of the job outlives the master.
  for (Slave& slave : slaves_) {
    if (slave.pid > 0 && slave.state != SlaveState::kExited) {
      while (waitpid(slave.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      slaves_.MarkExited(slave);
    }
  }
}

std::optional<std::string> Master::BlockedRanks() const {
  if (slaves_.running() > 0 || !slaves_.idle()) return std::nullopt;
  std::string blocked;
  for (const Slave& slave : slaves_) {
    switch (slave.state) {
      case SlaveState::kRBlocked:
      case SlaveState::kCBlocked:
        blocked += (blocked.empty() ? "rank " : "; rank ") +
                   std::to_string(slave.world_rank) + " in " + DescribeBlockedCall(slave);
        break;
      case SlaveState::kExited:
        break;
      default:
        // Someone can still make progress; a rank that finalized too: it
        // may start a session and send what the others wait for, until it
        // exits.
        return std::nullopt;
    }
  }
  return blocked;
}

void Master::CheckDeadlock() {
  std::optional<std::string> blocked = BlockedRanks();
  // Nobody here can run: a rank that waits for its lent blocks to be read
  // must not wait for a receiver that waits for it (a nonblocking
  // collective with other calls in between): the blocks are copied.
  if (blocked && !blocked->empty() && p2p_.MaterializeLentBlocks([](int) { return true; }) > 0) {
    Schedule();
    return;
  }
  if (network_) {
    // Across nodes a message may still come from elsewhere: node 0's
    // network thread decides from every node's state (Network::ReportState).
    NodeState state;
    state.quiescent = blocked.has_value();
    state.sent = p2p_.remote_sent();
    state.received = p2p_.remote_received();
    if (blocked) {
      state.any_blocked = !blocked->empty();
      state.blocked = std::move(*blocked);
      // Ranks that finalized and exited are often why the others wait (a
      // collective they never joined): name them too, but not the slots
      // reserved for spawns that never held a process.
      for (const Slave& slave : slaves_) {
        if (slave.state != SlaveState::kExited || slave.SpareSlot()) continue;
        state.blocked += (state.blocked.empty() ? "rank " : "; rank ") +
                         std::to_string(slave.world_rank) + " exited";
      }
    }
    network_->ReportState(std::move(state));
    return;
  }
  if (blocked && !blocked->empty())
    Fail(1, "deadlock: every live rank is blocked: " + *blocked);
}

void Master::Reply(Slave& slave, const ReplyMsg& reply) {
  if (!io_->SendReply(slave.index, reply))
    throw Error(kErrIntern, "go-queue of rank " + std::to_string(slave.world_rank) +
                                " is full: protocol violated");
}

void Master::Block(Slave& slave, SlaveState state, const RequestMsg& request) {
  BDMPI_ENFORCE(BlocksInState(FindMessageRow(request.type)->blocks,
                              state == SlaveState::kRBlocked),
                std::string("the message table says ") + MsgTypeName(request.type) +
                    " does not block in state " + SlaveStateName(state));
  slave.state = state;
  slave.pending = request;
  observe_.NoteStateChange(slave);
  StopRunning(slave);
  Schedule();
}

void Master::Yield(Slave& slave, const RequestMsg& request) {
  BDMPI_ENFORCE(FindMessageRow(request.type)->blocks == Blocks::kRunnable,
                std::string("the message table says ") + MsgTypeName(request.type) +
                    " never yields");
  slave.state = SlaveState::kRunnable;
  slave.pending = request;
  observe_.NoteStateChange(slave);
  StopRunning(slave);
  slaves_.MakeRunnableAfterYield(slave);
  Schedule();
}

void Master::WakeIfReady(Slave& slave) {
  if (MakeRunnableIfReady(slave)) Schedule();
}

bool Master::MakeRunnableIfReady(Slave& slave) {
  // A poller for which something arrived goes before the pollers for
  // which nothing did: what arrived may be what its next test looks for
  // (Graph500 tests its receives from other nodes, those from its own
  // node and a nonblocking barrier in turn, and yields at each). Out of
  // core every turn of a poller whose data is on disk reads it back, and
  // in a fixed order the pollers with nothing new would take their turns
  // all the same.
  if (slave.state == SlaveState::kRunnable) return slaves_.Promote(slave);
  if (slave.state != SlaveState::kRBlocked && slave.state != SlaveState::kCBlocked)
    return false;
  if (!Ready(slave, *slave.pending)) return false;
  slave.state = SlaveState::kRunnable;
  observe_.NoteStateChange(slave);
  slaves_.MakeRunnable(slave);
  return true;
}

void Master::PublishSlotWanted() {
  // A rank that spins for a direct message keeps its running slot only
  // while no other wants one (common/direct_table.h). Wanted: a runnable
  // rank finds every slot taken, or -nr auto holds it back for memory.
  // Not while a slot is free and only the hand-over delays the start.
  DirectTable table = Direct();
  if (!table.valid()) return;
  bool wanted = !slaves_.idle() &&
                (slaves_.running() >= slaves_.running_limit() || memory_holding_);
  std::atomic<std::uint32_t>& flag = table.node().slot_wanted;
  std::uint32_t value = wanted ? 1 : 0;
  if (flag.load(std::memory_order_relaxed) != value) flag.store(value, std::memory_order_seq_cst);
}

void Master::Schedule() {
  // ServeMessage schedules at the end; a hold schedules when it ends.
  if (serving_message_ || handover_.holding()) {
    if (!serving_message_) PublishSlotWanted();
    return;
  }
  handover_.ClearSpread();
  memory_refused_ = false;
  while (MayStartNext()) {
    Slave* next = slaves_.StartNext();
    if (next == nullptr) break;
    Resume(*next);
  }
  if (memory_refused_ != memory_holding_) {
    memory_holding_ = memory_refused_;
    if (memory_holding_) {
      ++memory_holds_;
      BDMPI_DEBUG("sched", "-nr auto: %d rank(s) run, the next waits for memory",
                  slaves_.running());
    }
    observe_.recorder().MemoryHold(memory_holding_, MonotonicNs());
  }
  memory_.ReadAheadNext();
  PublishSlotWanted();
}

void Master::StopRunning(Slave& slave) {
  slave.storage_peak = std::max(slave.storage_peak, memory_.StorageBytes(slave));
  slave.memory_changed = true;
  memory_.NoteStopped(slave);
  if (const StorageSlot* table = io_->StorageTable())
    table[slave.index].switches.fetch_add(1, std::memory_order_relaxed);  // the tool interface
  slaves_.StopRunning(slave);
}

void Master::Resume(Slave& slave) {
  BDMPI_DEBUG("sched", "resume rank %d", slave.world_rank);
  slave.state = SlaveState::kRunning;  // bound to a core by StartNext
  observe_.NoteStateChange(slave);
  if (!memory_.MemoryFor(slave)) {
    slave.waiting_for_memory = true;  // replied once others released theirs
    return;
  }
  SendResumeReply(slave);
}

void Master::SendResumeReply(Slave& slave) {
  memory_.NoteResume(slave);
  slave.resumed_ns = MonotonicNs();
  slave.reading_back = slave.storage_released;
  slave.storage_released = false;
  slave.storage_read_ahead = false;
  memory_.NoteResidentStorage();
  RequestMsg request = *slave.pending;
  slave.pending.reset();
  Reply(slave, Complete(slave, request));
}

bool Master::Ready(const Slave& slave, const RequestMsg& request) const {
  const MessageRow* row = FindMessageRow(request.type);
  return row == nullptr || row->ready == nullptr || row->ready(*this, slave, request);
}

ReplyMsg Master::Complete(Slave& slave, const RequestMsg& request) {
  const MessageRow* row = FindMessageRow(request.type);
  if (row != nullptr && row->complete != nullptr) return row->complete(*this, slave, request);
  ReplyMsg reply;
  reply.type = request.type;
  return reply;
}

}  // namespace bdmpi
