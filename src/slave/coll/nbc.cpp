// The schedule of a collective operation and its requests; see nbc.h.
#include "slave/coll/nbc.h"

#include <string>
#include <utility>

#include "common/error.h"
#include "slave/coll/coll_p2p.h"
#include "slave/memory/dead_pages.h"
#include "slave/p2p/direct_path.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/threads.h"

namespace bdmpi {

// On an intercommunicator the plans (nbc_inter.cpp) name ranks of the
// hidden communicator of both groups, whose twin carries the messages.
Schedule::Schedule(const CommInfo& comm)
    : twin_(CollectiveCommId(comm.id)),
      rank_(comm.WireRank()),
      size_(comm.inter ? comm.size + comm.PeerGroupSize() : comm.size),
      world_ranks_(comm.inter ? std::vector<int>{} : comm.world_ranks) {}

int Schedule::WorldRankOf(int dest) const {
  return world_ranks_.empty() ? dest : world_ranks_[static_cast<std::size_t>(dest)];
}

void Schedule::SendBytes(int dest, int tag, const void* data, std::uint64_t bytes) {
  RequestMsg request = CollRequest(MsgType::kSend, twin_, rank_, dest, tag);
  Runtime::Instance()->SendMessage(data, bytes, request, SendKind::kCollective, WorldRankOf(dest));
}

void Schedule::SendElements(int dest, int tag, const void* buffer, int count, MPI_Datatype type) {
  WireData wire = ToWire(buffer, count, type);
  SendBytes(dest, tag, wire.data, wire.bytes);
}

void Schedule::LendBytes(int dest, int tag, const void* data, std::uint64_t bytes) {
  RequestMsg request = CollRequest(MsgType::kSend, twin_, rank_, dest, tag);
  if (Runtime::Instance()->SendMessage(data, bytes, request, SendKind::kCollectiveBlock,
                                       WorldRankOf(dest)) == SendPath::kLent)
    lent_.push_back(request.id);
}

void Schedule::LendElements(int dest, int tag, const void* buffer, int count, MPI_Datatype type) {
  LendWire(dest, tag, ToWire(buffer, count, type));
}

void Schedule::LendWire(int dest, int tag, const WireData& wire) {
  // A packed copy dies with `wire`: only the user's own buffer is lent.
  if (wire.packed.empty()) {
    LendBytes(dest, tag, wire.data, wire.bytes);
  } else {
    SendBytes(dest, tag, wire.data, wire.bytes);
  }
}

void Schedule::Recv(int source, int tag, std::uint64_t capacity, Deliver deliver) {
  Runtime* runtime = Runtime::Instance();
  RequestMsg request = CollRequest(MsgType::kPostRecv, twin_, rank_, source, tag);
  request.bytes = capacity;
  request.id = runtime->NewRecvId();
  runtime->Post(request);
  steps_.push_back(Step{request.id, std::move(deliver), nullptr});
}

void Schedule::SendEmpty(int dest, int tag) {
  RequestMsg request = CollRequest(MsgType::kSend, twin_, rank_, dest, tag);
  Runtime::Instance()->SendMessage(nullptr, 0, request, SendKind::kStandard, WorldRankOf(dest));
}

namespace {

// The address an empty receive publishes: a sender writes nothing there,
// but a receive without one is taken for a type with gaps.
std::byte schedule_empty_target;

}  // namespace

void Schedule::RecvEmpty(int source, int tag) {
  Runtime* runtime = Runtime::Instance();
  RequestMsg request = CollRequest(MsgType::kPostRecv, twin_, rank_, source, tag);
  request.id = runtime->NewRecvId();
  Step step{request.id,
            [](const ReplyMsg& reply) { Runtime::Instance()->FetchPayload(reply, nullptr, 0); },
            nullptr};
  // Every receive of a rank of the node goes through the direct path, so
  // that it takes its message from the inbox (TwinTagUsesInbox).
  int sender = runtime->LocalSlave(WorldRankOf(source));
  if (sender >= 0) {
    step.direct = Direct().Post(twin_, source, tag,
                                reinterpret_cast<std::uint64_t>(&schedule_empty_target), 0,
                                request.id);
    // Other threads that may need the rank's lock (held while it polls)
    // get only a short look, as for a point-to-point receive.
    step.sender = threads::MayBlockAtMaster() ? sender : kFarSender;
  }
  // Told to the master with the rank's next request that may concern it,
  // unless a sender has completed it by then (as an MPI_Irecv's).
  if (!step.direct || Direct().Announce(step.direct, request, step.sender >= 0, step.sender))
    runtime->Post(request);
  steps_.push_back(std::move(step));
}

void Schedule::RecvElements(int source, int tag, void* buffer, int count, MPI_Datatype type) {
  std::uint64_t capacity = WireBytes(count, type);
  std::shared_ptr<const TypeInfo> layout = ScatteredLayout(type);
  Recv(source, tag, capacity, [=](const ReplyMsg& reply) {
    FetchInto(reply, buffer, count, layout.get(), capacity);
    if (reply.error != MPI_SUCCESS)
      throw Error(reply.error, "rank " + std::to_string(source) +
                                   " sends more data than the receive count holds");
  });
  // MPI's equal type signatures: the message fills the buffer.
  if (layout == nullptr) {
    steps_.back().overwrites = buffer;
    steps_.back().overwrites_bytes = capacity;
  }
}

void Schedule::Await(std::uint64_t id, Deliver deliver) {
  steps_.push_back(Step{id, std::move(deliver), nullptr});
}

void Schedule::Then(Action action) { steps_.push_back(Step{0, nullptr, std::move(action)}); }

void Schedule::RunLocalSteps() {
  while (!done() && steps_[next_].id == 0) steps_[next_++].action();
}

void Schedule::Begin() {
  // Last: a lent block comes back only when its receiver has read it, which
  // needs nothing more of this rank.
  for (std::uint64_t id : lent_) steps_.push_back(Step{id, [](const ReplyMsg&) {}, nullptr});
  lent_.clear();
  RunLocalSteps();
}

std::uint64_t Schedule::waiting_id() const { return done() ? 0 : steps_[next_].id; }

void Schedule::TakeStep(const ReplyMsg& reply) {
  steps_[next_++].deliver(reply);
  RunLocalSteps();
}

void Schedule::Absorb(const ReplyMsg& reply) {
  // Completed by the master: its slot is free again.
  if (const std::shared_ptr<DirectRecv>& direct = steps_[next_].direct) Direct().Collect(*direct);
  TakeStep(reply);
  // The completion calls ask the master about the next step's receive
  // next: it must know it, unless a sender has completed it.
  ProgressAlone(/*wait=*/false);
}

void Schedule::ProgressAlone(bool wait) {
  while (!done()) {
    Step& step = steps_[next_];
    if (!step.direct || step.direct->collected) return;
    DirectRecv& recv = *step.direct;
    if (recv.told) {
      // Told before this wait: it may still be written while this rank
      // polls, which then tells the master it is over.
      if (!wait || !Direct().PollTold(recv, step.sender)) return;
      Runtime::Instance()->Note(IdRequest(MsgType::kDirectTaken, step.id));
    } else if (!(wait ? Direct().Poll(recv, step.sender) : Direct().Written(recv))) {
      // The master must hear of it now (with every receive posted before
      // it), unless a sender takes it first.
      Runtime::Instance()->TellDeferredReceives();
      if (recv.told) return;
      Direct().WaitWritten(recv);
    }
    DirectStatus sent = Direct().TakeWritten(recv);
    ReplyMsg reply;
    reply.type = MsgType::kTestRecv;
    reply.flag = 1;
    reply.source = sent.source;
    reply.tag = sent.tag;
    reply.bytes = sent.bytes;
    reply.error = sent.bytes > 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    TakeStep(reply);
  }
}

bool Schedule::TestHere() const {
  // Steps a sender completed already are passed over: the test says "not
  // yet" for the first one still open, which ProgressAlone would tell the
  // master of after taking them (a barrier's receives from the ranks that
  // came first, then one from a rank still on its way).
  for (std::size_t i = next_; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    if (step.id == 0) continue;  // a local action
    if (!step.direct || step.direct->collected) return false;
    if (Direct().Written(*step.direct)) continue;
    if (step.direct->told || !step.direct->in_ring()) return false;
    return Direct().MayStayUntold(step.sender);
  }
  return false;
}

void Schedule::AddPending(memory::DeadWhileWaiting& dead) const {
  for (std::size_t i = next_; i < steps_.size(); ++i)
    dead.Add(steps_[i].overwrites, steps_[i].overwrites_bytes);
}

void Schedule::Wait() {
  for (ProgressAlone(/*wait=*/true); !done(); ProgressAlone(/*wait=*/true))
    Absorb(memory::WaitWithDead(
        [&](memory::DeadWhileWaiting& dead) { AddPending(dead); },
        [&] { return Runtime::Instance()->Call(IdRequest(MsgType::kWaitRecv, waiting_id())); }));
}

bool Schedule::Test() {
  for (ProgressAlone(/*wait=*/false); !done();) {
    ReplyMsg reply = Runtime::Instance()->Call(IdRequest(MsgType::kTestRecv, waiting_id()));
    if (!reply.flag) return false;
    Absorb(reply);
  }
  return true;
}

void Schedule::Abandon() {
  // The master must know a receive it is asked to drop the message of;
  // one a sender completed meanwhile is simply over.
  bool told = false;
  for (; next_ < steps_.size(); ++next_) {
    Step& step = steps_[next_];
    if (step.id == 0) continue;
    if (step.direct && !step.direct->collected && !step.direct->told) {
      if (!told) Runtime::Instance()->TellDeferredReceives();
      told = true;
      if (!step.direct->told) {
        Direct().WaitWritten(*step.direct);
        Direct().TakeWritten(*step.direct);
        continue;
      }
    }
    if (step.direct && !step.direct->collected) Direct().Abandon(step.direct);
    Runtime::Instance()->Post(IdRequest(MsgType::kFreeRecv, step.id));
  }
}

void RunBlocking(const CollectivePlan& plan) {
  Schedule schedule = plan();
  schedule.Begin();
  schedule.Wait();
}

CollectiveRequest::CollectiveRequest(MPI_Comm comm_handle, CollectivePlan plan)
    : Request(comm_handle), plan_(std::move(plan)) {}

void CollectiveRequest::Reflect() {
  done = running_->done();
  id = running_->waiting_id();
  if (done) SetEmptyStatus(&status);
}

void CollectiveRequest::Start() {
  running_.reset();
  running_.emplace(plan_());
  running_->Begin();
  active = true;
  Reflect();
}

void CollectiveRequest::Absorb(const ReplyMsg& reply) {
  running_->Absorb(reply);
  Reflect();
}

void CollectiveRequest::AddOverwritten(memory::DeadWhileWaiting& dead) const {
  if (active && running_ && !done) running_->AddPending(dead);
}

void CollectiveRequest::ProgressAlone(bool wait) {
  if (!active || !running_ || done) return;
  running_->ProgressAlone(wait);
  Reflect();
}

bool CollectiveRequest::TestHere() { return active && running_ && !done && running_->TestHere(); }

void CollectiveRequest::Cancel() {
  if (!active) return;
  throw Error(kErrRequest,
              "MPI_Cancel of a collective's request: MPI does not allow cancelling a "
              "nonblocking or persistent collective (MPI-3.1 5.12); complete it with "
              "MPI_Wait or MPI_Test instead");
}

bool CollectiveRequest::Free() {
  if (active && running_) running_->Abandon();
  return true;
}

MPI_Request StartNonblocking(std::unique_ptr<CollectiveRequest> request) {
  request->Start();
  return NewRequest(std::move(request));
}

MPI_Request StartNonblocking(CollectivePlan plan, MPI_Comm comm) {
  return StartNonblocking(std::make_unique<CollectiveRequest>(comm, std::move(plan)));
}

MPI_Request NewPersistent(CollectivePlan plan, MPI_Comm comm) {
  auto request = std::make_unique<CollectiveRequest>(comm, std::move(plan));
  request->persistent = true;
  request->active = false;
  request->done = true;
  return NewRequest(std::move(request));
}

}  // namespace bdmpi
