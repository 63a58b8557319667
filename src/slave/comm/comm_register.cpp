// Communicators whose members agree on them; see comm_register.h.
#include "slave/comm/comm_register.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/coll/coll_p2p.h"
#include "slave/comm/intercomm.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// Internal tags on the exchange communicator's collective twin, far from
// the other collectives' (coll_p2p.h): the agreement's two rounds (the id,
// then the channels) for a caller's tag.
constexpr int kTagAgreement = 0x50000000;

int TagFor(int tag, int round) { return kTagAgreement + ((tag & 0x07ffffff) << 1) + round; }

ReplyMsg AskMaster(CommRegisterStep step, int id, const std::vector<std::uint64_t>& entries = {}) {
  RequestMsg request;
  request.type = MsgType::kCommRegister;
  CommRegisterArgs{step}.Into(request);
  request.comm = id;
  Runtime* runtime = Runtime::Instance();
  if (!entries.empty())
    runtime->StagePayload(entries.data(), entries.size() * sizeof(std::uint64_t), request);
  return runtime->Call(request);
}

}  // namespace

int NewCommId() { return AskMaster(kRegisterNewId, 0).comm; }

int NodeChannelFor(int id) { return AskMaster(kRegisterChannel, id).tag; }

void RegisterMembers(int id, const std::vector<std::uint64_t>& entries) {
  AskMaster(kRegisterMembers, id, entries);
}

int AgreeOnComm(const CommInfo& exchange, const std::vector<int>& exchange_ranks,
                const std::vector<int>& world_ranks, int tag) {
  std::size_t n = world_ranks.size();
  int me = static_cast<int>(std::find(exchange_ranks.begin(), exchange_ranks.end(), exchange.rank) -
                            exchange_ranks.begin());
  BDMPI_ENFORCE(me < static_cast<int>(n), "agreeing on a communicator one is not in");
  int leader = exchange_ranks[0];
  // Round 1: the leader's master names it.
  std::int32_t id = 0;
  if (me == 0) {
    id = NewCommId();
    for (std::size_t i = 1; i < n; ++i)
      CollSend(exchange, exchange_ranks[i], TagFor(tag, 0), &id, sizeof id);
  } else {
    CollRecv(exchange, leader, TagFor(tag, 0), &id, sizeof id);
  }
  // Round 2: every node's channel for it, gathered by the leader and
  // handed to all.
  std::uint32_t channel = static_cast<std::uint32_t>(NodeChannelFor(id));
  std::vector<std::uint64_t> entries(n);
  if (me == 0) {
    entries[0] = static_cast<std::uint64_t>(world_ranks[0]) << 32 | channel;
    for (std::size_t i = 1; i < n; ++i) {
      std::uint32_t theirs = 0;
      CollRecv(exchange, exchange_ranks[i], TagFor(tag, 1), &theirs, sizeof theirs);
      entries[i] = static_cast<std::uint64_t>(world_ranks[i]) << 32 | theirs;
    }
    for (std::size_t i = 1; i < n; ++i)
      CollSend(exchange, exchange_ranks[i], TagFor(tag, 1), entries.data(),
               n * sizeof(std::uint64_t));
  } else {
    CollSend(exchange, leader, TagFor(tag, 1), &channel, sizeof channel);
    CollRecv(exchange, leader, TagFor(tag, 1), entries.data(), n * sizeof(std::uint64_t));
  }
  RegisterMembers(id, entries);
  return id;
}

MPI_Comm CommCreateGroup(MPI_Comm comm_handle, MPI_Group group, int tag) {
  RequireInitialized();
  const CommInfo& parent = LookupComm(comm_handle);
  RequireIntracomm(parent);
  if (tag < 0) throw Error(kErrTag, "tag " + std::to_string(tag) + " is negative");
  const GroupInfo& members = LookupGroup(group);
  if (members.empty()) return MPI_COMM_NULL;
  std::vector<int> parent_world = parent.WorldRanks();
  std::unordered_map<int, int> parent_rank;
  for (std::size_t r = 0; r < parent_world.size(); ++r)
    parent_rank.emplace(parent_world[r], static_cast<int>(r));
  std::vector<int> exchange_ranks;
  int me = -1;
  for (std::size_t i = 0; i < members.size(); ++i) {
    auto found = parent_rank.find(members[i]);
    if (found == parent_rank.end())
      throw Error(kErrGroup,
                  "MPI_Comm_create_group: the group is not a subgroup of the "
                  "communicator's group");
    if (found->second == parent.rank) me = static_cast<int>(i);
    exchange_ranks.push_back(found->second);
  }
  if (me < 0) throw Error(kErrGroup, "MPI_Comm_create_group is called by the group's members only");
  CommInfo made;
  made.id = AgreeOnComm(parent, exchange_ranks, members, tag);
  made.rank = me;
  made.size = static_cast<int>(members.size());
  made.errhandler = parent.errhandler;
  made.world_ranks = members;
  return NewComm(std::move(made));
}

}  // namespace bdmpi
