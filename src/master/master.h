// The master of one node: starts the slaves, schedules them, buffers their
// messages and runs the node's part of every collective. One event loop
// blocked on the request queue serves everything; slave exits and signals
// reach it through the same queue (EventWatcher).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/job_liveness.h"
#include "common/job_names.h"
#include "common/name_tags.h"
#include "common/unique_fd.h"
#include "common/protocol.h"
#include "common/rank_layout.h"
#include "master/collectives.h"
#include "master/handover_hold.h"
#include "master/comm_registry.h"
#include "master/critical.h"
#include "master/job_recorder.h"
#include "master/master_services.h"
#include "master/message_table.h"
#include "master/network.h"
#include "master/node_memory.h"
#include "master/options.h"
#include "master/payload.h"
#include "master/payload_store.h"
#include "master/p2p.h"
#include "master/progress_line.h"
#include "master/slave.h"
#include "master/slave_io.h"
#include "master/slave_table.h"

namespace bdmpi {

// Keeps the event loop, the scheduling of slaves and the dispatch of
// requests through the message table; the protocol families (p2p.h,
// collectives.h, critical.h) own their handlers and their state, and reach
// the master through MasterServices.
class Master : private MasterServices {
 public:
  // `io`: how the master reaches its slaves; nullptr: ProcessSlaveIo.
  Master(MasterOptions options, int node, int nnodes, std::unique_ptr<SlaveIo> io = nullptr);
  ~Master();
  Master(const Master&) = delete;
  Master& operator=(const Master&) = delete;

  // Starts the slaves and serves them until all have exited or the job
  // fails. Returns the job's exit status.
  int Run();

  // Run() in parts, for tests that drive a master in-process: Start()
  // claims the node, creates the job's objects and starts the slaves;
  // ServeMessage() handles one request queue message as the event loop does.
  void Start();
  void ServeMessage(const std::byte* message, std::size_t size);
  bool failed() const { return failed_; }
  int exit_status() const { return exit_status_; }
  // Why the job failed ("deadlock: ..."), as printed.
  const std::string& failure() const { return failure_; }
  const Slave& slave(int index) const { return slaves_[index]; }
  const JobRecorder& recorder() const { return recorder_; }

 private:
  // Builds the message table from the handlers below (message_table.cpp).
  friend struct MessageTable;

  // Life cycle (master.cpp).
  // Removes the files outside the job's directories that ranks recorded
  // (SpillDir::RecordJobFile) and left behind, e.g. by crashing.
  void RemoveRecordedJobFiles() const;
  void CreateJobDirectory();
  void CreateSlaves();
  void EventLoop();
  void OnRequest(const RequestMsg& request, const std::byte* inline_payload);
  SlaveTable& slaves() override { return slaves_; }
  void HandleInit(Slave& slave, const RequestMsg& request);
  void HandleFinalize(Slave& slave, const RequestMsg& request);
  void HandleAbort(Slave& slave, const RequestMsg& request);
  void OnEvent(const RequestMsg& event);
  // Request authentication (request_check.cpp). The slave that sent
  // `request` (identified by its token), or nullptr after failing the job
  // when the request is forged or malformed.
  Slave* AuthenticatedSender(const RequestMsg& request);
  // What in the request is not the sender's to give; empty when all is.
  std::string ForgedField(const Slave& slave, const RequestMsg& request) const;
  void OnNetworkEvents();
  void OnSlaveExit(Slave& slave, int wait_status);
  // Ends the job: kills the slaves and, unless the failure was reported by
  // another node, tells the other masters.
  void Fail(int exit_status, const std::string& message, bool tell_others);
  void Fail(int exit_status, const std::string& message) override {
    Fail(exit_status, message, /*tell_others=*/true);
  }
  void KillSlaves();
  // Why a slave got SIGKILL, when the kernel's out-of-memory killer sent
  // it (master/memory.cpp): the limit, what the rank could not page out,
  // what to change; empty when the kernel counted no OOM kill.
  std::string DescribeOomKill(const Slave& slave);
  // On one node, ends the job when every live rank is blocked; with
  // several, reports this node's state to node 0's deadlock watch.
  void CheckDeadlock();
  // "rank 0 in MPI_Recv(...); rank 1 in ...", "" when no rank is live, or
  // nullopt when some rank can still run.
  std::optional<std::string> BlockedRanks() const;
  // What a blocked slave waits in, as the user wrote it (blocked_call.cpp,
  // with the message table's describe functions).
  std::string DescribeBlockedCall(const Slave& slave) const;
  std::string DescribeSourceTag(const Slave& slave, const RequestMsg& request) const;
  std::string DescribeWaitRecv(const Slave& slave, const RequestMsg& request) const;
  std::string DescribeWaitAny(const Slave& slave, const RequestMsg& request) const;
  std::string DescribeAwaitedSend(const Slave& slave, const RequestMsg& request) const;
  std::string DescribeRooted(const Slave& slave, const RequestMsg& request) const;
  double ResidentFraction(int slave);

  // Node memory budget for storage-backed data (memory.cpp).
  void SetNodeMemory();
  std::uint64_t StorageBytes(const Slave& slave) const;
  // What of it counts against the budget: none once released, what is
  // left to write while it releases.
  std::uint64_t ResidentStorageBytes(const Slave& slave) const;
  // How many bytes a releasing slave writes between progress reports.
  std::uint64_t ReleaseStep() const;
  // What `slave` is expected to hold in storage-backed data while it runs.
  std::uint64_t ExpectedStorage(const Slave& slave) const;
  // Reads the slave's statm (at most every 10 ms): its resident fraction
  // and what of its memory cannot be paged (Slave::unpageable). False when
  // it cannot be read.
  bool ReadRankMemory(Slave& slave);
  // The unpageable bytes of every live slave, read again first where they
  // may have changed (`refresh`); warns once when they alone exceed the
  // budget.
  std::uint64_t UnpageableBytes(bool refresh);
  // -nr auto: whether the slave the scheduler would start next fits in the
  // budget next to the running ones (their data cannot be written back).
  bool RoomToRunAnother();
  // Whether `slave` may run now without exceeding the node budget; if not,
  // asks blocked slaves to release their memory and returns false.
  bool MemoryFor(Slave& slave);
  // Whether `bytes` more for `slave` fit in the budget now (kFits); if
  // not, asks slaves that wait (with `blocked_only`, only blocked ones) to
  // release theirs (kReleasing), or finds nobody to ask (kNobody).
  enum class Room { kFits, kReleasing, kNobody };
  Room MakeRoom(const Slave& slave, std::uint64_t bytes, bool blocked_only);
  void HandleReleased(Slave& slave, const RequestMsg& request);
  void HandleReleaseProgress(Slave& slave, const RequestMsg& request);
  // Sends the replies of resumed slaves whose memory is now there.
  void ResumeWaitingForMemory();
  // --prefetch ahead: the slave the scheduler runs next reads its data
  // back while others compute, when the budget has room (memory.cpp).
  void ReadAheadNext();
  // Notes the bytes the budget counts (storage-backed data resident or
  // being read, payloads in memory) after a decision to resume or read
  // ahead, for the -v summary.
  void NoteResidentStorage();
  void LogStorageSummary() const;
  // Payloads larger than the window in memory files (memory_payloads.cpp).
  void CreateMemoryDirectory();
  // Whether memory files of `bytes` more fit the node budget (after giving
  // back idle payload segments if they do not).
  bool MemoryRoomForPayloads(std::uint64_t bytes);
  // Memory files held plus the warm pages of free payload segments.
  std::uint64_t PayloadMemory() const;
  // Gives back idle payload segments to free `wanted` bytes; returns the
  // bytes freed.
  std::uint64_t TrimIdleSegments(std::uint64_t wanted);
  // Moves held memory files to disk to free `wanted` bytes; returns the
  // bytes freed.
  std::uint64_t MovePayloadsToDisk(std::uint64_t wanted);

  // Scheduling (master.cpp).
  void Reply(Slave& slave, const ReplyMsg& reply) override;
  void Block(Slave& slave, SlaveState state, const RequestMsg& request) override;
  void Yield(Slave& slave, const RequestMsg& request) override;
  void WakeIfReady(Slave& slave) override;
  // WakeIfReady without scheduling; true if it made the slave runnable.
  bool MakeRunnableIfReady(Slave& slave) override;
  void Schedule();
  // Hand-over with -nr > 1 (handover.cpp, master/handover_hold.h): binds
  // the master and the slaves to cores; after a queue message, schedules or
  // holds; whether Schedule may start a slave now; the event loop's wait.
  void BindToCores();
  // -nr auto: the running slots from the cores this master may use.
  void ResolveAutoRunning();
  void ScheduleAfterMessage();
  bool MayStartNext();
  std::optional<std::size_t> ReceiveBeforeHandoverDeadline(std::byte* message,
                                                           std::size_t capacity);
  void OnHandoverDeadline();
  void FollowRunningSlaves();
  void Resume(Slave& slave);
  // The reply that lets a resumed slave run.
  void SendResumeReply(Slave& slave);
  // The slave gives up its running slot (and its core).
  void StopRunning(Slave& slave);
  // Whether a blocked slave may run, and the reply that lets it: the
  // message table's ready and complete functions of its request.
  bool Ready(const Slave& slave, const RequestMsg& request) const;
  ReplyMsg Complete(Slave& slave, const RequestMsg& request);

  // Reaps `slave` if it has died (its exit event may still be on its way)
  // and ends the job as OnSlaveExit does; false if it lives.
  bool ReapIfExited(Slave& slave) override;

  // Observability (observe.cpp): the run report, trace, live status and
  // progress line. Off unless asked for; each hook tests recorder_.on().
  void StartRecording();
  // After each served queue message: the activity of each rank noted by
  // NoteStateChange, which every change of a slave's state (or of its
  // waiting_for_memory) calls.
  void RecordRankStates();
  void NoteStateChange(const Slave& slave) { recorder_.Touched(slave.index); }
  void RecordSend(const Slave& slave, const RequestMsg& request, const Payload& payload,
                  bool cross_node) override;
  // Its read-back so far (at MPI_Finalize, while its /proc entry exists,
  // and at the end).
  void RecordReadBack(const Slave& slave);
  // SIGUSR1 from `asker`: every node's ranks' states and, when blocked,
  // their calls, for the asker (common/status_reply.h).
  void OnStatusAsked(int asker);
  std::string RankStatusText() const;  // this node's
  // Into the asker's reply file, or on stderr when it made none.
  void DeliverStatus(int asker, const std::string& text) const;
  // This node's figures and trace events, as node 0 reads them.
  std::string NodeRecord();
  // Before the network shuts down: hands this node's record to node 0.
  void PostRecord();
  // End of the job, node 0: prints the report, writes the JSON and trace.
  void FinishRecording();

  // Communicators (comm_registry.h) and what else the families share.
  const MasterComm& Comm(int id) const override { return comms_.Get(id); }
  const MasterComm* FindComm(int id) const override { return comms_.Find(id); }
  std::byte* Window(int index) override { return io_->Window(index); }
  Network* network() override { return network_.get(); }
  int NodeOf(int world_rank) const override { return comms_.NodeOf(world_rank); }
  void AwaitUnposted(const Slave& slave, std::uint64_t id) override {
    p2p_.AwaitUnposted(slave, id);
  }
  void CompleteUnposted(const Slave& slave, std::uint64_t id, Message outcome) override {
    p2p_.CompleteUnposted(slave, id, std::move(outcome));
  }

  // Declared first, so destroyed last: the liveness file outlives every
  // other object of the node.
  NodeLease lease_;
  // Before every holder of a payload (mailboxes, collectives, network):
  // it holds the spill directory and the budget they are charged to.
  PayloadStore payloads_;
  MasterOptions options_;
  std::string launch_secret_;
  pid_t launcher_pid_;  // bdmpiexec, mpirun or srun
  int node_;
  int nnodes_;
  // Where every rank of the job runs; options_.nslaves is this node's share.
  RankLayout layout_;
  JobNames names_;
  // The master's private directory (spill files, status requests) and its
  // memory directory (tmpfs; "" without one), named before they exist
  // (job_names.h), recorded in the liveness file, then created.
  std::string job_dir_;
  std::string memory_dir_;
  // The key of the tags of the node's queue and window names (name_tags.h).
  std::string name_key_ = NameTags::NewKey();
  std::string program_path_;

  // Stamped on the events of the master's own threads (RequestMsg::token).
  std::uint32_t event_token_ = NewRequestToken();
  std::unique_ptr<SlaveIo> io_;
  SlaveTable slaves_;
  CommRegistry comms_;
  CriticalSections critical_{*this, options_.ncritical};

  std::uint64_t node_memory_ = 0;
  std::uint64_t switch_outs_ = 0;
  std::uint64_t written_back_ = 0;
  std::uint64_t read_aheads_ = 0;
  // Resumes sent while the write-back that made their room went on.
  std::uint64_t overlapped_resumes_ = 0;
  std::uint64_t peak_resident_ = 0;  // NoteResidentStorage's largest
  std::uint64_t peak_unpageable_at_peak_ = 0;  // of it, the ranks' unpageable memory
  std::uint64_t peak_unpageable_ = 0;  // the most the ranks held unpageable
  bool unpageable_warned_ = false;
  // -nr auto: the running slots are the cores (running_cores_), fewer
  // while the running ranks' data would not fit the budget; how many times
  // a runnable slave was held back for memory with a slot free.
  bool running_auto_ = false;
  int running_cores_ = 0;
  std::unique_ptr<CoreBinder> auto_binder_;  // counted the cores; BindToCores takes it
  bool memory_refused_ = false;  // by the current Schedule
  bool memory_holding_ = false;
  std::uint64_t memory_holds_ = 0;
  // The memory cgroup and the kernel's OOM kill counts at the start.
  MemoryCgroup cgroup_;
  OomCounts oom_at_start_;

  std::unique_ptr<Network> network_;  // only with several nodes
  bool network_finished_ = false;
  bool network_shutdown_ = false;
  bool failed_ = false;
  // Set while the requests of one queue message are served: Schedule waits
  // for the end of the message (see ServeMessage).
  bool serving_message_ = false;
  int served_sender_ = -1;  // slave index of the message's last request
  HandoverHold handover_;   // -nr > 1 with binding
  bool master_batch_ = false;  // SCHED_BATCH (handover.cpp)
  std::string failure_;
  int exit_status_ = 0;
  int cpu_ = -1;  // CPU shared by the master and its slaves with -nr 1
  JobRecorder recorder_;
  std::unique_ptr<ProgressLine> progress_;  // --progress, node 0
  // Last: they hold payloads (of the store above) and references to the
  // members above.
  PointToPoint p2p_{*this, payloads_, recorder_, options_.nslaves, options_.single_copy};
  Collectives collectives_{*this, payloads_, comms_, recorder_, node_};
};

}  // namespace bdmpi
