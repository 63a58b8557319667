#include "master/comm/comm_registry.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "common/protocol.h"

namespace bdmpi {

CommRegistry::CommRegistry(int node, const RankLayout& layout)
    : node_(node), layout_(layout) {
  std::vector<int> world(WorldSize());
  for (int rank = 0; rank < static_cast<int>(world.size()); ++rank) world[rank] = rank;
  Add(kWorldCommId, std::move(world));
  // Each local slave's MPI_COMM_SELF (see CommId).
  for (int index = 0; index < layout_.Count(node_); ++index) {
    int world_rank = layout_.FirstRank(node_) + index;
    Add(CommId(world_rank, 0, UniverseSize()), {world_rank});
  }
  AddBdmpiComms();
  // Every job rank, those not spawned yet included: only point-to-point
  // between leaders travels on it (intercommunicators of spawn, ports and
  // MPI_Comm_join), so it needs no channel of its own.
  std::vector<int> universe(static_cast<std::size_t>(UniverseSize()));
  for (int rank = 0; rank < UniverseSize(); ++rank) universe[static_cast<std::size_t>(rank)] = rank;
  Add(UniverseCommId(UniverseSize()), std::move(universe));
}

void CommRegistry::AddBdmpiComms() {
  // BDMPI_COMM_CWORLD: every rank, numbered cyclically across the nodes
  // (the slave with local index i on node k has rank i * nnodes + k).
  std::vector<int> cworld;
  for (int rank = 0; rank < WorldSize(); ++rank) cworld.push_back(layout_.WorldRankOfCworld(rank));
  // Channel 1 on every node: its first communicator spanning nodes after
  // MPI_COMM_WORLD's channel 0 (the network keeps the last channel for its
  // shutdown marker, master/network/stale_steps.h).
  std::map<int, int> channels;
  if (layout_.nnodes() > 1) {
    BDMPI_ENFORCE(channel_used_.empty(), "channels allocated before BDMPI_COMM_CWORLD");
    channel_used_ = {true, true};  // never released: nobody frees CWORLD
    for (int node = 0; node < layout_.nnodes(); ++node) channels[node] = 1;
  }
  Add(CworldCommId(UniverseSize()), std::move(cworld), channels);
  // BDMPI_COMM_NODE: this node's ranks, by world rank.
  std::vector<int> local;
  int first = layout_.FirstRank(node_);
  for (int index = 0; index < layout_.Count(node_); ++index) local.push_back(first + index);
  Add(NodeCommId(first, UniverseSize()), std::move(local));
}

const MasterComm& CommRegistry::Add(int id, std::vector<int> world_ranks,
                                    const std::map<int, int>& channels) {
  BDMPI_ENFORCE(id >= 0 && comms_.count(id) == 0,
                "communicator id " + std::to_string(id) + " given twice");
  MasterComm comm;
  comm.id = id;
  comm.world_ranks = std::move(world_ranks);
  std::vector<int> nodes;
  for (int rank = 0; rank < static_cast<int>(comm.world_ranks.size()); ++rank) {
    int node = NodeOf(comm.world_ranks[rank]);
    if (node == node_) comm.local_ranks.push_back(rank);
    if (node != node_) comm.spans_nodes = true;
    nodes.push_back(node);
  }
  comm.live_members = static_cast<int>(comm.local_ranks.size());
  comm.stamp = Stamp();
  if (comm.spans_nodes) {
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    auto group = std::make_shared<NodeGroup>();
    for (int node : nodes) {
      // MPI_COMM_WORLD has channel 0 on every node.
      group->channels.push_back(channels.empty() ? 0 : channels.at(node));
      if (node == node_) group->self = static_cast<int>(group->nodes.size());
      group->nodes.push_back(node);
    }
    comm.channel = group->channels[group->self];
    comm.group = std::move(group);
  }
  return comms_[id] = std::move(comm);
}

const MasterComm& CommRegistry::Get(int id) const {
  // A communicator's collective twin (kCollectiveCommBit) has its members;
  // only the mailboxes, which match on the full id, tell the two apart.
  const MasterComm* comm = Find(UserCommId(id));
  BDMPI_ENFORCE(comm != nullptr, "unknown communicator " + std::to_string(id));
  return *comm;
}

const MasterComm* CommRegistry::Find(int id) const {
  auto it = comms_.find(id);
  return it == comms_.end() ? nullptr : &it->second;
}

MasterComm* CommRegistry::Find(int id) {
  auto it = comms_.find(id);
  return it == comms_.end() ? nullptr : &it->second;
}

void CommRegistry::Erase(int id) {
  auto it = comms_.find(id);
  if (it == comms_.end()) return;
  if (it->second.channel > 0) ReleaseChannel(it->second.channel);
  comms_.erase(it);
}

int CommRegistry::AllocateChannel(int limit) {
  if (channel_used_.empty()) channel_used_.push_back(true);  // MPI_COMM_WORLD's
  auto free = std::find(channel_used_.begin(), channel_used_.end(), false);
  std::size_t channel = static_cast<std::size_t>(free - channel_used_.begin());
  if (channel >= static_cast<std::size_t>(limit))
    throw Error(kErrIntern, "node " + std::to_string(node_) + " holds members of " +
                                std::to_string(limit) +
                                " communicators spanning nodes, the most MPI_TAG_UB allows");
  if (free == channel_used_.end()) {
    channel_used_.push_back(true);
  } else {
    *free = true;
  }
  return static_cast<int>(channel);
}

void CommRegistry::ReleaseChannel(int channel) {
  BDMPI_ENFORCE(channel > 0 && channel < static_cast<int>(channel_used_.size()) &&
                    channel_used_[channel],
                "releasing channel " + std::to_string(channel));
  channel_used_[channel] = false;
}

}  // namespace bdmpi
