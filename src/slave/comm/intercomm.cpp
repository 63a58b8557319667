// Intercommunicators; see intercomm.h.
#include "slave/comm/intercomm.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/collectives.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/comm.h"
#include "slave/comm/comm_register.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// The leaders' messages on the peer communicator's collective twin, far
// from the other internal tags (coll_p2p.h, comm_register.cpp).
constexpr int kTagIntercomm = 0x58000000;

int LeaderTag(int tag) { return kTagIntercomm + (tag & 0x00ffffff); }

// The leaders swap a list of ints (its length first).
std::vector<int> SwapWithRemoteLeader(const CommInfo& peer, int remote_leader, int tag,
                                      const std::vector<int>& mine) {
  int count = static_cast<int>(mine.size());
  CollSend(peer, remote_leader, LeaderTag(tag), &count, sizeof count);
  CollSend(peer, remote_leader, LeaderTag(tag), mine.data(), mine.size() * sizeof(int));
  int theirs = 0;
  CollRecv(peer, remote_leader, LeaderTag(tag), &theirs, sizeof theirs);
  std::vector<int> list(static_cast<std::size_t>(theirs));
  CollRecv(peer, remote_leader, LeaderTag(tag), list.data(), list.size() * sizeof(int));
  return list;
}

// The leader's list reaches every local member (length first).
std::vector<int> ShareFromLeader(MPI_Comm local, int leader, std::vector<int> list) {
  int count = static_cast<int>(list.size());
  Bcast(&count, 1, MPI_INT, leader, local);
  list.resize(static_cast<std::size_t>(count));
  Bcast(list.data(), count, MPI_INT, leader, local);
  return list;
}

// A handle for the hidden communicator of both groups, to split it; the
// caller releases it with ReleaseComm (it is not freed at the masters).
MPI_Comm UnionHandle(const CommInfo& inter) {
  CommInfo both;
  both.id = inter.id;
  both.rank = inter.union_rank;
  both.size = inter.size + static_cast<int>(inter.remote_world_ranks.size());
  both.errhandler = inter.errhandler;
  const std::vector<int>& local = inter.world_ranks;
  const std::vector<int>& remote = inter.remote_world_ranks;
  bool local_first = inter.remote_offset != 0;
  both.world_ranks = local_first ? local : remote;
  const std::vector<int>& second = local_first ? remote : local;
  both.world_ranks.insert(both.world_ranks.end(), second.begin(), second.end());
  return NewComm(std::move(both));
}

const CommInfo& CheckedIntercomm(MPI_Comm comm) {
  RequireInitialized();
  const CommInfo& info = LookupComm(comm);
  if (!info.inter) throw Error(kErrComm, "an intercommunicator is needed here");
  return info;
}

}  // namespace

MPI_Comm IntercommCreate(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag) {
  RequireInitialized();
  const CommInfo& local = LookupComm(local_comm);
  RequireIntracomm(local);
  if (local_leader < 0 || local_leader >= local.size)
    throw Error(kErrRank, "local leader " + std::to_string(local_leader) +
                              " is not a rank of the local communicator");
  bool leader = local.rank == local_leader;
  std::vector<int> members = local.WorldRanks();
  // 1. The leaders swap their groups; each tells its members.
  std::vector<int> remote;
  const CommInfo* peer = nullptr;
  if (leader) {
    peer = &LookupComm(peer_comm);
    int peer_size = peer->inter ? static_cast<int>(peer->remote_world_ranks.size()) : peer->size;
    if (remote_leader < 0 || remote_leader >= peer_size)
      throw Error(kErrRank, "remote leader " + std::to_string(remote_leader) +
                                " is not a rank of the peer communicator" +
                                (peer->inter ? "'s remote group" : ""));
    if (peer->inter) {
      // An intercommunicator as the peer (MPI allows it; a parent and its
      // spawned children often have no other): remote_leader names a rank
      // of its remote group, and the leaders talk on the universe
      // communicator, where a rank is its job rank.
      remote_leader = peer->remote_world_ranks[static_cast<std::size_t>(remote_leader)];
      peer = &LookupComm(UniverseComm());
    }
    remote = SwapWithRemoteLeader(*peer, remote_leader, tag, members);
  }
  remote = ShareFromLeader(local_comm, local_leader, std::move(remote));
  for (int world_rank : remote) {
    if (std::find(members.begin(), members.end(), world_rank) != members.end())
      throw Error(kErrComm, "MPI_Intercomm_create: the two groups overlap");
  }
  // The group with the lowest world rank comes first in the hidden
  // communicator; its leader names it.
  bool local_first = *std::min_element(members.begin(), members.end()) <
                     *std::min_element(remote.begin(), remote.end());
  std::vector<int> id_list;
  if (leader) {
    std::int32_t id = local_first ? NewCommId() : 0;
    std::vector<int> theirs = SwapWithRemoteLeader(*peer, remote_leader, tag, {id});
    id_list = {local_first ? id : theirs.at(0)};
  }
  std::int32_t id = ShareFromLeader(local_comm, local_leader, id_list).at(0);
  // 2. Every node's channel for it: gathered by each leader, swapped,
  // handed to all.
  int channel = NodeChannelFor(id);
  std::vector<int> local_channels(static_cast<std::size_t>(local.size));
  Gather(&channel, 1, MPI_INT, local_channels.data(), 1, MPI_INT, local_leader, local_comm);
  std::vector<int> remote_channels;
  if (leader) remote_channels = SwapWithRemoteLeader(*peer, remote_leader, tag, local_channels);
  remote_channels = ShareFromLeader(local_comm, local_leader, std::move(remote_channels));
  Bcast(local_channels.data(), local.size, MPI_INT, local_leader, local_comm);
  std::vector<std::uint64_t> entries;
  auto add = [&](const std::vector<int>& ranks, const std::vector<int>& channels) {
    for (std::size_t i = 0; i < ranks.size(); ++i)
      entries.push_back(static_cast<std::uint64_t>(ranks[i]) << 32 |
                        static_cast<std::uint32_t>(channels.at(i)));
  };
  add(local_first ? members : remote, local_first ? local_channels : remote_channels);
  add(local_first ? remote : members, local_first ? remote_channels : local_channels);
  RegisterMembers(id, entries);

  CommInfo made;
  made.id = id;
  made.inter = true;
  made.rank = local.rank;
  made.size = local.size;
  made.errhandler = local.errhandler;
  made.world_ranks = std::move(members);
  made.remote_world_ranks = std::move(remote);
  made.remote_offset = local_first ? local.size : 0;
  made.union_rank =
      local_first ? local.rank : static_cast<int>(made.remote_world_ranks.size()) + local.rank;
  return NewComm(std::move(made));
}

MPI_Comm IntercommMerge(MPI_Comm intercomm, int high) {
  const CommInfo& inter = CheckedIntercomm(intercomm);
  if (inter.cross) return CrossMerge(inter, high);
  int both = inter.size + static_cast<int>(inter.remote_world_ranks.size());
  // The "low" group first; with equal choices, the hidden order.
  int key = (high ? both : 0) + inter.union_rank;
  MPI_Errhandler errhandler = inter.errhandler;
  MPI_Comm whole = UnionHandle(inter);  // `inter` may move from here on
  MPI_Comm merged = MPI_COMM_NULL;
  try {
    merged = CommSplit(whole, 0, key);
  } catch (...) {
    ReleaseComm(whole);
    throw;
  }
  ReleaseComm(whole);
  LookupComm(merged).errhandler = errhandler;
  return merged;
}

MPI_Comm IntercommDup(MPI_Comm intercomm) {
  // A copy: adding handles may move the table's entries.
  CommInfo made = CheckedIntercomm(intercomm);
  MPI_Comm whole = UnionHandle(made);
  MPI_Comm copy = MPI_COMM_NULL;
  try {
    copy = CommSplit(whole, 0, made.union_rank);
  } catch (...) {
    ReleaseComm(whole);
    throw;
  }
  ReleaseComm(whole);
  // The same groups on a new hidden communicator.
  made.id = LookupComm(copy).id;
  made.name.clear();
  ReleaseComm(copy);
  return NewComm(std::move(made));
}

MPI_Comm IntercommSplit(MPI_Comm intercomm, int color, int key) {
  CommInfo inter = CheckedIntercomm(intercomm);  // a copy, as in IntercommDup
  constexpr int kKeyLimit = 1 << 30;
  if (key <= -kKeyLimit || key >= kKeyLimit)
    throw Error(kErrArg, "key " + std::to_string(key) +
                             ": BDMPI splits intercommunicators with keys within ±2^30 only");
  // The first group's keys below 0, the second's above.
  bool local_first = inter.remote_offset != 0;
  MPI_Comm whole = UnionHandle(inter);
  MPI_Comm split = MPI_COMM_NULL;
  try {
    split = CommSplit(whole, color, (local_first ? -kKeyLimit : kKeyLimit) + key);
  } catch (...) {
    ReleaseComm(whole);
    throw;
  }
  ReleaseComm(whole);
  if (split == MPI_COMM_NULL) return MPI_COMM_NULL;
  const CommInfo both = LookupComm(split);
  CommInfo made;
  made.id = both.id;
  made.inter = true;
  made.errhandler = inter.errhandler;
  made.union_rank = both.rank;
  for (int world_rank : both.world_ranks) {
    bool ours = std::find(inter.world_ranks.begin(), inter.world_ranks.end(), world_rank) !=
                inter.world_ranks.end();
    (ours ? made.world_ranks : made.remote_world_ranks).push_back(world_rank);
  }
  if (made.remote_world_ranks.empty()) {  // nobody of this color across
    CommFree(&split);
    return MPI_COMM_NULL;
  }
  ReleaseComm(split);
  made.size = static_cast<int>(made.world_ranks.size());
  made.rank = static_cast<int>(std::find(made.world_ranks.begin(), made.world_ranks.end(),
                                         Runtime::Instance()->world_rank()) -
                               made.world_ranks.begin());
  made.remote_offset = local_first ? made.size : 0;
  return NewComm(std::move(made));
}

void IntercommBarrier(MPI_Comm intercomm) {
  MPI_Comm whole = UnionHandle(CheckedIntercomm(intercomm));
  try {
    Barrier(whole);
  } catch (...) {
    ReleaseComm(whole);
    throw;
  }
  ReleaseComm(whole);
}

void RequireIntracomm(const CommInfo& comm) {
  if (comm.inter)
    throw Error(kErrComm,
                "this call takes an intracommunicator (MPI defines it on "
                "intracommunicators only)");
}

}  // namespace bdmpi
