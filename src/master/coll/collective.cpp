// The two-phase protocol shared by every collective (paper 5.4): members
// deposit their part and block (cblocked) until the operation's result is
// ready for them; MPI_Barrier is this protocol with no data. Members that
// only contribute (a bcast root, a reduce non-root) are answered at once,
// because their part is buffered.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <type_traits>
#include <variant>

#include "common/error.h"
#include "common/handles.h"
#include "common/log.h"
#include "common/private_dir.h"
#include "master/coll/collectives.h"
#include "master/message_table.h"

namespace bdmpi {
namespace {

// Whether a member of this collective waits for a result.
bool NeedsResult(const MessageRow& row, bool is_root) {
  switch (row.result_for) {
    case ResultFor::kEveryone: return true;
    case ResultFor::kNonRoot: return !is_root;
    case ResultFor::kRoot: return is_root;
  }
  return true;
}

}  // namespace

bool EveryLocalMemberArrived(const Collective& collective, const MasterComm& comm) {
  return collective.arrived == static_cast<int>(comm.local_ranks.size());
}

bool BcastLocallyComplete(const Collective& collective, const MasterComm& comm) {
  // On one node the root's data is all anyone waits for.
  return comm.spans_nodes ? EveryLocalMemberArrived(collective, comm)
                          : std::get<BcastState>(collective.state).root_arrived;
}

bool EveryLocalPartFolded(const Collective& collective, const MasterComm& comm) {
  return std::get<ReduceState>(collective.state).folded ==
         static_cast<int>(comm.local_ranks.size());
}

CollectiveData* DataOf(Collective& collective) {
  return std::visit(
      [](auto& state) -> CollectiveData* {
        if constexpr (std::is_base_of_v<CollectiveData, std::decay_t<decltype(state)>>) {
          return &state;
        } else {
          return nullptr;
        }
      },
      collective.state);
}

bool Collectives::CollectiveReady(const Slave&, const RequestMsg& request) const {
  auto it = collectives_.find({request.comm, request.id});
  return it != collectives_.end() && it->second.done;
}

Collective& Collectives::JoinCollective(Slave& slave, const RequestMsg& request) {
  const MasterComm& comm = Comm(request.comm);
  const MessageRow& row = *FindMessageRow(request.type);
  std::uint64_t seq = MemberOf(slave).collective_seq[request.comm]++;
  auto [it, created] = collectives_.try_emplace({request.comm, seq});
  Collective& collective = it->second;
  if (created) {
    collective.type = request.type;
    collective.comm = request.comm;
    collective.seq = seq;
    collective.root = request.peer;
    collective.datatype = request.datatype;
    collective.op = request.op;
    collective.bytes = request.bytes;
    collective.replies_due = 0;
    row.make_state(collective.state);
    for (int rank : comm.local_ranks) {
      if (NeedsResult(row, rank == request.peer)) ++collective.replies_due;
    }
  } else if (collective.type != request.type || (row.rooted && collective.root != request.peer)) {
    // MPI leaves this undefined; silently mixing them would corrupt data.
    master_.Fail(1, "rank " + std::to_string(slave.world_rank) + " called " +
                        MpiCallName(request.type) + " (root " + std::to_string(request.peer) +
                        ") while other ranks of the communicator called " +
                        MpiCallName(collective.type) + " (root " + std::to_string(collective.root) +
                        ")");
    throw Error(kErrOther, "collective mismatch");
  }
  ++collective.arrived;
  if (row.same_size) {
    // MPI wants the same amount of data from every member; a bcast of
    // another size would cut or overrun a buffer, a reduction would fold
    // unrelated data.
    if (created) collective.first_rank = request.rank;
    if (request.bytes != collective.bytes) {
      master_.Fail(1, std::string(MpiCallName(request.type)) + " with different sizes: rank " +
                          std::to_string(comm.world_ranks[request.rank]) + " passed " +
                          std::to_string(request.bytes) + " bytes, rank " +
                          std::to_string(comm.world_ranks[collective.first_rank]) + " passed " +
                          std::to_string(collective.bytes) +
                          " bytes (every rank must give the same count and datatype)");
      throw Error(kErrOther, "collective size mismatch");
    }
  }
  return collective;
}

bool Collectives::JoinedAfter(const Slave& member, const Collective& collective) const {
  if (member.index >= static_cast<int>(members_.size())) return false;
  const std::map<int, std::uint64_t>& seqs = members_[member.index].collective_seq;
  auto joined = seqs.find(collective.comm);
  return joined != seqs.end() && joined->second > collective.seq;
}

Collectives::Member& Collectives::MemberOf(const Slave& slave) {
  if (slave.index >= static_cast<int>(members_.size())) members_.resize(slave.index + 1);
  return members_[slave.index];
}

std::uint32_t Collectives::NextCreation(const Slave& slave) {
  return MemberOf(slave).comm_creations++;
}

std::string Collectives::MembersThatLeft(const Collective& collective) const {
  std::string left;
  const MasterComm& comm = Comm(collective.comm);
  const SlaveTable& slaves = master_.slaves();
  for (int rank : comm.local_ranks) {
    const Slave& member = *slaves.ByWorldRank(comm.world_ranks[rank]);
    if (member.state != SlaveState::kFinalized && member.state != SlaveState::kExited) continue;
    if (JoinedAfter(member, collective)) continue;
    left += (left.empty() ? "rank " : ", rank ") + std::to_string(member.world_rank);
  }
  return left;
}

void Collectives::FailCollectivesMissing(const Slave* leaving) {
  // A member that has finalized or exited will never join: without this
  // the others would wait until the deadlock check (one node) or forever.
  for (const auto& [key, collective] : collectives_) {
    if (collective.done) continue;
    std::string left = MembersThatLeft(collective);
    if (left.empty()) continue;
    std::string waiting;
    for (const Slave& slave : master_.slaves()) {
      if (slave.state == SlaveState::kCBlocked && slave.pending &&
          slave.pending->comm == key.first && slave.pending->id == key.second)
        waiting += (waiting.empty() ? "rank " : ", rank ") + std::to_string(slave.world_rank);
    }
    if (waiting.empty() && leaving != nullptr) continue;  // only contributions buffered
    master_.Fail(1, std::string(MpiCallName(collective.type)) + " can never complete: " + left +
                        " finalized or exited without calling it" +
                        (waiting.empty() ? "" : " (" + waiting + " wait in it)"));
    return;
  }
}

void Collectives::HandleCollective(Slave& slave, const RequestMsg& request,
                                   const std::byte* inline_payload) {
  Collective& collective = JoinCollective(slave, request);
  if (!MembersThatLeft(collective).empty()) {
    FailCollectivesMissing(nullptr);
    return;
  }
  RequestMsg joined = request;
  joined.id = collective.seq;  // Ready() and Complete() find it by (comm, seq)
  const MessageRow& row = *FindMessageRow(request.type);
  if (row.contribute != nullptr)
    (this->*row.contribute)(collective, slave, request, inline_payload);
  const MasterComm& comm = Comm(request.comm);
  bool was_done = collective.done;
  bool local_complete = row.locally_complete(collective, comm);
  if (local_complete && !collective.local_complete) {
    collective.local_complete = true;
    RecordCollective(collective, comm);
    if (comm.spans_nodes) {
      StartInterNodeStep(collective);
    } else {
      if (row.finish != nullptr) (this->*row.finish)(collective);
      collective.done = true;
    }
  }
  bool is_root = request.rank == collective.root;
  bool finished_now = collective.done && !was_done;
  // Replies and resumes below may erase `collective`: only keys from here.
  if (request.id != 0) {
    JoinWithoutWaiting(collective, slave, request);
  } else if (NeedsResult(row, is_root)) {
    if (collective.done) {
      master_.Reply(slave, CompleteCollective(slave, joined));
    } else {
      master_.Block(slave, SlaveState::kCBlocked, joined);
    }
  } else if (request.wants_reply) {
    ReplyMsg ack;  // the contribution has left the window
    ack.type = request.type;
    master_.Reply(slave, ack);
  }
  if (finished_now) FinishCollective(joined.comm, joined.id);
}

void Collectives::FinishCollective(int comm, std::uint64_t seq) {
  BDMPI_DEBUG("coll", "collective #%llu on comm %d complete",
              static_cast<unsigned long long>(seq), comm);
  auto it = collectives_.find({comm, seq});
  if (it != collectives_.end()) HandOutToNonblocking(it->second);
  if (it != collectives_.end() && it->second.replies_due == 0) {
    EraseCollective(it);  // e.g. a reduce on a node without its root
    return;
  }
  for (Slave& slave : master_.slaves()) {
    if (slave.state == SlaveState::kCBlocked && slave.pending &&
        slave.pending->comm == comm && slave.pending->id == seq)
      master_.WakeIfReady(slave);
  }
}

ReplyMsg Collectives::CompleteCollective(Slave& slave, const RequestMsg& request) {
  auto it = collectives_.find({request.comm, request.id});
  BDMPI_ENFORCE(it != collectives_.end(), "completing an unknown collective");
  Collective& collective = it->second;
  const MessageRow& row = *FindMessageRow(request.type);
  ReplyMsg reply;
  reply.type = request.type;
  if (row.hand_result != nullptr) reply = (this->*row.hand_result)(slave, collective, request);
  if (--collective.replies_due == 0) EraseCollective(it);
  return reply;
}

ReplyMsg Collectives::GiveResult(Slave& slave, Collective& collective, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  CollectiveData* data = DataOf(collective);
  BDMPI_ENFORCE(data != nullptr, "a result of a collective without data");
  payloads_.Give(data->result, request.bytes, master_.Window(slave.index), reply, slave.held_files);
  if (reply.bytes > request.bytes) reply.error = kErrTruncate;
  return reply;
}

void Collectives::EraseCollective(Pending::iterator it) {
  int comm = it->first.first;
  collectives_.erase(it);
  DropCommIfUnused(comm);
}

void Collectives::StartInterNodeStep(Collective& collective) {
  recorder_.InterNodeStepStarted(collective.comm, collective.seq, MpiCallName(collective.type));
  CollectiveStep step;
  step.type = collective.type;
  step.comm = collective.comm;
  step.seq = collective.seq;
  step.group = Comm(collective.comm).group;
  step.signature = SignatureOf(collective);
  (this->*FindMessageRow(collective.type)->prepare_step)(collective, step);
  master_.network()->StartCollective(step);
}

void Collectives::PrepareBarrierStep(Collective& collective, CollectiveStep& step) {
  const MasterComm& comm = Comm(collective.comm);
  const std::vector<int>& nodes = comm.group->nodes;
  step.root = static_cast<int>(
      std::lower_bound(nodes.begin(), nodes.end(), NodeOf(comm.world_ranks[collective.root])) -
      nodes.begin());
  step.datatype = static_cast<DatatypeId>(collective.datatype);
  step.op = static_cast<OpId>(collective.op);
}

void Collectives::PrepareBcastStep(Collective& collective, CollectiveStep& step) {
  BcastState& bcast = std::get<BcastState>(collective.state);
  if (bcast.root_arrived) {
    collective.bytes = bcast.result.bytes();
    if (bcast.result.on_disk() && collective.bytes > 0)
      bcast.accumulator_map.emplace(
          payloads_.Map(bcast.result, collective.bytes, /*writable=*/true));
  } else {
    // The data arrives from another node, into memory or a reserved spill file.
    bcast.result = payloads_.Allocate(collective.bytes, bcast.accumulator_map);
  }
  PrepareReduceStep(collective, step);
}

void Collectives::PrepareReduceStep(Collective& collective, CollectiveStep& step) {
  PrepareBarrierStep(collective, step);
  CollectiveData& data = *DataOf(collective);
  step.bytes = collective.bytes;
  step.data = data.result.on_disk()
                  ? (data.accumulator_map ? data.accumulator_map->data() : nullptr)
                  : data.result.memory().data();
}

void Collectives::OnInterNodeStepDone(int comm, std::uint64_t seq) {
  auto it = collectives_.find({comm, seq});
  BDMPI_ENFORCE(it != collectives_.end(), "inter-node step of an unknown collective");
  if (CollectiveData* data = DataOf(it->second))
    data->accumulator_map.reset();  // the data stays in its file
  const MessageRow& row = *FindMessageRow(it->second.type);
  if (row.finish != nullptr) (this->*row.finish)(it->second);
  it->second.done = true;
  RecordStepDone(comm, seq);
  FinishCollective(comm, seq);
}

bool Collectives::CountedHere(const MasterComm& comm) const {
  return !comm.spans_nodes || comm.group->nodes.front() == node_;
}

void Collectives::RecordCollective(const Collective& collective, const MasterComm& comm) {
  recorder_.CollectiveRan(MpiCallName(collective.type), collective.bytes,
                          recorder_.on() && CountedHere(comm));
}

void Collectives::RecordStepDone(int comm, std::uint64_t seq) {
  if (recorder_.on()) recorder_.InterNodeStepDone(comm, seq, CountedHere(Comm(comm)));
}

}  // namespace bdmpi
