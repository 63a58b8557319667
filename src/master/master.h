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
#include "common/protocol.h"
#include "common/rank_layout.h"
#include "common/unique_fd.h"
#include "master/coll/collectives.h"
#include "master/comm/comm_registry.h"
#include "master/launch/slave_io.h"
#include "master/master_services.h"
#include "master/memory/memory.h"
#include "master/memory/payload.h"
#include "master/memory/payload_store.h"
#include "master/message_table.h"
#include "master/network/network.h"
#include "master/observe/observe.h"
#include "master/options.h"
#include "master/p2p/p2p.h"
#include "master/sched/critical.h"
#include "master/sched/handover_hold.h"
#include "master/sched/slave_table.h"
#include "master/slave.h"

namespace bdmpi {

// Keeps the event loop, the scheduling of slaves and the dispatch of
// requests through the message table; the protocol families (p2p.h,
// collectives.h, critical.h), node memory (memory.h) and observation
// (observe.h) own their handlers and their state, and reach the master
// through MasterServices.
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
  const JobRecorder& recorder() const { return observe_.recorder(); }

 private:
  // Builds the message table from the handlers below (message_table.cpp).
  friend struct MessageTable;

  // Life cycle (master.cpp).
  // Removes the files outside the job's directories that ranks recorded
  // (SpillDir::RecordJobFile) and left behind, e.g. by crashing.
  void RemoveRecordedJobFiles() const;
  void CreateJobDirectory();
  void CreateSlaves();
  // What every rank of `program_path` starts with (RankBaseEnvironment and
  // the job's settings), and starting one rank's process in its slot
  // (`wdir`: its working directory, "" for the master's).
  std::vector<std::string> RankEnvironment(const std::string& program_path) const;
  void StartRank(Slave& slave, const std::string& path, const std::vector<std::string>& argv,
                 const std::vector<std::string>& base_env, const std::string& wdir = {});
  void EventLoop();
  void OnRequest(const RequestMsg& request, const std::byte* inline_payload);
  SlaveTable& slaves() override { return slaves_; }
  void HandleInit(Slave& slave, const RequestMsg& request);
  void HandleFinalize(Slave& slave, const RequestMsg& request);
  void HandleAbort(Slave& slave, const RequestMsg& request);
  void OnEvent(const RequestMsg& event);
  // Dynamic processes: MPI_Comm_spawn's root starts ranks in the job's
  // reserved slots (launch/spawn_ranks.cpp); the job's published names
  // (launch/service_names.cpp).
  void HandleSpawn(Slave& slave, const RequestMsg& request, const std::byte* inline_payload);
  void HandlePublishName(Slave& slave, const RequestMsg& request,
                         const std::byte* inline_payload);
  void HandleLookupName(Slave& slave, const RequestMsg& request,
                        const std::byte* inline_payload);
  void HandleUnpublishName(Slave& slave, const RequestMsg& request,
                           const std::byte* inline_payload);
  // A name request's payload: the service, then for a publish or
  // unpublish a NUL and the port.
  std::string NamePayload(const Slave& slave, const RequestMsg& request,
                          const std::byte* inline_payload);
  void OnNameRequest(const std::vector<std::string>& fields);
  void OnNameAnswer(const std::vector<std::string>& fields);
  // The masters' messages to each other about dynamic processes
  // (WireKind::kDynamic, launch/dynamic_messages.cpp); to this node's own
  // master they go through dynamic_inbox_, served before the handler that
  // sent them returns.
  struct PendingSpawn;
  void OnDynamicMessage(IncomingMessage message);
  void SendDynamic(int node, const std::vector<std::string>& fields);
  void ServeDynamicInbox();
  void OnDynamicFields(const std::vector<std::string>& fields);
  void OnSpawnQuery(int spawn, int origin);
  void OnSpawnFree(const std::vector<std::string>& fields);
  // The spawn a `free` or `started` answer of at least `size` fields is
  // about.
  PendingSpawn& AnsweredSpawn(const std::vector<std::string>& fields, std::size_t size);
  void PlaceSpawn(PendingSpawn& pending);
  void OnSpawnStart(const std::vector<std::string>& fields);
  void OnSpawnStarted(const std::vector<std::string>& fields);
  void OnSpawnDiscard(const std::vector<std::string>& fields);
  void FinishSpawn(int spawn);
  void ReleaseSpawnHold();
  // A reserved slot a spawn may fill: its rank (if it had one) has exited.
  bool SlotFree(int slot) const;
  // This node's spawned ranks that may still exit (not blocked, no root).
  int SpawnRoomSoon() const;
  // A free slot may be the first of a spawn's run on this node: no live
  // rank holds the communicators its old rank led by its place (its
  // spawn's world, that world's part on the node), whose ids the new
  // rank would take.
  bool SlotMayLead(int slot) const;
  // The reserved places of other nodes whose spawn's world a live rank of
  // this node still holds: that node sees them free, but a spawn led from
  // one would take the world's id again (the root's master skips them).
  std::vector<int> RemoteWorldLeadersHeld() const;
  // The live rank of this node that is a member of communicator `id` (it
  // held its place when `id` was registered), if any.
  const Slave* LiveMemberOf(int id) const;
  // Makes the slot of `job_rank` ready for a new rank: the communicators
  // the old one leaves unfreed under ids the new one takes, its messages,
  // replies and shared state. False (with `why`) when a live rank of this
  // node still uses one of those ids.
  bool ClearPlace(Slave& slave, const std::vector<int>& reused_ids, std::string* why);
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
  // On one node, ends the job when every live rank is blocked; with
  // several, reports this node's state to node 0's deadlock watch.
  void CheckDeadlock();
  // "rank 0 in MPI_Recv(...); rank 1 in ...", "" when no rank is live, or
  // nullopt when some rank can still run.
  std::optional<std::string> BlockedRanks() const;
  // What a blocked slave waits in, as the user wrote it (blocked_call.cpp,
  // with the message table's describe functions).
  std::string DescribeBlockedCall(const Slave& slave) const override;
  void HandleRmaWaitIn(Slave& slave, const RequestMsg& request);
  std::string DescribeRooted(const Slave& slave, const RequestMsg& request) const;

  // Scheduling (master.cpp).
  void Reply(Slave& slave, const ReplyMsg& reply) override;
  void Block(Slave& slave, SlaveState state, const RequestMsg& request) override;
  void Yield(Slave& slave, const RequestMsg& request) override;
  bool TestYields(Slave& slave, const RequestMsg& request) override;
  void WakeIfReady(Slave& slave) override;
  // WakeIfReady without scheduling; true if it made the slave runnable.
  bool MakeRunnableIfReady(Slave& slave) override;
  void Schedule();
  // Tells the ranks of the node whether one waits for a running slot
  // (common/direct_table.h: a rank spinning for a message then gives its
  // slot up).
  void PublishSlotWanted();
  // Hand-over with -nr > 1 (handover.cpp, master/sched/handover_hold.h): binds
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
  void SendResumeReply(Slave& slave) override;
  // The slave gives up its running slot (and its core).
  void StopRunning(Slave& slave);
  // Whether a blocked slave may run, and the reply that lets it: the
  // message table's ready and complete functions of its request.
  bool Ready(const Slave& slave, const RequestMsg& request) const;
  ReplyMsg Complete(Slave& slave, const RequestMsg& request);

  // Life cycle (master.cpp). Reaps `slave` if it has died (its exit event may still be on its way)
  // and ends the job as OnSlaveExit does; false if it lives.
  bool ReapIfExited(Slave& slave) override;

  // Observation (observe.h): what the families report through the master.
  void RecordSend(const Slave& slave, const RequestMsg& request, const Payload& payload,
                  bool cross_node) override {
    observe_.RecordSend(slave, request, payload, cross_node);
  }
  const StorageSlot* StorageTable() override { return io_->StorageTable(); }
  DirectTable Direct() override { return io_->Direct(); }

  // Communicators (comm_registry.h) and what else the families share.
  const MasterComm& Comm(int id) const override { return comms_.Get(id); }
  const MasterComm* FindComm(int id) const override { return comms_.Find(id); }
  std::byte* Window(int index) override { return io_->Window(index); }
  Network* network() override { return network_.get(); }
  int NodeOf(int world_rank) const override { return comms_.NodeOf(world_rank); }
  const RankLayout& layout() const override { return layout_; }
  void AwaitUnposted(const Slave& slave, std::uint64_t id) override {
    p2p_.AwaitUnposted(slave, id);
  }
  void CompleteUnposted(const Slave& slave, std::uint64_t id, Message outcome) override {
    p2p_.CompleteUnposted(slave, id, std::move(outcome));
  }
  bool HasIncomingWrites(const Slave& slave) const override { return p2p_.HasIncoming(slave); }
  void AwaitedSources(const Slave& slave, std::vector<int>& world_ranks) const override {
    p2p_.AwaitedSources(slave, world_ranks);
  }
  void CopyLentBlocksOf(const Slave& lender) override {
    p2p_.MaterializeLentBlocks([&lender](int index) { return index == lender.index; });
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
  // The first of the reserved slots the spawn that holds them fills
  // (launch/spawn_ranks.cpp: a slot is free again once its rank exited).
  int spawn_hold_slot_ = -1;
  // MPI_Publish_name's names, on node 0 (the job's): service -> port.
  std::map<std::string, std::string> published_;
  // The spawns this node's ranks are roots of, by id, while the masters
  // place and start their ranks (launch/spawn_ranks.cpp).
  std::map<int, std::shared_ptr<PendingSpawn>> spawns_;
  int next_spawn_id_ = 0;
  // The spawn (origin node, id) that holds this node's free slots between
  // its query and its start; queries of others wait behind it.
  std::optional<std::pair<int, int>> spawn_hold_;
  int spawn_hold_channel_ = -1;
  std::deque<std::pair<int, int>> spawn_queries_;
  std::deque<std::vector<std::string>> dynamic_inbox_;
  bool serving_dynamic_ = false;

  // Stamped on the events of the master's own threads (RequestMsg::token).
  std::uint32_t event_token_ = NewRequestToken();
  std::unique_ptr<SlaveIo> io_;
  SlaveTable slaves_;
  // By slot: when its present rank took the place (CommRegistry::Stamp);
  // the first ranks' places have none.
  std::map<int, std::uint64_t> place_stamps_;
  CommRegistry comms_;
  CriticalSections critical_{*this, options_.ncritical};

  // -nr auto: the running slots are the cores (running_cores_), fewer
  // while the running ranks' data would not fit the budget; how many times
  // a runnable slave was held back for memory with a slot free.
  bool running_auto_ = false;
  int running_cores_ = 0;
  // Whether its ranks may poll for direct messages (BDMPI_MAY_POLL), and
  // this master's share of the host's cores, counted before it pins itself
  // to one of them (afterwards its own affinity says 1).
  bool RanksMayPoll() const;
  // And spin: polling allowed, and neither --direct-poll nor --direct-max 0.
  bool RanksMaySpin() const;
  // More ranks on the node than running slots: most of them wait for a
  // slot, so a waiting rank spins only briefly (BDMPI_MAY_POLL=2), and the
  // hand-over hold stays on.
  bool RanksOutnumberSlots() const;
  // More running slots than cores, and a slot for every rank of the node:
  // a waiting rank polls, yielding its core between looks
  // (BDMPI_MAY_POLL=3), and the ranks are not bound to cores; neither with
  // --direct-poll 0 or --direct-max 0.
  bool RanksMayYield() const;
  // BDMPI_MAY_POLL's value for the ranks (docs/data-path.md, "Direct
  // messages"), or null: they never poll.
  const char* PollRule() const;
  void CountPollCores();
  int poll_cores_ = 0;
  std::unique_ptr<CoreBinder> auto_binder_;  // counted the cores; BindToCores takes it
  bool memory_refused_ = false;  // by the current Schedule
  bool memory_holding_ = false;
  std::uint64_t memory_holds_ = 0;

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
  Observer observe_{*this, options_, payloads_, job_dir_, node_, nnodes_};
  NodeMemory memory_{*this, payloads_, observe_.recorder(), options_};
  // Last: they hold payloads (of the store above) and references to the
  // members above.
  PointToPoint p2p_{*this, payloads_, observe_.recorder(), options_.single_copy};
  Collectives collectives_{*this, payloads_, comms_, observe_.recorder(), node_};
};

}  // namespace bdmpi
