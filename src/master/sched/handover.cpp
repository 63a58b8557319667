// The hand-over between slaves with -nr > 1: where the master and the
// slaves run, and when a runnable slave starts (master/sched/handover_hold.h says
// why).
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "master/master.h"
#include "master/sched/master_cpu.h"

namespace bdmpi {

void Master::ResolveAutoRunning() {
  running_auto_ = true;
  // Before the master pins itself: the cores it was given.
  auto binder = std::make_unique<CoreBinder>();
  int cores = binder->UsableCores();
  if (cores <= 0) {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  }
  running_cores_ = cores;
  options_.nrunning = AutoRunningSlots(cores, LocalMasterCount(), options_.nslaves);
  slaves_.SetRunningLimit(options_.nrunning);
  if (options_.nrunning > 1) auto_binder_ = std::move(binder);
  BDMPI_INFO("sched", "-nr auto: at most %d rank(s) at once (%d core(s), %d master(s) on this host, %d rank(s))",
             options_.nrunning, cores, LocalMasterCount(), options_.nslaves);
}

bool Master::RanksMayPoll() const {
  // A rank waiting for a direct message may poll for it only while the
  // running ranks have a core each (this master's share of the host's):
  // else its polling takes the core from the rank it waits for.
  if (options_.nrunning <= 1) return false;
  return options_.nrunning <= (running_cores_ > 0 ? running_cores_ : poll_cores_);
}

namespace {

// --direct-poll 0 or --direct-max 0: no rank waits for a direct message
// by polling (nor is there one).
bool HandoverDirectWaitsOff() {
  auto off = [](const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && std::strcmp(value, "0") == 0;
  };
  return off(kEnvDirectPoll) || off(kEnvDirectMax);
}

}  // namespace

bool Master::RanksMaySpin() const { return RanksMayPoll() && !HandoverDirectWaitsOff(); }

bool Master::RanksOutnumberSlots() const { return layout_.Count(node_) > options_.nrunning; }

bool Master::RanksMayYield() const {
  // More running ranks than cores: a waiting rank that spun would take the
  // core of the rank it waits for, but one that gives its core back
  // between looks (sched_yield, as Open MPI's ranks do when oversubscribed)
  // lets that rank run at once, where blocking at the master costs a
  // wake-up through the master for every hand-over. Not when ranks also
  // outnumber the slots: most then wait for a slot, not for a message.
  return options_.nrunning > 1 && !RanksMayPoll() && !RanksOutnumberSlots() &&
         !HandoverDirectWaitsOff();
}

const char* Master::PollRule() const {
  if (RanksMayPoll()) return RanksOutnumberSlots() ? "2" : "1";
  if (RanksMayYield()) return "3";
  return nullptr;
}

void Master::CountPollCores() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  int cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  poll_cores_ = cores / std::max(1, LocalMasterCount());
}

void Master::BindToCores() {
  // Ranks that poll by yielding are left to the kernel's balancing, as
  // Open MPI's oversubscribed ranks are: a yield gives the core only to a
  // process allowed on it, and two ranks pinned to each core left a
  // waiter's sender queued on the other one (bench_fanin --isend 64, 4
  // ranks with -nr 4 on 2 cores: rounds ten to twenty times the unpinned
  // ranks'; docs/data-path.md, "Direct messages").
  if (RanksMayYield()) return;
  auto binder = auto_binder_ ? std::move(auto_binder_) : std::make_unique<CoreBinder>();
  // The master stays on the core it starts on (its own, when other masters
  // share the host: master_cpu.h), and a resumed slave takes that core
  // whenever it is free: a slave that blocks and the one it wakes take
  // turns there, as with -nr 1.
  int cpu = MasterCpu();
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (cpu >= 0) CPU_SET(cpu, &cpus);
  if (cpu >= 0 && binder->cores() > 1 && sched_setaffinity(0, sizeof cpus, &cpus) == 0) {
    slaves_.PreferCore(binder->CoreOfCpu(cpu));
    // Ranks that wait for a message of the node spin for it (RanksMayPoll;
    // docs/data-path.md, "Direct messages"): the rank that woke another
    // keeps its core while it spins for the answer, so holding the woken
    // one for that core would only delay both. That holds while every rank
    // has a running slot; with more ranks than slots, most wait for one,
    // nobody spins then (slot_wanted), and the hold pays as with -nr 1
    // (bench/run_handover_bench.sh: fanin on 8 ranks, -nr 2).
    if (!RanksMaySpin() || RanksOutnumberSlots())
      handover_.Enable(HandoverHold::kHoldLimit, HandoverHold::kSpreadAfter);
  }
  slaves_.BindToCores(std::move(binder));
}

void Master::FollowRunningSlaves() {
  // While the slaves that run are all on the master's core, the master is a
  // batch task, as with -nr 1: it does not preempt the slave whose requests
  // it serves, and finds them all queued when that slave blocks. A slave on
  // another core must not wait for its requests until this core's slave
  // blocks or uses up its time slice: then the master preempts.
  bool batch = slaves_.OnlyPreferredCoreBusy();
  if (batch == master_batch_) return;
  sched_param param{};
  if (sched_setscheduler(0, batch ? SCHED_BATCH : SCHED_OTHER, &param) == 0) master_batch_ = batch;
}

void Master::ScheduleAfterMessage() {
  if (handover_.holding()) {
    const Slave& sender = slaves_[handover_.sender()];
    if (sender.state == SlaveState::kRunning && !handover_.HoldExpired(MonotonicNs())) return;
    handover_.EndHold();
  } else if (handover_.enabled() && served_sender_ >= 0 && slaves_.CanStartNext() &&
             slaves_[served_sender_].state == SlaveState::kRunning) {
    // The sender still runs and someone could start: wait for the sender
    // to block and leave its core rather than start on another one.
    handover_.Hold(served_sender_, MonotonicNs());
    return;
  }
  Schedule();
  if (handover_.enabled()) FollowRunningSlaves();
}

bool Master::MayStartNext() {
  if (!slaves_.CanStartNext()) return false;
  // -nr auto runs fewer while the running ranks' data would not fit: one
  // always runs.
  if (running_auto_ && slaves_.running() > 0 && !memory_.RoomToRunAnother()) {
    memory_refused_ = true;
    return false;
  }
  if (!handover_.enabled() || slaves_.PreferredCoreFree()) return true;
  std::int64_t since = slaves_.OldestRunnableSince();
  std::int64_t spread_at = since + handover_.spread_after_ns();
  if (since < 0 || MonotonicNs() >= spread_at) return true;
  handover_.SpreadAt(spread_at);
  return false;
}

std::optional<std::size_t> Master::ReceiveBeforeHandoverDeadline(std::byte* message,
                                                                 std::size_t capacity) {
  std::optional<std::int64_t> deadline = handover_.NextDeadline();
  if (!deadline) return io_->ReceiveRequests(message, capacity);
  // mq_timedreceive counts on the realtime clock.
  std::int64_t wait_ns = std::max<std::int64_t>(0, *deadline - MonotonicNs());
  timespec until{};
  clock_gettime(CLOCK_REALTIME, &until);
  std::int64_t ns = until.tv_nsec + wait_ns;
  until.tv_sec += static_cast<time_t>(ns / 1'000'000'000LL);
  until.tv_nsec = static_cast<long>(ns % 1'000'000'000LL);
  return io_->ReceiveRequestsUntil(message, capacity, until);
}

void Master::OnHandoverDeadline() {
  if (handover_.holding() && handover_.HoldExpired(MonotonicNs()))
    handover_.EndHold();  // the sender went on running
  Schedule();
  FollowRunningSlaves();
  if (!failed_) CheckDeadlock();
}

}  // namespace bdmpi
