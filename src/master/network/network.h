// The master's network thread: the only thread that calls Open MPI after
// MPI_Init, but for the record exchange at the job's end, which has a
// communicator of its own (record_exchange.h). Each round of its loop
// progresses its two halves, each with its own communicators and state:
// the transport (network_transport.h) forwards BDMPI messages to other
// nodes' masters (streaming large ones in chunks between spill files) and
// runs the inter-node steps of collectives as non-blocking MPI operations;
// the control (network_control.h) carries heartbeats, abort notices, the
// deadlock watch, the live status and the shutdown. What arrived goes to the
// event loop as NetworkEvents. Collectives on different communicators and
// point-to-point traffic all progress at the same time, so none can block
// another. This class is what the event loop sees: the thread, and what
// passes between it and the event loop.
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
#include <string_view>
#include <thread>
#include <vector>

#include "collectives/select.h"
#include "common/handles.h"
#include "common/protocol.h"
#include "common/spill_dir.h"
#include "master/memory/payload.h"
#include "master/network/mpi_transport.h"
#include "master/network/peer_watch.h"
#include "master/network/record_exchange.h"
#include "master/network/status_exchange.h"
#include "master/network/step_conflict.h"
#include "master/network/transfer_log.h"
#include "master/network/wire.h"
#include "master/sched/thread_placement.h"

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
  // The network's events the event loop had acted on when it saw the node
  // so (Network::ReportState fills it in): one handed over since (a step
  // that completed, a message) makes the view stale.
  std::uint64_t events_taken = 0;
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

// Two nodes' ranks called different collectives (or roots, or sizes) in one
// step. The master words it: it knows which ranks live on which node.
inline NetworkEvent StepMismatchEvent(const StepConflict& conflict) {
  NetworkEvent event;
  event.kind = NetworkEvent::Kind::kStepMismatch;
  event.conflict = conflict;
  return event;
}

class NetworkTransport;
class NetworkControl;

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
    // before it pinned itself (master/sched/thread_placement.h says why).
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
  int max_channels() const;
  // Every node's host name (MPI_Get_processor_name), by node: MPI_Comm_spawn's
  // info `host` names a node by it.
  const std::vector<std::string>& hosts() const;

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
  StatusExchange& status();
  // What went to and came from other nodes, when recording (transfer_log.h).
  TransferLog& transfers();
  // The masters' end-of-job records and node 0's clock (record_exchange.h).
  RecordExchange& records();

 private:
  void Run();
  bool TakeWork();
  void Push(NetworkEvent event);
  // The notice Abort() and a failing network thread send (mutex_ held).
  void RequestAbortLocked(int status, const std::string& text);
  ControlMsg AbortNotice();
  // The abort notices have left (or there is nobody to tell): Abort returns.
  void AbortSent();
  // Whether the notices left this round.
  bool ProgressAbortNotices();

  Config config_;
  std::function<void()> wake_;
  int node_ = 0;
  int nnodes_ = 1;
  // Network thread only, but for the accessors above.
  std::unique_ptr<NetworkControl> control_;
  std::unique_ptr<NetworkTransport> transport_;

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
  std::vector<NetworkEvent> events_;
  // Events handed to the event loop and taken by it so far: the deadlock
  // watch trusts the loop's view only when it has taken them all.
  std::uint64_t events_pushed_ = 0;
  std::uint64_t events_taken_ = 0;
  std::atomic<bool> wake_pending_{false};
  std::thread thread_;
};

}  // namespace bdmpi
