// The schedule of a collective operation and its requests; see nbc.h.
#include "slave/coll/nbc.h"

#include <string>
#include <utility>

#include "common/error.h"
#include "slave/coll/coll_p2p.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/runtime.h"

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

void Schedule::RecvElements(int source, int tag, void* buffer, int count, MPI_Datatype type) {
  std::uint64_t capacity = WireBytes(count, type);
  std::shared_ptr<const TypeInfo> layout = ScatteredLayout(type);
  Recv(source, tag, capacity, [=](const ReplyMsg& reply) {
    FetchInto(reply, buffer, count, layout.get(), capacity);
    if (reply.error != MPI_SUCCESS)
      throw Error(reply.error, "rank " + std::to_string(source) +
                                   " sends more data than the receive count holds");
  });
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

void Schedule::Absorb(const ReplyMsg& reply) {
  steps_[next_++].deliver(reply);
  RunLocalSteps();
}

void Schedule::Wait() {
  while (!done()) Absorb(Runtime::Instance()->Call(IdRequest(MsgType::kWaitRecv, waiting_id())));
}

bool Schedule::Test() {
  while (!done()) {
    ReplyMsg reply = Runtime::Instance()->Call(IdRequest(MsgType::kTestRecv, waiting_id()));
    if (!reply.flag) return false;
    Absorb(reply);
  }
  return true;
}

void Schedule::Abandon() {
  for (; next_ < steps_.size(); ++next_) {
    if (steps_[next_].id != 0)
      Runtime::Instance()->Post(IdRequest(MsgType::kFreeRecv, steps_[next_].id));
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
