#include "master/network/network.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/error.h"
#include "common/log.h"
#include "master/network/network_control.h"
#include "master/network/network_transport.h"

namespace bdmpi {

Network::Network(Config config, std::function<void()> wake)
    : config_(std::move(config)), wake_(std::move(wake)) {
  MPI_Comm_rank(MPI_COMM_WORLD, &node_);
  MPI_Comm_size(MPI_COMM_WORLD, &nnodes_);
  // Both halves run on this network's thread: what they found goes
  // through Push.
  auto push = [this](NetworkEvent event) { Push(std::move(event)); };
  control_ = std::make_unique<NetworkControl>(
      NetworkControl::Config{config_.rack, config_.peer_timeout}, node_, nnodes_,
      NetworkControl::Hooks{push, [this](ControlMsg& state) { transport_->AddActivity(state); },
                            [this] {
                              std::lock_guard<std::mutex> lock(mutex_);
                              return events_pushed_;
                            }});
  transport_ = std::make_unique<NetworkTransport>(
      NetworkTransport::Config{config_.spill_dir, config_.memory_dir, config_.tuning,
                               config_.inline_max, config_.chunk_size},
      node_, nnodes_, control_->racks(),
      NetworkTransport::Hooks{push, [this](int node) { control_->Heard(node); }});
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

int Network::max_channels() const { return transport_->max_channels(); }
const std::vector<std::string>& Network::hosts() const { return control_->hosts(); }
StatusExchange& Network::status() { return control_->status(); }
TransferLog& Network::transfers() { return transport_->transfers(); }
RecordExchange& Network::records() { return control_->records(); }

void Network::Start() {
  control_->StartWatch();
  thread_ = std::thread([this] { Run(); });
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

ControlMsg Network::AbortNotice() {
  std::lock_guard<std::mutex> lock(mutex_);
  return abort_notice_;
}

void Network::AbortSent() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abort_sent_ = true;
  }
  abort_cv_.notify_all();
}

bool Network::ProgressAbortNotices() {
  if (control_->notices_pending()) {
    if (!control_->NoticesLeft()) return false;
    AbortSent();
    return true;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (abort_requested_ && !abort_sent_ && nnodes_ == 1) {
    abort_sent_ = true;
    abort_cv_.notify_all();
  }
  return false;
}

void Network::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_requested_ = true;
  }
  work_cv_.notify_one();
}

void Network::ReportState(NodeState state) {
  {
    // The event loop reports after acting on every event it took.
    std::lock_guard<std::mutex> lock(mutex_);
    state.events_taken = events_taken_;
  }
  control_->ReportState(std::move(state));
}

void Network::ReportProgress(const NodeProgress& progress) { control_->ReportProgress(progress); }

NodeProgress Network::JobProgress() { return control_->JobProgress(); }

std::vector<NetworkEvent> Network::TakeEvents() {
  wake_pending_.store(false);
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<NetworkEvent> events;
  events.swap(events_);
  events_taken_ += events.size();
  return events;
}

void Network::Push(NetworkEvent event) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(event));
    ++events_pushed_;
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
      busy |= transport_->ProgressSends();
      busy |= transport_->ProgressReceives();
      busy |= transport_->ProgressCollectives();
      busy |= ProgressAbortNotices();
      busy |= control_->Progress();
      control_->ProgressLiveness();
      control_->ProgressDeadlockWatch();
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
      if (!control_->notices_started()) {
        control_->SendAbortNotices(AbortNotice());
        control_->FinishAbortNotices(std::chrono::seconds(1));
        AbortSent();
      }
      NetworkEvent event;
      event.kind = NetworkEvent::Kind::kAbort;
      event.status = 1;
      event.text = text;
      Push(std::move(event));
      return;
    }
    if (control_->ShutdownDone()) {
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
    int cap_us = transport_->InFlight() ? 50 : 200;
    auto pause = std::chrono::microseconds(std::min(cap_us, 10 * (idle_rounds - 63)));
    work_cv_.wait_for(lock, pause, [this] {
      return stop_ || !outbox_.empty() || !step_inbox_.empty() ||
             (abort_requested_ && !control_->notices_started()) ||
             (shutdown_requested_ && !control_->shutting_down() && !transport_->steps_flushed());
    });
    if (stop_) return;
  }
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
    shutdown = shutdown_requested_ && !control_->shutting_down();
  }
  for (OutgoingMessage& message : outgoing) transport_->Queue(std::move(message));
  for (const CollectiveStep& step : steps) transport_->StartStep(step);
  if (abort && !control_->notices_started()) control_->SendAbortNotices(AbortNotice());
  if (shutdown) {
    switch (transport_->FlushSteps()) {
      case NetworkTransport::Flush::kWaiting:
        break;
      case NetworkTransport::Flush::kMismatch:
        return true;
      case NetworkTransport::Flush::kFlushed:
        control_->EnterShutdownBarrier();
        break;
    }
  }
  return !outgoing.empty() || !steps.empty();
}

}  // namespace bdmpi
