// The master's half of communicator creation and freeing. MPI_Comm_split
// (and MPI_Comm_dup, MPI_Comm_create, MPI_Comm_split_type, which the slave
// turns into splits) is a collective on the parent: every member deposits
// its (color, key); when all local members have, a parent that spans nodes
// has its masters allgather their members' SplitEntry records, so that
// every master knows every member's choice and builds the same
// communicators from them. The slave's half is src/slave/comm/comm.cpp.
//
// Ids: the new communicator's leader (lowest world rank) and the leader's
// count of creations name it (CommId), unique across the job without
// asking anyone. Channels: each master picks, for each color of its local
// members, a channel unique among its live communicators, and sends it
// along in the entries; inter-node steps of the new communicator tag their
// messages with the receiver's channel (mpi_transport.h).
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "common/error.h"
#include "common/log.h"
#include "master/coll/collectives.h"
#include "master/comm/split.h"
#include "master/message_table.h"

namespace bdmpi {

void Collectives::ContributeSplit(Collective& collective, Slave& slave, const RequestMsg& request,
                                  const std::byte*) {
  SplitState& split = std::get<SplitState>(collective.state);
  const MasterComm& parent = Comm(request.comm);
  if (split.entries.empty()) {
    split.entries.resize(parent.world_ranks.size());
    for (int world_rank : parent.world_ranks) {
      if (NodeOf(world_rank) < node_) ++split.offset;
    }
  }
  SplitEntry entry;
  CommSplitArgs split_args = CommSplitArgs::Of(request);
  entry.color = split_args.color;
  entry.key = split_args.key;
  entry.rank = request.rank;
  entry.world_rank = slave.world_rank;
  entry.creation = NextCreation(slave);
  if (entry.color != kUndefinedColor && parent.spans_nodes) {
    auto [it, added] = split.channels.try_emplace(entry.color, -1);
    if (added) it->second = AllocateChannel();
    entry.channel = it->second;
  }
  auto local = std::lower_bound(parent.local_ranks.begin(), parent.local_ranks.end(),
                                request.rank);
  split.entries[split.offset + static_cast<std::size_t>(local - parent.local_ranks.begin())] =
      entry;
}

void Collectives::PrepareSplitStep(Collective& collective, CollectiveStep& step) {
  SplitState& split = std::get<SplitState>(collective.state);
  const MasterComm& parent = Comm(collective.comm);
  const std::vector<int>& nodes = parent.group->nodes;
  step.block_bytes.assign(nodes.size(), 0);
  for (int world_rank : parent.world_ranks) {
    auto node = std::lower_bound(nodes.begin(), nodes.end(), NodeOf(world_rank));
    step.block_bytes[static_cast<std::size_t>(node - nodes.begin())] += sizeof(SplitEntry);
  }
  step.data = reinterpret_cast<std::byte*>(split.entries.data());
  step.bytes = split.entries.size() * sizeof(SplitEntry);
}

void Collectives::FinishSplit(Collective& collective) {
  SplitState& split = std::get<SplitState>(collective.state);
  for (PlannedComm& planned : PlanSplit(split.entries, comms_.UniverseSize())) {
    const std::vector<const SplitEntry*>& members = planned.members;
    bool has_local = std::any_of(members.begin(), members.end(), [&](const SplitEntry* e) {
      return NodeOf(e->world_rank) == node_;
    });
    if (!has_local) continue;
    std::vector<int> world_ranks;
    std::map<int, int> channels;
    std::vector<std::byte> list(members.size() * sizeof(std::int32_t));
    for (std::size_t rank = 0; rank < members.size(); ++rank) {
      std::int32_t world_rank = members[rank]->world_rank;
      world_ranks.push_back(world_rank);
      channels[NodeOf(world_rank)] = members[rank]->channel;
      std::memcpy(list.data() + rank * sizeof world_rank, &world_rank, sizeof world_rank);
      if (NodeOf(world_rank) == node_)
        split.outcome[world_rank] = {planned.id, static_cast<int>(rank)};
    }
    const MasterComm& comm = comms_.Add(planned.id, std::move(world_ranks), channels);
    // A communicator within this node needs no channel after all.
    auto chosen = split.channels.find(planned.color);
    if (!comm.spans_nodes && chosen != split.channels.end()) comms_.ReleaseChannel(chosen->second);
    split.members.emplace(planned.id, payloads_.Store(std::move(list)));
    BDMPI_DEBUG("coll", "communicator %d: %zu members, %s", planned.id, members.size(),
                comm.spans_nodes ? "several nodes" : "this node");
  }
}

ReplyMsg Collectives::CompleteSplit(Slave& slave, Collective& collective,
                                    const RequestMsg& request) {
  SplitState& split = std::get<SplitState>(collective.state);
  ReplyMsg reply;
  reply.type = request.type;
  auto outcome = split.outcome.find(slave.world_rank);
  if (outcome == split.outcome.end()) return reply;  // MPI_UNDEFINED
  auto [id, rank] = outcome->second;
  CommSplitReply{true, id, rank, static_cast<std::int32_t>(Comm(id).world_ranks.size())}.Into(reply);
  payloads_.Give(split.members.at(id), std::numeric_limits<std::uint64_t>::max(),
                 master_.Window(slave.index), reply, slave.held_files);
  return reply;
}

void Collectives::HandleCommFree(Slave& slave, const RequestMsg& request) {
  // The slave's count of collectives joined on the communicator stays until
  // the communicator goes (DropCommIfUnused): a collective the slave joined
  // before freeing it (a non-root's MPI_Reduce returns at once) may still be
  // pending, and the count is how MembersThatLeft knows the slave joined it.
  MasterComm* comm = comms_.Find(request.comm);
  BDMPI_ENFORCE(comm != nullptr && comm->live_members > 0,
                "rank " + std::to_string(slave.world_rank) + " freed communicator " +
                    std::to_string(request.comm) + " it is not in");
  --comm->live_members;
  DropCommIfUnused(request.comm);
}

void Collectives::DropCommIfUnused(int id) {
  const MasterComm* comm = comms_.Find(id);
  if (comm == nullptr || comm->live_members > 0) return;
  // Collectives started before the members freed it still finish on it.
  auto pending = collectives_.lower_bound({id, 0});
  if (pending != collectives_.end() && pending->first.first == id) return;
  for (int rank : comm->local_ranks)
    MemberOf(*master_.slaves().ByWorldRank(comm->world_ranks[rank])).collective_seq.erase(id);
  comms_.Erase(id);
}

int Collectives::AllocateChannel() {
  return comms_.AllocateChannel(master_.network() != nullptr ? master_.network()->max_channels()
                                                             : 1);
}

}  // namespace bdmpi
