#include "master/network.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/job_names.h"
#include "common/log.h"
#include "collectives/collectives.h"
#include "master/job_recorder.h"
#include "common/test_hooks.h"
#include "master/message_table.h"

namespace bdmpi {
namespace {

constexpr int kTagP2P = 1;
constexpr int kTagControl = 2;
// Spill files this thread creates (the event loop and slaves have theirs).
constexpr std::uint64_t kNetworkFileOwner = 0xfffffe;

void CheckMpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(kErrIntern, std::string(what) + ": " + text);
}

// The first operation tag of step `seq` of a communicator.
int StepTag(std::uint64_t seq) {
  static_assert(4096 * coll::kTagsPerOperation <= kOpTagSpace);
  return static_cast<int>(seq % 4096) * coll::kTagsPerOperation;
}

bool TestRequest(MPI_Request& request) {
  if (request == MPI_REQUEST_NULL) return true;
  int done = 0;
  CheckMpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}

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

Network::Network(Config config, std::function<void()> wake)
    : config_(std::move(config)), wake_(std::move(wake)) {
  MPI_Comm_rank(MPI_COMM_WORLD, &node_);
  MPI_Comm_size(MPI_COMM_WORLD, &nnodes_);
  // Separate communicators keep the kinds of traffic from matching each
  // other's receives (and the record exchange, record_exchange.h, has one).
  CheckMpi(MPI_Comm_dup(MPI_COMM_WORLD, &p2p_), "MPI_Comm_dup");
  CheckMpi(MPI_Comm_dup(MPI_COMM_WORLD, &coll_), "MPI_Comm_dup");
  CheckMpi(MPI_Comm_dup(MPI_COMM_WORLD, &control_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(p2p_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(coll_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(control_, MPI_ERRORS_RETURN);
  sends_ = std::vector<SendStream>(nnodes_);
  receives_ = std::vector<RecvStream>(nnodes_);
  receive_buffer_.resize(std::max(config_.chunk_size,
                                  sizeof(WireHeader) + config_.inline_max));
  int* tag_ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(coll_, MPI_TAG_UB, &tag_ub, &flag);
  max_channels_ = flag ? static_cast<int>((static_cast<long long>(*tag_ub) + 1) / kOpTagSpace) : 1;
  // MPI_COMM_WORLD's channel, BDMPI_COMM_CWORLD's and the marker's.
  BDMPI_ENFORCE(max_channels_ >= 3, "MPI_TAG_UB below three channels of operation tags");
  --max_channels_;
  flush_tag_ = max_channels_ * kOpTagSpace;
  ExchangeNodeNames();
  MPI_Comm records = MPI_COMM_NULL;
  CheckMpi(MPI_Comm_dup(MPI_COMM_WORLD, &records), "MPI_Comm_dup");
  records_.Start(records, node_);
  heartbeat_.kind = ControlKind::kHeartbeat;
  heartbeat_requests_.assign(nnodes_, MPI_REQUEST_NULL);
  states_.assign(nnodes_, ControlMsg{});
}

void Network::ExchangeNodeNames() {
  // Every master learns every node's rack, so that all order their chains
  // alike (rack names become small integers), and its host, for messages.
  constexpr int kNameBytes = 64;
  std::vector<char> mine(2 * kNameBytes, '\0');
  std::snprintf(mine.data(), kNameBytes, "%s", config_.rack.c_str());
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
  BDMPI_INFO("coll", "node %d is in rack '%s' (%zu rack(s))", node_, config_.rack.c_str(),
             names.size());
}

Network::~Network() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  // The communicators are freed by MPI_Finalize, or gone with MPI_Abort.
}

void Network::Start() {
  watch_ = PeerWatch(nnodes_, node_, config_.peer_timeout, PeerWatch::Clock::now());
  thread_ = std::thread([this] { Run(); });
}

std::string Network::Describe(int node) const {
  return "node " + std::to_string(node) + " (host " + hosts_[node] + ")";
}

void Network::Send(OutgoingMessage message) {
  message.payload.Pin();  // read by this network's thread from now on
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outbox_.push_back(std::move(message));
  }
  work_cv_.notify_one();
}

void Network::StartCollective(const CollectiveStep& step) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    step_inbox_.push_back(step);
  }
  work_cv_.notify_one();
}

void Network::Abort(int status, const std::string& text) {
  std::unique_lock<std::mutex> lock(mutex_);
  RequestAbortLocked(status, text);
  work_cv_.notify_one();
  abort_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return abort_sent_; });
}

void Network::RequestAbortLocked(int status, const std::string& text) {
  abort_notice_.kind = ControlKind::kAbort;
  abort_notice_.status = status;
  std::snprintf(abort_notice_.text, sizeof abort_notice_.text, "%s", text.c_str());
  abort_requested_ = true;
}

void Network::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_requested_ = true;
  }
  work_cv_.notify_one();
}

void Network::ReportState(NodeState state) {
  std::lock_guard<std::mutex> lock(mutex_);
  local_state_ = std::move(state);
}

std::vector<NetworkEvent> Network::TakeEvents() {
  wake_pending_.store(false);
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<NetworkEvent> events;
  events.swap(events_);
  return events;
}

void Network::Push(NetworkEvent event) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(event));
  }
  // One wake-up per batch of events: the event loop drains them all.
  if (!wake_pending_.exchange(true)) wake_();
}

void Network::Run() {
  pthread_setname_np(pthread_self(), "bdmpi-network");  // for ps, top and perf
  // The idle pauses below are 10-200 us; with the default 50 us timer slack
  // each lasted 60 us and more, and a message from another node waited for
  // the pause to end.
  prctl(PR_SET_TIMERSLACK, 1000UL);
  if (!config_.placement.ApplyToCallingThread())
    BDMPI_DEBUG("sched", "the network thread stays where the master runs: %s",
                std::strerror(errno));
  // Polling MPI costs a core; back off to short sleeps when idle, so that
  // the slaves keep the processors.
  int idle_rounds = 0;
  for (;;) {
    bool busy = false;
    try {
      busy |= TakeWork();
      for (int dest = 0; dest < nnodes_; ++dest) busy |= ProgressSends(dest);
      busy |= ProgressReceives();
      busy |= ProgressCollectives();
      busy |= ProgressControl();
      ProgressLiveness();
      ProgressDeadlockWatch();
    } catch (const std::exception& error) {
      // This thread is the only one that can reach the other masters: tell
      // them before leaving, or they would wait for MPI_Abort's kill. Not
      // when the master is taking the network down (it ends the job itself,
      // often because another master told it to): a notice from here would
      // race the real cause to the others, with the wrong text and status.
      std::string text = std::string("network: ") + error.what();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_) return;
        RequestAbortLocked(1, text);
      }
      if (!notices_started_) {
        notices_started_ = true;
        SendAbortNotices();
        FinishAbortNotices(std::chrono::seconds(1));
      }
      NetworkEvent event;
      event.kind = NetworkEvent::Kind::kAbort;
      event.status = 1;
      event.text = text;
      Push(std::move(event));
      return;
    }
    if (shutdown_request_ != MPI_REQUEST_NULL && TestRequest(shutdown_request_)) {
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
      NetworkEvent event;
      event.kind = NetworkEvent::Kind::kFinished;
      Push(std::move(event));
      return;
    }
    if (busy) {
      idle_rounds = 0;
      continue;
    }
    ++idle_rounds;
    if (idle_rounds < 64) {
      sched_yield();
      continue;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (stop_) return;
    // While a transfer or collective is under way the next completion is
    // due soon: a late look at it delays every chunk of a pipeline. Idle,
    // a fraction of a millisecond bounds the latency of the next message.
    int cap_us = InFlight() ? 50 : 200;
    auto pause = std::chrono::microseconds(std::min(cap_us, 10 * (idle_rounds - 63)));
    work_cv_.wait_for(lock, pause, [this] {
      return stop_ || !outbox_.empty() || !step_inbox_.empty() ||
             (abort_requested_ && !notices_started_) ||
             (shutdown_requested_ && !shutting_down_ && !steps_flushed_);
    });
    if (stop_) return;
  }
}

void Network::PushStepMismatch(const StepConflict& conflict) {
  // The master words it: it knows which ranks live on which node.
  NetworkEvent event;
  event.kind = NetworkEvent::Kind::kStepMismatch;
  event.conflict = conflict;
  Push(std::move(event));
}

bool Network::InFlight() const {
  if (!steps_.empty()) return true;
  for (const SendStream& stream : sends_) {
    if (stream.active) return true;
  }
  for (const RecvStream& stream : receives_) {
    if (stream.active) return true;
  }
  return false;
}

bool Network::TakeWork() {
  std::deque<OutgoingMessage> outgoing;
  std::deque<CollectiveStep> steps;
  bool abort = false;
  bool shutdown = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_) throw Error(kErrIntern, "network stopped");
    outgoing.swap(outbox_);
    steps.swap(step_inbox_);
    abort = abort_requested_ && !abort_sent_;
    shutdown = shutdown_requested_ && !shutting_down_;
  }
  for (OutgoingMessage& message : outgoing) {
    int dest = message.dest_node;
    sends_[dest].queue.push_back(std::move(message));
  }
  for (const CollectiveStep& step : steps) StartStep(step);
  if (abort && !notices_started_) {
    notices_started_ = true;
    SendAbortNotices();
  }
  if (shutdown) {
    // A bcast's root rank may finalize before its step has sent the data.
    bool idle = steps_.empty() &&
                std::all_of(sends_.begin(), sends_.end(), [](const SendStream& s) {
                  return !s.active && s.queue.empty();
                });
    // With every rank finalized and every step done, a step message still
    // waiting here was sent by a master whose ranks called another
    // collective or root; once every other master's marker has come, none
    // can still be on its way (stale_steps.h).
    if (idle && !stale_step_found_) {
      if (!steps_flushed_) {
        stale_steps_.Flush(coll_, flush_tag_);
        steps_flushed_ = true;
      }
      if (std::optional<StepConflict> conflict = stale_steps_.Drain(coll_, node_)) {
        stale_step_found_ = true;
        PushStepMismatch(*conflict);
        return true;
      }
      if (stale_steps_.Flushed()) {
        shutting_down_ = true;
        records_.Send();
        CheckMpi(MPI_Ibarrier(control_, &shutdown_request_), "MPI_Ibarrier");
      }
    }
  }
  return !outgoing.empty() || !steps.empty();
}

bool Network::ProgressSends(int dest) {
  SendStream& stream = sends_[dest];
  bool busy = false;
  if (!stream.active) {
    if (stream.queue.empty()) return false;
    OutgoingMessage& message = stream.queue.front();
    Payload& payload = message.payload;
    bool inline_payload = !payload.on_disk() && payload.bytes() <= config_.inline_max;
    message.header.bytes = payload.bytes();
    message.header.chunks =
        inline_payload ? 0
                       : static_cast<std::uint32_t>((payload.bytes() + config_.chunk_size - 1) /
                                                    config_.chunk_size);
    stream.head.resize(sizeof(WireHeader) + (inline_payload ? payload.bytes() : 0));
    std::memcpy(stream.head.data(), &message.header, sizeof(WireHeader));
    if (inline_payload && payload.bytes() > 0)
      std::memcpy(stream.head.data() + sizeof(WireHeader), payload.memory().data(),
                  payload.bytes());
    CheckMpi(MPI_Isend(stream.head.data(), static_cast<int>(stream.head.size()), MPI_BYTE,
                       dest, kTagP2P, p2p_, &stream.head_request),
             "MPI_Isend");
    stream.chunks = message.header.chunks;
    stream.next_chunk = 0;
    if (transfers_.on()) stream.started_ns = MonotonicNs();
    if (stream.chunks > 0) {
      // A memory or a spill file.
      stream.fd = payload.Open(O_RDONLY);
    }
    stream.active = true;
    busy = true;
  }
  OutgoingMessage& message = stream.queue.front();
  for (ChunkSlot& slot : stream.slots) {
    if (!TestRequest(slot.request)) continue;
    if (stream.next_chunk >= stream.chunks) continue;
    std::uint64_t offset = std::uint64_t{stream.next_chunk} * config_.chunk_size;
    std::size_t length = static_cast<std::size_t>(
        std::min<std::uint64_t>(config_.chunk_size, message.payload.bytes() - offset));
    slot.buffer.resize(length);
    ReadExactlyAt(stream.fd.get(), slot.buffer.data(), length, offset,
                  message.payload.file()->path());
    CheckMpi(MPI_Isend(slot.buffer.data(), static_cast<int>(length), MPI_BYTE, dest, kTagP2P,
                       p2p_, &slot.request),
             "MPI_Isend");
    ++stream.next_chunk;
    busy = true;
  }
  bool all_sent = TestRequest(stream.head_request) && stream.next_chunk >= stream.chunks &&
                  std::all_of(std::begin(stream.slots), std::end(stream.slots),
                              [](ChunkSlot& slot) { return TestRequest(slot.request); });
  if (all_sent) {
    if (transfers_.on())
      transfers_.Sent(dest, message.payload.bytes(), stream.chunks, stream.started_ns,
                      MonotonicNs());
    stream.fd.reset();
    stream.queue.pop_front();  // releases the payload (and its spill file)
    stream.active = false;
    busy = true;
  }
  if (busy) ++progress_;
  return busy;
}

bool Network::ProgressReceives() {
  bool busy = false;
  for (;;) {
    int flag = 0;
    MPI_Message handle;
    MPI_Status status;
    CheckMpi(MPI_Improbe(MPI_ANY_SOURCE, kTagP2P, p2p_, &flag, &handle, &status),
             "MPI_Improbe");
    if (!flag) return busy;
    busy = true;
    ++progress_;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (static_cast<std::size_t>(count) > receive_buffer_.size()) receive_buffer_.resize(count);
    CheckMpi(MPI_Mrecv(receive_buffer_.data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE),
             "MPI_Mrecv");
    watch_.Heard(status.MPI_SOURCE, PeerWatch::Clock::now());
    RecvStream& stream = receives_[status.MPI_SOURCE];
    if (!stream.active) {
      BDMPI_ENFORCE(static_cast<std::size_t>(count) >= sizeof(WireHeader), "short wire header");
      stream.message = IncomingMessage();
      std::memcpy(&stream.message.header, receive_buffer_.data(), sizeof(WireHeader));
      const WireHeader& header = stream.message.header;
      if (header.chunks == 0) {
        if (transfers_.on()) {
          std::int64_t now = MonotonicNs();
          transfers_.Received(status.MPI_SOURCE, header.bytes, 0, now, now);
        }
        stream.message.memory.assign(receive_buffer_.data() + sizeof(WireHeader),
                                     receive_buffer_.data() + count);
        NetworkEvent event;
        event.message = std::move(stream.message);
        Push(std::move(event));
        continue;
      }
      stream.message.on_disk = true;
      stream.message.in_memory = config_.memory_dir != nullptr;
      stream.message.file_id = MakeFileId(kNetworkFileOwner, ++file_seq_);
      stream.fd = IncomingDir(stream.message).Create(stream.message.file_id, O_WRONLY,
                                                      &stream.message.file_inode);
      stream.chunks_left = header.chunks;
      stream.offset = 0;
      stream.active = true;
      if (transfers_.on()) stream.started_ns = MonotonicNs();
      continue;
    }
    if (PwriteFull(stream.fd.get(), receive_buffer_.data(), static_cast<std::size_t>(count),
                   stream.offset) < 0) {
      ThrowWriteError("write", IncomingDir(stream.message).FilePath(stream.message.file_id),
                      errno);
    }
    stream.offset += static_cast<std::uint64_t>(count);
    if (--stream.chunks_left == 0) {
      if (transfers_.on())
        transfers_.Received(status.MPI_SOURCE, stream.message.header.bytes,
                            stream.message.header.chunks, stream.started_ns, MonotonicNs());
      stream.fd.reset();
      stream.active = false;
      NetworkEvent event;
      event.message = std::move(stream.message);
      Push(std::move(event));
    }
  }
}

void Network::StartStep(const CollectiveStep& step) {
  // Steps of one communicator follow one another; a few may overlap (a root
  // goes on to its next collective), so each gets its own tag range. The
  // transport keeps communicators apart (mpi_transport.h).
  int tag = StepTag(step.seq);
  std::span<std::byte> data(step.data, step.data == nullptr ? 0 : step.bytes);
  ActiveStep active{step, {}, std::make_unique<MpiTransport>(coll_, step.group, step.signature), nullptr, {}};
  for (int node : step.group->nodes) active.racks.push_back(racks_[node]);
  std::span<const int> racks(active.racks);
  coll::Transport& transport = *active.transport;
  const MessageRow* row = FindMessageRow(step.type);
  if (row == nullptr || row->start_step == nullptr)
    throw Error(kErrIntern, std::string("no inter-node step for ") + MsgTypeName(step.type));
  active.operation = row->start_step({transport, tag, data, step, racks, config_.tuning});
  active.algorithm = coll::LastAlgorithm();
  steps_.push_back(std::move(active));
}

bool Network::ProgressCollectives() {
  bool busy = false;
  for (auto it = steps_.begin(); it != steps_.end();) {
    bool done = false;
    try {
      if (!it->mismatched) done = it->operation->Progress();
    } catch (const StepMismatch& mismatch) {
      PushStepMismatch({it->step.comm, it->step.seq, node_, it->step.signature,
                        mismatch.peer_node, mismatch.theirs});
      it->mismatched = true;
    } catch (const Error& error) {
      if (error.error_class() != kErrTruncate) throw;
      throw Error(kErrOther, std::string(MpiCallName(it->step.type)) +
                                 " with different sizes on different nodes: " + error.what() +
                                 " (every rank must give the same count and datatype)");
    }
    if (!done) {
      ++it;
      continue;
    }
    NetworkEvent event;
    event.kind = NetworkEvent::Kind::kCollectiveDone;
    event.comm = it->step.comm;
    event.seq = it->step.seq;
    event.algorithm = it->algorithm;
    Push(std::move(event));
    StepRef finished;
    finished.comm = it->step.comm;
    finished.seq = it->step.seq;
    finished.group_size = static_cast<int>(it->step.group->nodes.size());
    finished.signature = it->step.signature;
    const NodeGroup& group = *it->step.group;
    stale_steps_.Finished(group.channels[group.self] * kOpTagSpace + StepTag(it->step.seq),
                          it->step.comm, it->step.seq, it->step.signature);
    finished_steps_.push_back(finished);
    if (finished_steps_.size() > kMaxStepRefs / 2) finished_steps_.pop_front();
    it = steps_.erase(it);
    ++progress_;
    busy = true;
  }
  return busy;
}

void Network::SendAbortNotices() {
  ControlMsg notice;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    notice = abort_notice_;
  }
  notices_.assign(nnodes_, notice);
  for (int peer = 0; peer < nnodes_; ++peer) {
    if (peer == node_) continue;
    MPI_Request request;
    if (MPI_Isend(&notices_[peer], sizeof(ControlMsg), MPI_BYTE, peer, kTagControl, control_,
                  &request) == MPI_SUCCESS)
      notice_requests_.push_back(request);
  }
}

void Network::FinishAbortNotices(std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!notice_requests_.empty() && std::chrono::steady_clock::now() < deadline) {
    int done = 0;
    MPI_Testall(static_cast<int>(notice_requests_.size()), notice_requests_.data(), &done,
                MPI_STATUSES_IGNORE);
    if (done) notice_requests_.clear();
    sched_yield();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  abort_sent_ = true;
  abort_cv_.notify_all();
}

void Network::ReportProgress(const NodeProgress& progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  local_progress_ = progress;
}

NodeProgress Network::JobProgress() {
  std::lock_guard<std::mutex> lock(mutex_);
  return job_progress_;
}

void Network::PushStatus(std::vector<StatusExchange::Found> found) {
  for (StatusExchange::Found& item : found) {
    NetworkEvent event;
    event.kind = item.kind == StatusExchange::Found::Kind::kAsked
                     ? NetworkEvent::Kind::kStatus
                     : NetworkEvent::Kind::kStatusGathered;
    event.status = item.node;
    event.asker = item.asker;
    event.text = std::move(item.text);
    Push(std::move(event));
  }
}

bool Network::ProgressControl() {
  bool busy = false;
  PushStatus(status_.Progress(control_, node_, nnodes_));
  if (!notice_requests_.empty()) {
    int done = 0;
    MPI_Testall(static_cast<int>(notice_requests_.size()), notice_requests_.data(), &done,
                MPI_STATUSES_IGNORE);
    if (done) {
      notice_requests_.clear();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        abort_sent_ = true;
      }
      abort_cv_.notify_all();
      busy = true;
    }
  } else {
    std::lock_guard<std::mutex> lock(mutex_);
    if (abort_requested_ && !abort_sent_ && nnodes_ == 1) {
      abort_sent_ = true;
      abort_cv_.notify_all();
    }
  }
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
    Push(std::move(event));
    busy = true;
  }
  return busy;
}

ControlMsg Network::LocalState() {
  ControlMsg state;
  state.kind = ControlKind::kState;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    state.quiescent = !local_state_.quiescent ? 0 : local_state_.any_blocked ? 2 : 1;
    state.sent = local_state_.sent;
    state.received = local_state_.received;
    // A control message has room for a few ranks; "..." says more were cut.
    std::string blocked = local_state_.blocked;
    if (blocked.size() >= sizeof state.text) blocked = blocked.substr(0, sizeof state.text - 4) + "...";
    std::snprintf(state.text, sizeof state.text, "%s", blocked.c_str());
    state.activity = local_progress_;
  }
  // A collective step that still moves data is progress, however slowly.
  state.progress = progress_;
  for (const ActiveStep& step : steps_) state.progress += step.transport->completed();
  auto add_step = [&state](StepRef ref) {
    if (state.nsteps == kMaxStepRefs) {
      state.steps_overflow = 1;
      return;
    }
    state.steps[state.nsteps++] = ref;
  };
  for (const ActiveStep& step : steps_) {
    StepRef ref;
    ref.comm = step.step.comm;
    ref.seq = step.step.seq;
    ref.group_size = static_cast<int>(step.step.group->nodes.size());
    ref.active = 1;
    ref.signature = step.step.signature;
    add_step(ref);
  }
  for (const StepRef& ref : finished_steps_) add_step(ref);
  return state;
}

void Network::ProgressDeadlockWatch() {
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

void Network::CheckGlobalDeadlock() {
  if (deadlock_reported_) return;
  // Masters that disagree on a step's collective: no wait for quiet rounds,
  // the step never completes (or completed wrongly).
  if (std::optional<StepConflict> conflict = FindStepConflict(states_)) {
    deadlock_reported_ = true;
    PushStepMismatch(*conflict);
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
  Push(std::move(event));
}

bool Network::StepsProgress() const {
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

void Network::ProgressLiveness() {
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
