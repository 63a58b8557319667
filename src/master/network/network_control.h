// The network thread's control protocol (master/network/network.h), apart from the
// transport of messages and steps: on a communicator of its own, the
// masters exchange their node names at the start, heartbeats
// (peer_watch.h), abort notices, the deadlock watch's waves, the live
// status (status_exchange.h) and the shutdown barrier; the end-of-job
// records go on the record exchange's own communicator (record_exchange.h).
// Used by the network thread, but for what the event loop reports of its
// node (ReportState, ReportProgress) and reads of the job (JobProgress).
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "master/network/network.h"
#include "master/network/peer_watch.h"
#include "master/network/record_exchange.h"
#include "master/network/status_exchange.h"
#include "master/network/wire.h"

namespace bdmpi {

class NetworkControl {
 public:
  struct Config {
    std::string rack;  // this node's rack ("" when unknown)
    PeerWatch::Clock::duration peer_timeout = std::chrono::seconds(120);
  };
  struct Hooks {
    std::function<void(NetworkEvent)> push;  // to the event loop
    // Adds the transport's progress and steps to this node's kState.
    std::function<void(ControlMsg&)> add_activity;
    // How many events `push` has handed to the event loop so far.
    std::function<std::uint64_t()> events_pushed;
  };

  // Duplicates MPI_COMM_WORLD for itself and for the record exchange, and
  // exchanges the nodes' names (collective over all masters).
  NetworkControl(Config config, int node, int nnodes, Hooks hooks);
  NetworkControl(const NetworkControl&) = delete;
  NetworkControl& operator=(const NetworkControl&) = delete;

  // Every node's rack as a small integer, alike on all masters.
  const std::vector<int>& racks() const { return racks_; }
  // Every node's host name, by node (set before the thread starts).
  const std::vector<std::string>& hosts() const { return hosts_; }
  StatusExchange& status() { return status_; }
  RecordExchange& records() { return records_; }

  // As the network thread starts: every peer counts as just heard.
  void StartWatch();
  void Heard(int node) { watch_.Heard(node, PeerWatch::Clock::now()); }

  // The live status, and the control messages that came (heartbeats,
  // states and wave requests of the deadlock watch, abort notices).
  bool Progress();
  // Heartbeats out; throws when a peer has been silent too long.
  void ProgressLiveness();
  // The deadlock watch, a termination detection in numbered waves: every
  // half second, once every master has answered the last wave, node 0
  // checks it and asks for the next (kStateRequest); the others answer
  // with their kState. Node 0 declares a deadlock when consecutive
  // complete waves found every node quiescent and balanced, unchanged.
  void ProgressDeadlockWatch();

  // Sends `notice` (a kAbort) to every other master, once.
  void SendAbortNotices(const ControlMsg& notice);
  bool notices_started() const { return notices_started_; }
  // Whether notices are on their way; NoticesLeft tests them and is true
  // once, when the last has left.
  bool notices_pending() const { return !notice_requests_.empty(); }
  bool NoticesLeft();
  // Waits (at most `limit`) for the notices to leave, when the thread
  // ends and Progress will not run again.
  void FinishAbortNotices(std::chrono::milliseconds limit);

  // Every rank of the node finalized and the transport flushed its steps:
  // sends this node's record to node 0 and enters the masters' barrier.
  void EnterShutdownBarrier();
  bool shutting_down() const { return shutting_down_; }
  // Whether every master has entered the barrier; then waits for this
  // node's record to be taken, gives the event loop the last status
  // answers and drops the heartbeats and waves in flight: the control
  // protocol is over.
  bool ShutdownDone();

  // The event loop's latest view of its node, for the deadlock watch.
  void ReportState(NodeState state);
  // --progress: this node's figures, sent with its kState; on node 0, the
  // sum over the nodes that have reported.
  void ReportProgress(const NodeProgress& progress);
  NodeProgress JobProgress();

 private:
  void ExchangeNodeNames(const std::string& rack);
  std::string Describe(int node) const;  // "node 2 (host vc2)"
  // Hands the live status's questions and gathered texts to the event loop.
  void PushStatus(std::vector<StatusExchange::Found> found);
  // This node's kState now.
  ControlMsg LocalState();
  void CheckGlobalDeadlock();
  // Whether some step that every master of its group has started (active
  // or lately finished on each) is still active: then it will complete.
  bool StepsProgress() const;

  Config config_;
  Hooks hooks_;
  int node_ = 0;
  int nnodes_ = 1;
  MPI_Comm control_ = MPI_COMM_NULL;
  std::vector<int> racks_;  // rack id of every node
  std::vector<std::string> hosts_;  // host name of every node
  RecordExchange records_;
  StatusExchange status_;

  // Network thread only.
  PeerWatch watch_{1, 0, {}, {}};
  ControlMsg heartbeat_;                      // the same bytes to every peer
  std::vector<MPI_Request> heartbeat_requests_;  // one outstanding per peer
  bool notices_started_ = false;
  std::vector<ControlMsg> notices_;
  std::vector<MPI_Request> notice_requests_;
  bool shutting_down_ = false;
  MPI_Request shutdown_request_ = MPI_REQUEST_NULL;
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
  NodeState local_state_;
  NodeProgress local_progress_;
  NodeProgress job_progress_;  // node 0
};

}  // namespace bdmpi
