// The master's network thread: the only thread that calls Open MPI after
// MPI_Init, but for the record exchange at the job's end, which has a
// communicator of its own (record_exchange.h). It forwards BDMPI messages to
// other nodes' masters (streaming large ones in chunks between spill files),
// runs the inter-node steps of collectives as non-blocking MPI operations,
// and reports what arrived to the event loop as NetworkEvents. Collectives on
// different communicators and point-to-point traffic all progress here at the
// same time, so none can block another.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/file_io.h"
#include "common/handles.h"
#include "common/protocol.h"
#include "common/spill_dir.h"
#include "collectives/operation.h"
#include "collectives/select.h"
#include "master/mpi_transport.h"
#include "master/payload.h"
#include "master/peer_watch.h"
#include "master/thread_placement.h"
#include "master/record_exchange.h"
#include "master/status_exchange.h"
#include "master/stale_steps.h"
#include "master/step_conflict.h"
#include "master/transfer_log.h"
#include "master/wire.h"

namespace bdmpi {

// The `peer` of the kEvent by which the network thread wakes the event loop.
inline constexpr int kNetworkEventPeer = -2;

struct OutgoingMessage {
  int dest_node = 0;
  WireHeader header;
  Payload payload;
};

struct IncomingMessage {
  WireHeader header;
  std::vector<std::byte> memory;  // small payloads
  bool on_disk = false;           // large ones: a spill file of this node,
  bool in_memory = false;         // or a memory file (Config::memory_dir)
  std::uint64_t file_id = 0;
  std::uint64_t file_inode = 0;
};

// The inter-node part of one collective, among the masters of `group`.
// `data` (bytes long) stays valid and untouched by the event loop until the
// step is reported done.
struct CollectiveStep {
  MsgType type = MsgType::kBarrier;
  int comm = 0;
  std::uint64_t seq = 0;
  std::shared_ptr<const NodeGroup> group;
  int root = 0;  // bcast, reduce: the root's master, as an index in group
  std::byte* data = nullptr;
  std::uint64_t bytes = 0;
  DatatypeId datatype = DatatypeId::kByte;
  OpId op = OpId::kNull;
  std::vector<std::size_t> block_bytes;  // comm split: each master's part
  // What this node's ranks called, checked against every peer's message.
  StepSignature signature;
};

// What the event loop tells node 0's deadlock watch about its node.
struct NodeState {
  bool quiescent = false;    // no live rank can run until something arrives
  std::uint64_t sent = 0;    // messages forwarded to other nodes so far
  std::uint64_t received = 0;  // messages delivered from other nodes so far
  bool any_blocked = false;  // some live rank waits (not all finalized)
  std::string blocked;       // "rank 3 in MPI_Recv(source 2, tag 7); ..."
};

struct NetworkEvent {
  // kDeadlock (node 0 only): every node has been quiescent with no message
  // in flight for several rounds; `text` names the blocked ranks.
  // kStatus: node `status` asks for this node's ranks' status for `asker`
  // (SIGUSR1); kStatusGathered: every node's status for `asker`, in `text`.
  // kStepMismatch: two nodes' ranks called different collectives (or
  // roots, or sizes) in one step: `conflict`.
  enum class Kind {
    kMessage, kCollectiveDone, kAbort, kFinished, kDeadlock, kStatus, kStatusGathered,
    kStepMismatch
  };
  Kind kind = Kind::kMessage;
  IncomingMessage message;      // kMessage
  int comm = 0;                 // kCollectiveDone
  std::uint64_t seq = 0;
  // kCollectiveDone: the algorithm of the inter-node step (static text).
  std::string_view algorithm;
  int status = 0;               // kAbort
  int asker = 0;                // kStatus, kStatusGathered
  StepConflict conflict;        // kStepMismatch
  std::string text;
};

class Network {
 public:
  struct Config {
    const SpillDir* spill_dir = nullptr;  // the master's, outlives the network
    // The master's memory directory, where large incoming messages go
    // (the master moves them to disk if the node's memory is short); null:
    // to the spill directory.
    const SpillDir* memory_dir = nullptr;
    std::string rack;  // this node's rack ("" when unknown)
    coll::Tuning tuning;
    std::size_t inline_max = 64 * 1024;   // payloads up to this go in one message
    std::size_t chunk_size = 1 << 20;     // large payloads travel in chunks
    PeerWatch::Clock::duration peer_timeout = std::chrono::seconds(120);
    // Where the network thread runs: the master's processors and policy
    // before it pinned itself (master/thread_placement.h says why).
    ThreadPlacement placement = ThreadPlacement::OfCallingThread();
  };

  // Duplicates MPI_COMM_WORLD (collective over all masters). `wake` is
  // called from the network thread when events are waiting; it must not
  // block (the event loop also polls HasEvents()).
  Network(Config config, std::function<void()> wake);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  int node() const { return node_; }
  int nnodes() const { return nnodes_; }
  // How many communicators spanning nodes a master can tell apart (its
  // channels, mpi_transport.h), from the masters' MPI_TAG_UB.
  int max_channels() const { return max_channels_; }

  void Start();
  void Send(OutgoingMessage message);
  void StartCollective(const CollectiveStep& step);
  // Tells every other master that the job ends with `status`; returns when
  // the notices are out or after a second.
  void Abort(int status, const std::string& text);
  // This node has no slaves left; a kFinished event follows once every node
  // is done, after which no MPI traffic remains.
  void Shutdown();
  std::vector<NetworkEvent> TakeEvents();
  // The event loop's latest view of its node, for the deadlock watch.
  void ReportState(NodeState state);
  // Cheap check the event loop makes after every request, in case a wake-up
  // could not be queued.
  bool HasEvents() const { return wake_pending_.load(std::memory_order_relaxed); }
  // --progress: this node's figures, sent with its kState; on node 0, the
  // sum over the nodes that have reported.
  void ReportProgress(const NodeProgress& progress);
  NodeProgress JobProgress();
  // A live status over every node (status_exchange.h).
  StatusExchange& status() { return status_; }
  // What went to and came from other nodes, when recording (transfer_log.h).
  TransferLog& transfers() { return transfers_; }
  // The masters' end-of-job records and node 0's clock (record_exchange.h).
  RecordExchange& records() { return records_; }

 private:
  struct ChunkSlot {
    std::vector<std::byte> buffer;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  // Messages for one destination node, sent one after the other.
  struct SendStream {
    std::deque<OutgoingMessage> queue;
    bool active = false;
    std::vector<std::byte> head;
    MPI_Request head_request = MPI_REQUEST_NULL;
    UniqueFd fd;  // the payload's spill file while its chunks go out
    std::uint32_t next_chunk = 0;
    std::uint32_t chunks = 0;
    ChunkSlot slots[2];  // double buffering: read one chunk while one flies
    std::int64_t started_ns = 0;  // with transfers_ on
  };
  // The message being received from one source node.
  struct RecvStream {
    bool active = false;
    IncomingMessage message;
    std::uint32_t chunks_left = 0;
    UniqueFd fd;  // the spill file the chunks go to
    std::uint64_t offset = 0;
    std::int64_t started_ns = 0;  // with transfers_ on
  };
  struct ActiveStep {
    CollectiveStep step;
    std::vector<int> racks;  // of the group's masters
    std::unique_ptr<MpiTransport> transport;
    std::unique_ptr<coll::Operation> operation;  // uses transport: destroyed first
    std::string_view algorithm;  // static text (coll::LastAlgorithm)
    // Its peers called another collective: never progressed again, but
    // kept, since MPI may still write into its posted receives.
    bool mismatched = false;
  };

  void ExchangeNodeNames();
  void Run();
  bool TakeWork();
  bool InFlight() const;  // transfers or collective steps under way
  bool ProgressSends(int dest);
  const SpillDir& IncomingDir(const IncomingMessage& message) const {
    return message.in_memory ? *config_.memory_dir : *config_.spill_dir;
  }
  bool ProgressReceives();
  bool ProgressCollectives();
  bool ProgressControl();
  // Hands the live status's questions and gathered texts to the event loop.
  void PushStatus(std::vector<StatusExchange::Found> found);
  // Heartbeats out; throws when a peer has been silent too long.
  void ProgressLiveness();
  std::string Describe(int node) const;  // "node 2 (host vc2)"
  void StartStep(const CollectiveStep& step);
  void Push(NetworkEvent event);
  // Two nodes' ranks called different collectives in one step.
  void PushStepMismatch(const StepConflict& conflict);
  // The notice Abort() and a failing network thread send (mutex_ held).
  void RequestAbortLocked(int status, const std::string& text);
  void SendAbortNotices();
  // The deadlock watch, a termination detection in numbered waves: every
  // half second, once every master has answered the last wave, node 0
  // checks it and asks for the next (kStateRequest); the others answer
  // with their kState. Node 0 declares a deadlock when consecutive
  // complete waves found every node quiescent and balanced, unchanged.
  void ProgressDeadlockWatch();
  // This node's kState now.
  ControlMsg LocalState();
  void CheckGlobalDeadlock();
  // Whether some step that every master of its group has started (active
  // or lately finished on each) is still active: then it will complete.
  bool StepsProgress() const;
  // Waits (at most `limit`) for the notices to leave, when this thread
  // ends and ProgressControl will not run again.
  void FinishAbortNotices(std::chrono::milliseconds limit);

  Config config_;
  std::function<void()> wake_;
  int node_ = 0;
  int nnodes_ = 1;
  MPI_Comm p2p_ = MPI_COMM_NULL;
  MPI_Comm coll_ = MPI_COMM_NULL;
  MPI_Comm control_ = MPI_COMM_NULL;
  std::vector<int> racks_;  // rack id of every node
  std::vector<std::string> hosts_;  // host name of every node
  int max_channels_ = 1;

  // Network thread only.
  std::vector<SendStream> sends_;
  std::vector<RecvStream> receives_;
  std::vector<ActiveStep> steps_;
  std::vector<std::byte> receive_buffer_;
  std::uint64_t file_seq_ = 0;
  bool shutting_down_ = false;
  MPI_Request shutdown_request_ = MPI_REQUEST_NULL;
  bool notices_started_ = false;
  std::vector<ControlMsg> notices_;
  std::vector<MPI_Request> notice_requests_;
  PeerWatch watch_{1, 0, {}, {}};
  ControlMsg heartbeat_;                      // the same bytes to every peer
  std::vector<MPI_Request> heartbeat_requests_;  // one outstanding per peer
  std::uint64_t progress_ = 0;  // p2p transfers and finished steps
  std::deque<StepRef> finished_steps_;  // the last few, newest last
  StaleStepCheck stale_steps_;          // looked at when shutting down
  bool stale_step_found_ = false;       // then: never enter the shutdown barrier
  bool steps_flushed_ = false;          // this master's shutdown marker is sent
  // The marker's tag on coll_: the last channel's first tag, kept from
  // the communicators (max_channels_ excludes it).
  int flush_tag_ = 0;
  PeerWatch::Clock::time_point next_state_{};
  ControlMsg state_msg_;
  MPI_Request state_request_ = MPI_REQUEST_NULL;
  std::int32_t requested_round_ = 0;      // others: the latest wave asked for
  std::int32_t answered_round_ = 0;       // others: the latest wave answered
  std::int32_t round_ = 0;                // node 0: the wave under way
  ControlMsg wave_msg_;                   // node 0: its kStateRequest
  std::vector<MPI_Request> wave_requests_;  // node 0: one per peer
  std::vector<ControlMsg> states_;        // node 0: each node's kState of round_
  std::vector<ControlMsg> last_states_;   // node 0: of the previous complete wave
  int quiet_rounds_ = 0;                  // node 0: checks in a row all quiet
  bool deadlock_reported_ = false;

  // Shared with the event loop.
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable abort_cv_;
  std::deque<OutgoingMessage> outbox_;
  std::deque<CollectiveStep> step_inbox_;
  bool shutdown_requested_ = false;
  bool stop_ = false;
  bool abort_requested_ = false;
  bool abort_sent_ = false;
  ControlMsg abort_notice_;
  NodeState local_state_;
  std::vector<NetworkEvent> events_;
  std::atomic<bool> wake_pending_{false};
  RecordExchange records_;
  NodeProgress local_progress_;  // guarded by mutex_
  NodeProgress job_progress_;    // node 0; guarded by mutex_
  StatusExchange status_;
  TransferLog transfers_;
  std::thread thread_;
};

}  // namespace bdmpi
