// Communicators whose members agree on them; see comm_register.h.
#include "slave/comm/comm_register.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/coll/coll_p2p.h"
#include "slave/comm/comm.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/intercomm.h"
#include "slave/runtime/errhandlers.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/session.h"

namespace bdmpi {
namespace {

// Internal tags on the exchange communicator's collective twin, far from
// the other collectives' (coll_p2p.h): the agreement's two rounds (the id,
// then the channels) for a caller's tag.
constexpr int kTagAgreement = 0x50000000;
// MPI_Comm_create_from_group's, on MPI_COMM_WORLD's twin: their own range,
// so that they never meet MPI_Comm_create_group's on MPI_COMM_WORLD.
constexpr int kTagFromGroup = 0x60000000;

int TagFor(int tag, int round) { return kTagAgreement + ((tag & 0x07ffffff) << 1) + round; }

// FNV-1a: the string tag and the group, folded to the 27 bits a tag has
// room for. Equal inputs give equal tags on every rank; unequal ones that
// collide could only meet if the same ranks ran both calls at once.
int FromGroupTag(const std::string& stringtag, const std::vector<int>& members, int round) {
  std::uint64_t hash = 1469598103934665603ull;
  auto mix = [&hash](std::uint64_t byte) {
    hash ^= byte;
    hash *= 1099511628211ull;
  };
  for (char c : stringtag) mix(static_cast<unsigned char>(c));
  for (int member : members)
    for (int shift = 0; shift < 32; shift += 8)
      mix((static_cast<std::uint32_t>(member) >> shift) & 0xffu);
  int folded = static_cast<int>((hash ^ (hash >> 27) ^ (hash >> 54)) & 0x07ffffffu);
  return kTagFromGroup + (folded << 1) + round;
}

ReplyMsg AskMaster(MsgType step, int id, const std::vector<std::uint64_t>& entries = {}) {
  RequestMsg request;
  request.type = step;
  request.comm = id;
  Runtime* runtime = Runtime::Instance();
  if (!entries.empty())
    runtime->StagePayload(entries.data(), entries.size() * sizeof(std::uint64_t), request);
  return runtime->Call(request);
}

}  // namespace

int NewCommId() { return AskMaster(MsgType::kCommNewId, 0).comm; }

int NodeChannelFor(int id) { return AskMaster(MsgType::kCommChannel, id).tag; }

void RegisterMembers(int id, const std::vector<std::uint64_t>& entries) {
  AskMaster(MsgType::kCommMembers, id, entries);
}

int AgreeOnComm(const CommInfo& exchange, const std::vector<int>& exchange_ranks,
                const std::vector<int>& world_ranks, int tag) {
  return AgreeOnCommTags(exchange, exchange_ranks, world_ranks, TagFor(tag, 0), TagFor(tag, 1));
}

int AgreeOnCommTags(const CommInfo& exchange, const std::vector<int>& exchange_ranks,
                    const std::vector<int>& world_ranks, int id_tag, int channel_tag) {
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
      CollSend(exchange, exchange_ranks[i], id_tag, &id, sizeof id);
  } else {
    CollRecv(exchange, leader, id_tag, &id, sizeof id);
  }
  // Round 2: every node's channel for it, gathered by the leader and
  // handed to all.
  std::uint32_t channel = static_cast<std::uint32_t>(NodeChannelFor(id));
  std::vector<std::uint64_t> entries(n);
  if (me == 0) {
    entries[0] = static_cast<std::uint64_t>(world_ranks[0]) << 32 | channel;
    for (std::size_t i = 1; i < n; ++i) {
      std::uint32_t theirs = 0;
      CollRecv(exchange, exchange_ranks[i], channel_tag, &theirs, sizeof theirs);
      entries[i] = static_cast<std::uint64_t>(world_ranks[i]) << 32 | theirs;
    }
    for (std::size_t i = 1; i < n; ++i)
      CollSend(exchange, exchange_ranks[i], channel_tag, entries.data(),
               n * sizeof(std::uint64_t));
  } else {
    CollSend(exchange, leader, channel_tag, &channel, sizeof channel);
    CollRecv(exchange, leader, channel_tag, entries.data(), n * sizeof(std::uint64_t));
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
  if (parent.cross) return CrossCreateGroup(parent, exchange_ranks, me, tag);
  CommInfo made;
  made.id = AgreeOnComm(parent, exchange_ranks, members, tag);
  made.rank = me;
  made.size = static_cast<int>(members.size());
  made.errhandler = parent.errhandler;
  made.world_ranks = members;
  made.session = GroupSession(group);
  return NewComm(std::move(made));
}

}  // namespace bdmpi

namespace bdmpi {

namespace {

// The checks MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups
// share; returns the string tag.
std::string CheckFromGroup(const char* call, const char* stringtag, MPI_Info info,
                           MPI_Errhandler errhandler) {
  RequireInitialized();
  if (stringtag == nullptr) throw Error(kErrArg, std::string(call) + ": no string tag");
  std::string tag(stringtag);
  if (tag.size() >= MPI_MAX_STRINGTAG_LEN)
    throw Error(kErrArg, std::string(call) + ": the string tag has " +
                             std::to_string(tag.size()) +
                             " characters; MPI_MAX_STRINGTAG_LEN allows " +
                             std::to_string(MPI_MAX_STRINGTAG_LEN - 1));
  CheckInfoArgument(info);
  CheckErrhandler(errhandler);
  if (FileErrhandlerFunction(errhandler) != nullptr || WinErrhandlerFunction(errhandler) != nullptr ||
      SessionErrhandlerFunction(errhandler) != nullptr)
    throw Error(kErrArg, std::string(call) +
                             ": the error handler is not one for communicators (use a "
                             "predefined one or one from MPI_Comm_create_errhandler)");
  return tag;
}

}  // namespace

MPI_Comm CommCreateFromGroup(MPI_Group group, const char* stringtag, MPI_Info info,
                             MPI_Errhandler errhandler) {
  std::string tag = CheckFromGroup("MPI_Comm_create_from_group", stringtag, info, errhandler);
  const GroupInfo& members = LookupGroup(group);
  if (members.empty()) return MPI_COMM_NULL;
  // Every group is of world ranks, and a world rank is its rank in
  // MPI_COMM_WORLD, over whose twin the members agree.
  const CommInfo& world = LookupComm(MPI_COMM_WORLD);
  auto mine = std::find(members.begin(), members.end(), world.rank);
  if (mine == members.end())
    throw Error(kErrGroup, "MPI_Comm_create_from_group is called by the group's members only");
  CommInfo made;
  made.id = AgreeOnCommTags(world, members, members, FromGroupTag(tag, members, 0),
                            FromGroupTag(tag, members, 1));
  made.rank = static_cast<int>(mine - members.begin());
  made.size = static_cast<int>(members.size());
  made.errhandler = errhandler;
  if (info != MPI_INFO_NULL) made.hints = LookupInfo(info);
  made.world_ranks = members;
  made.session = GroupSession(group);
  return NewComm(std::move(made));
}

MPI_Comm IntercommCreateFromGroups(MPI_Group local_group, int local_leader,
                                   MPI_Group remote_group, int remote_leader,
                                   const char* stringtag, MPI_Info info,
                                   MPI_Errhandler errhandler) {
  const char* call = "MPI_Intercomm_create_from_groups";
  std::string tag = CheckFromGroup(call, stringtag, info, errhandler);
  const GroupInfo& local = LookupGroup(local_group);
  const GroupInfo& remote = LookupGroup(remote_group);
  if (local.empty() || remote.empty())
    throw Error(kErrGroup, std::string(call) + ": both groups must have members");
  if (remote_leader < 0 || remote_leader >= static_cast<int>(remote.size()))
    throw Error(kErrRank, "remote leader " + std::to_string(remote_leader) +
                              " is not a rank of the remote group");
  // The local communicator first (its tags come from the local group), then
  // MPI_Intercomm_create over MPI_COMM_WORLD, whose leaders talk on its
  // twin with a tag both sides derive alike: from the string tag and the
  // two groups, the one with the lower first member first.
  MPI_Comm local_comm = CommCreateFromGroup(local_group, stringtag, MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN);
  bool local_first = local.front() < remote.front();
  std::vector<int> both = local_first ? local : remote;
  const GroupInfo& second = local_first ? remote : local;
  both.insert(both.end(), second.begin(), second.end());
  int leaders_tag = FromGroupTag(tag, both, 0) & 0x00ffffff;
  MPI_Comm made = MPI_COMM_NULL;
  try {
    made = IntercommCreate(local_comm, local_leader, MPI_COMM_WORLD,
                           remote[static_cast<std::size_t>(remote_leader)], leaders_tag);
  } catch (...) {
    CommFree(&local_comm);
    throw;
  }
  CommFree(&local_comm);
  CommInfo& result = LookupComm(made);
  result.errhandler = errhandler;
  if (info != MPI_INFO_NULL) result.hints = LookupInfo(info);
  return made;
}

}  // namespace bdmpi
