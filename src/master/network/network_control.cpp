#include "master/network/network_control.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "common/error.h"
#include "common/job_names.h"
#include "common/log.h"
#include "common/test_hooks.h"
#include "master/network/network_mpi.h"
#include "master/network/step_conflict.h"

namespace bdmpi {
namespace {

constexpr int kTagControl = 2;

// The job's --progress figures from the nodes' latest kState.
NodeProgress SumProgress(const std::vector<ControlMsg>& states) {
  NodeProgress job;
  for (const ControlMsg& state : states) {
    const NodeProgress& node = state.activity;
    job.running += node.running;
    job.runnable += node.runnable;
    job.blocked += node.blocked;
    job.finished += node.finished;
    job.spilled += node.spilled;
    job.written_back += node.written_back;
    if (node.top_call_ranks > job.top_call_ranks) {
      job.top_call_ranks = node.top_call_ranks;
      std::memcpy(job.top_call, node.top_call, sizeof job.top_call);
    }
  }
  return job;
}

}  // namespace

NetworkControl::NetworkControl(Config config, int node, int nnodes, Hooks hooks)
    : config_(std::move(config)), hooks_(std::move(hooks)), node_(node), nnodes_(nnodes) {
  CheckMpi(MPI_Comm_dup(MPI_COMM_WORLD, &control_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(control_, MPI_ERRORS_RETURN);
  ExchangeNodeNames(config_.rack);
  MPI_Comm records = MPI_COMM_NULL;
  CheckMpi(MPI_Comm_dup(MPI_COMM_WORLD, &records), "MPI_Comm_dup");
  records_.Start(records, node_);
  heartbeat_.kind = ControlKind::kHeartbeat;
  heartbeat_requests_.assign(nnodes_, MPI_REQUEST_NULL);
  states_.assign(nnodes_, ControlMsg{});
}

void NetworkControl::StartWatch() {
  watch_ = PeerWatch(nnodes_, node_, config_.peer_timeout, PeerWatch::Clock::now());
}

void NetworkControl::ReportState(NodeState state) {
  std::lock_guard<std::mutex> lock(mutex_);
  local_state_ = std::move(state);
}

void NetworkControl::SendAbortNotices(const ControlMsg& notice) {
  notices_started_ = true;
  notices_.assign(nnodes_, notice);
  for (int peer = 0; peer < nnodes_; ++peer) {
    if (peer == node_) continue;
    MPI_Request request;
    if (MPI_Isend(&notices_[peer], sizeof(ControlMsg), MPI_BYTE, peer, kTagControl, control_,
                  &request) == MPI_SUCCESS)
      notice_requests_.push_back(request);
  }
}

bool NetworkControl::NoticesLeft() {
  if (notice_requests_.empty()) return false;
  int done = 0;
  MPI_Testall(static_cast<int>(notice_requests_.size()), notice_requests_.data(), &done,
              MPI_STATUSES_IGNORE);
  if (!done) return false;
  notice_requests_.clear();
  return true;
}

void NetworkControl::FinishAbortNotices(std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!notice_requests_.empty() && std::chrono::steady_clock::now() < deadline) {
    int done = 0;
    MPI_Testall(static_cast<int>(notice_requests_.size()), notice_requests_.data(), &done,
                MPI_STATUSES_IGNORE);
    if (done) notice_requests_.clear();
    sched_yield();
  }
}

void NetworkControl::EnterShutdownBarrier() {
  shutting_down_ = true;
  records_.Send();
  CheckMpi(MPI_Ibarrier(control_, &shutdown_request_), "MPI_Ibarrier");
}

bool NetworkControl::ShutdownDone() {
  if (shutdown_request_ == MPI_REQUEST_NULL || !TestRequest(shutdown_request_)) return false;
  test_hooks::PauseAfterShutdown(node_);
  // Node 0's event loop receives the records after kFinished, for
  // kRecordWait at most; a node 0 gone or hung after the barrier never
  // does.
  if (!records_.WaitSent(std::chrono::steady_clock::now() + kRecordWait))
    BDMPI_WARN("ipc", "node 0 did not take this node's figures within %lld s of the "
                      "masters' shutdown barrier; the job's report lacks them",
               static_cast<long long>(kRecordWait.count()));
  PushStatus(status_.Progress(control_, node_, nnodes_, /*final=*/true));
  // Every master is done: heartbeats still in flight need no answer.
  for (MPI_Request& request : heartbeat_requests_) {
    if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  }
  if (state_request_ != MPI_REQUEST_NULL) MPI_Request_free(&state_request_);
  for (MPI_Request& request : wave_requests_) {
    if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  }
  return true;
}

void NetworkControl::ExchangeNodeNames(const std::string& rack) {
  // Every master learns every node's rack, so that all order their chains
  // alike (rack names become small integers), and its host, for messages.
  constexpr int kNameBytes = 64;
  std::vector<char> mine(2 * kNameBytes, '\0');
  std::snprintf(mine.data(), kNameBytes, "%s", rack.c_str());
  int length = 0;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(host, &length);
  std::snprintf(mine.data() + kNameBytes, kNameBytes, "%s", host);
  std::vector<char> all(mine.size() * nnodes_);
  CheckMpi(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                         static_cast<int>(mine.size()), MPI_CHAR, control_),
           "MPI_Allgather");
  std::vector<std::string> names;
  racks_.clear();
  hosts_.clear();
  for (int node = 0; node < nnodes_; ++node) {
    const char* record = all.data() + static_cast<std::size_t>(node) * mine.size();
    std::string name(record);
    auto it = std::find(names.begin(), names.end(), name);
    racks_.push_back(static_cast<int>(it - names.begin()));
    if (it == names.end()) names.push_back(name);
    hosts_.emplace_back(record + kNameBytes);
  }
  BDMPI_INFO("coll", "node %d is in rack '%s' (%zu rack(s))", node_, rack.c_str(),
             names.size());
}

std::string NetworkControl::Describe(int node) const {
  return "node " + std::to_string(node) + " (host " + hosts_[node] + ")";
}

void NetworkControl::ReportProgress(const NodeProgress& progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  local_progress_ = progress;
}

NodeProgress NetworkControl::JobProgress() {
  std::lock_guard<std::mutex> lock(mutex_);
  return job_progress_;
}

void NetworkControl::PushStatus(std::vector<StatusExchange::Found> found) {
  for (StatusExchange::Found& item : found) {
    NetworkEvent event;
    event.kind = item.kind == StatusExchange::Found::Kind::kAsked
                     ? NetworkEvent::Kind::kStatus
                     : NetworkEvent::Kind::kStatusGathered;
    event.status = item.node;
    event.asker = item.asker;
    event.text = std::move(item.text);
    hooks_.push(std::move(event));
  }
}

bool NetworkControl::Progress() {
  bool busy = false;
  PushStatus(status_.Progress(control_, node_, nnodes_));
  for (;;) {
    int flag = 0;
    MPI_Status status;
    CheckMpi(MPI_Iprobe(MPI_ANY_SOURCE, kTagControl, control_, &flag, &status), "MPI_Iprobe");
    if (!flag) break;
    ControlMsg notice;
    CheckMpi(MPI_Recv(&notice, sizeof notice, MPI_BYTE, status.MPI_SOURCE, kTagControl,
                      control_, MPI_STATUS_IGNORE),
             "MPI_Recv");
    watch_.Heard(status.MPI_SOURCE, PeerWatch::Clock::now());
    if (notice.kind == ControlKind::kHeartbeat) continue;
    if (notice.kind == ControlKind::kState) {
      if (node_ == 0 && notice.round == round_) states_[status.MPI_SOURCE] = notice;
      continue;
    }
    if (notice.kind == ControlKind::kStateRequest) {
      requested_round_ = std::max(requested_round_, notice.round);
      continue;
    }
    NetworkEvent event;
    event.kind = NetworkEvent::Kind::kAbort;
    event.status = notice.status;
    notice.text[sizeof notice.text - 1] = '\0';
    event.text = "node " + std::to_string(status.MPI_SOURCE) + ": " + notice.text;
    hooks_.push(std::move(event));
    busy = true;
  }
  return busy;
}

ControlMsg NetworkControl::LocalState() {
  ControlMsg state;
  state.kind = ControlKind::kState;
  // The event loop's view dates from when it was last idle. An event it
  // has not acted on yet (a step that completed here, a message) may
  // resume a rank it lists as blocked: e.g. the last node to finish an
  // allreduce, its loop held up, while a faster node's rank already waits
  // in the next collective. Until the loop has taken every event and
  // looked again, the node is busy.
  std::uint64_t pushed = hooks_.events_pushed();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    bool idle = local_state_.quiescent && local_state_.events_taken == pushed;
    state.quiescent = !idle ? 0 : local_state_.any_blocked ? 2 : 1;
    state.sent = local_state_.sent;
    state.received = local_state_.received;
    // A control message has room for a few ranks; "..." says more were cut.
    std::string blocked = local_state_.blocked;
    if (blocked.size() >= sizeof state.text) blocked = blocked.substr(0, sizeof state.text - 4) + "...";
    std::snprintf(state.text, sizeof state.text, "%s", blocked.c_str());
    state.activity = local_progress_;
  }
  hooks_.add_activity(state);
  return state;
}

void NetworkControl::ProgressDeadlockWatch() {
  if (node_ != 0) {
    // Answer node 0's latest wave with this node's state as it is now.
    if (requested_round_ > answered_round_ && TestRequest(state_request_)) {
      state_msg_ = LocalState();
      state_msg_.round = requested_round_;
      answered_round_ = requested_round_;
      CheckMpi(MPI_Isend(&state_msg_, sizeof state_msg_, MPI_BYTE, 0, kTagControl, control_,
                         &state_request_),
               "MPI_Isend");
    }
    return;
  }
  PeerWatch::Clock::time_point now = PeerWatch::Clock::now();
  if (now < next_state_) return;
  // A wave is judged only once every master has answered it: a state that
  // is late is never mistaken for a fresh one.
  bool complete = std::all_of(states_.begin(), states_.end(),
                              [this](const ControlMsg& state) { return state.round == round_; });
  if (!complete) return;
  next_state_ = now + std::chrono::milliseconds(500);
  if (round_ > 0) {
    NodeProgress job = SumProgress(states_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_progress_ = job;
    }
    CheckGlobalDeadlock();
  }
  ++round_;
  states_[0] = LocalState();
  states_[0].round = round_;
  wave_requests_.resize(static_cast<std::size_t>(nnodes_), MPI_REQUEST_NULL);
  // Every peer answered the last request: it has arrived, so these finish.
  for (MPI_Request& request : wave_requests_) {
    if (request != MPI_REQUEST_NULL) MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  wave_msg_.kind = ControlKind::kStateRequest;
  wave_msg_.round = round_;
  for (int peer = 1; peer < nnodes_; ++peer)
    CheckMpi(MPI_Isend(&wave_msg_, sizeof wave_msg_, MPI_BYTE, peer, kTagControl, control_,
                       &wave_requests_[peer]),
             "MPI_Isend");
}

void NetworkControl::CheckGlobalDeadlock() {
  if (deadlock_reported_) return;
  // Masters that disagree on a step's collective: no wait for quiet rounds,
  // the step never completes (or completed wrongly).
  if (std::optional<StepConflict> conflict = FindStepConflict(states_)) {
    deadlock_reported_ = true;
    hooks_.push(StepMismatchEvent(*conflict));
    return;
  }
  // Deadlocked: every node quiescent, every message sent across nodes
  // received (none in flight), and nothing changed on any node between
  // consecutive complete waves (no collective step moving data either):
  // Mattern's four-counter termination detection, with one more wave.
  std::uint64_t sent = 0, received = 0;
  bool quiet = true, anyone_blocked = false, unchanged = last_states_.size() == states_.size();
  for (std::size_t node = 0; node < states_.size(); ++node) {
    const ControlMsg& state = states_[node];
    quiet = quiet && state.kind == ControlKind::kState && state.quiescent != 0;
    anyone_blocked = anyone_blocked || state.quiescent == 2;
    sent += state.sent;
    received += state.received;
    if (unchanged) {
      const ControlMsg& before = last_states_[node];
      unchanged = before.sent == state.sent && before.received == state.received &&
                  before.progress == state.progress && before.quiescent == state.quiescent;
    }
  }
  last_states_ = states_;
  quiet_rounds_ = quiet && anyone_blocked && sent == received && unchanged && !StepsProgress()
                      ? quiet_rounds_ + 1
                      : 0;
  if (quiet_rounds_ < 2) return;
  deadlock_reported_ = true;
  std::string blocked;
  for (std::size_t node = 0; node < states_.size(); ++node) {
    if (states_[node].text[0] == '\0') continue;
    blocked += (blocked.empty() ? " " : "; ") + std::string(states_[node].text);
  }
  NetworkEvent event;
  event.kind = NetworkEvent::Kind::kDeadlock;
  event.status = 1;
  event.text = "deadlock across " + std::to_string(nnodes_) +
               " nodes: every live rank is blocked and no message is in flight:" + blocked;
  hooks_.push(std::move(event));
}

bool NetworkControl::StepsProgress() const {
  struct Seen {
    int nodes = 0;
    int group_size = 0;
    bool active = false;
  };
  std::map<std::pair<int, std::uint64_t>, Seen> seen;
  for (const ControlMsg& state : states_) {
    if (state.steps_overflow) return true;
    for (int i = 0; i < state.nsteps && i < kMaxStepRefs; ++i) {
      const StepRef& ref = state.steps[i];
      Seen& entry = seen[{ref.comm, ref.seq}];
      ++entry.nodes;
      entry.group_size = ref.group_size;
      entry.active = entry.active || ref.active != 0;
    }
  }
  // A step some member never started cannot complete: it is part of the
  // deadlock (e.g. a barrier a finalized rank's node never joined).
  return std::any_of(seen.begin(), seen.end(), [](const auto& item) {
    return item.second.active && item.second.nodes >= item.second.group_size;
  });
}

void NetworkControl::ProgressLiveness() {
  PeerWatch::Clock::time_point now = PeerWatch::Clock::now();
  watch_.Tick(now);
  if (watch_.HeartbeatDue(now)) {
    for (int peer = 0; peer < nnodes_; ++peer) {
      // A heartbeat still on its way to a peer is enough: no pile-up.
      if (peer == node_ || !TestRequest(heartbeat_requests_[peer])) continue;
      CheckMpi(MPI_Isend(&heartbeat_, sizeof heartbeat_, MPI_BYTE, peer, kTagControl, control_,
                         &heartbeat_requests_[peer]),
               "MPI_Isend");
    }
  }
  if (std::optional<int> silent = watch_.Silent(now)) {
    double seconds = std::chrono::duration<double>(watch_.timeout()).count();
    char text[256];
    std::snprintf(text, sizeof text,
                  "%s has sent nothing for %.0f s (%s): its master hangs or its host is "
                  "unreachable",
                  Describe(*silent).c_str(), seconds, kEnvPeerTimeout);
    throw Error(kErrOther, text);
  }
}

}  // namespace bdmpi
