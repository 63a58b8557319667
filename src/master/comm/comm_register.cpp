// The master's half of communicators that no split makes
// (MsgType::kCommNewId, kCommChannel, kCommMembers): MPI_Comm_create_group, where only the group's
// members call, and intercommunicators. Their members agree on the members,
// the id and each node's channel among themselves (src/slave/
// comm/comm_register.cpp); each master hands out an id or its channel when
// asked, and adds the communicator when its first local member brings the
// list. The master checks that the sender is one of the members it names.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "master/coll/collectives.h"
#include "master/message_table.h"

namespace bdmpi {

void Collectives::HandleCommNewId(Slave& slave, const RequestMsg& request) {
  ReplyMsg reply;
  reply.type = request.type;
  reply.comm = CommId(slave.world_rank, NextCreation(slave), comms_.UniverseSize());
  BDMPI_ENFORCE(reply.comm >= 0, "communicator ids exhausted");
  master_.Reply(slave, reply);
}

void Collectives::HandleCommChannel(Slave& slave, const RequestMsg& request) {
  // One channel per communicator and node: the first local member's
  // request picks it, the others get the same.
  auto [it, added] = registering_channels_.try_emplace(request.comm, 0);
  if (added && master_.network() != nullptr) it->second = AllocateChannel();
  ReplyMsg reply;
  reply.type = request.type;
  reply.tag = it->second;
  master_.Reply(slave, reply);
}

void Collectives::HandleCommMembers(Slave& slave, const RequestMsg& request,
                                    const std::byte* inline_payload) {
  std::vector<std::uint64_t> entries =
      payloads_.ReadIds(request, master_.Window(slave.index), inline_payload);
  std::vector<int> world_ranks;
  std::map<int, int> channels;
  for (std::uint64_t entry : entries) {
    int world_rank = static_cast<int>(entry >> 32);
    world_ranks.push_back(world_rank);
    channels[NodeOf(world_rank)] = static_cast<int>(entry & 0xffffffffu);
  }
  if (std::find(world_ranks.begin(), world_ranks.end(), slave.world_rank) ==
      world_ranks.end()) {
    master_.Fail(1, "rank " + std::to_string(slave.world_rank) + " registered communicator " +
                        std::to_string(request.comm) + " without being one of its members");
    return;
  }
  if (comms_.Find(request.comm) == nullptr) {
    const MasterComm& comm = comms_.Add(request.comm, std::move(world_ranks), channels);
    auto reserved = registering_channels_.find(request.comm);
    if (reserved != registering_channels_.end()) {
      // A communicator within this node needs no channel after all.
      if (!comm.spans_nodes && master_.network() != nullptr)
        comms_.ReleaseChannel(reserved->second);
      registering_channels_.erase(reserved);
    }
  }
  ReplyMsg reply;
  reply.type = request.type;
  master_.Reply(slave, reply);
}

}  // namespace bdmpi
