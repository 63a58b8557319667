// The communicators a master knows (those with members on its node) and the
// node's tag channels for those that span nodes. Communicators come from
// the start (MPI_COMM_WORLD, each local MPI_COMM_SELF, BDMPI_COMM_CWORLD,
// BDMPI_COMM_NODE, the hidden communicator of every job rank), from splits
// (comm.cpp) and from MPI_Comm_spawn (master/launch/spawn_ranks.cpp); the master drops one once
// every local member has freed it and no collective on it is pending.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "common/rank_layout.h"
#include "master/network/mpi_transport.h"

namespace bdmpi {

// A communicator as the master sees it.
struct MasterComm {
  int id = 0;
  std::vector<int> world_ranks;  // index: rank in the communicator
  std::vector<int> local_ranks;  // ranks of this node's members, ascending
  bool spans_nodes = false;      // collectives need an inter-node step
  // The masters of its members, for inter-node steps (when spans_nodes).
  std::shared_ptr<const NodeGroup> group;
  int channel = -1;        // this master's channel for it (-1: none)
  int live_members = 0;    // local members that have not freed it
  // When it was registered, on CommRegistry::Stamp's clock: a rank put in
  // a place later (a spawned rank in an exited one's) is not a member.
  std::uint64_t stamp = 0;
};

class CommRegistry {
 public:
  // Registers the predefined communicators of node `node` of `layout`.
  CommRegistry(int node, const RankLayout& layout);

  // `id` or its collective twin (kCollectiveCommBit), which has the same
  // members; throws when unknown.
  const MasterComm& Get(int id) const;
  // Exactly `id`, or nullptr.
  const MasterComm* Find(int id) const;
  MasterComm* Find(int id);
  // channels: each node's channel for it, by node (empty: all 0, WORLD).
  const MasterComm& Add(int id, std::vector<int> world_ranks,
                        const std::map<int, int>& channels = {});
  // Forgets `id` and frees its channel.
  void Erase(int id);
  // The next tick of the clock that stamps communicators as they come.
  std::uint64_t Stamp() { return ++stamps_; }

  // The lowest free channel; throws when `limit` are in use.
  int AllocateChannel(int limit);
  void ReleaseChannel(int channel);

  int NodeOf(int world_rank) const { return layout_.NodeOf(world_rank); }
  int WorldSize() const { return layout_.world_size(); }
  // The multiplier of communicator ids (CommId): MPI_UNIVERSE_SIZE.
  int UniverseSize() const { return layout_.universe_size(); }
  const RankLayout& layout() const { return layout_; }

 private:
  void AddBdmpiComms();

  int node_;
  RankLayout layout_;
  std::map<int, MasterComm> comms_;
  std::uint64_t stamps_ = 0;
  std::vector<bool> channel_used_;  // index: channel (0 is MPI_COMM_WORLD's)
};

}  // namespace bdmpi
