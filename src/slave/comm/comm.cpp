// The slave's half of communicators and groups; see comm.h.
#include "slave/comm/comm.h"

#include <strings.h>

#include <algorithm>
#include <climits>
#include <iterator>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/comm/attributes.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/hw_resources.h"
#include "slave/comm/intercomm.h"
#include "slave/p2p/bsend_buffer.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/info.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/session.h"
#include "slave/runtime/threads.h"

namespace bdmpi {
namespace {

int MyWorldRank() { return Runtime::Instance()->world_rank(); }

// Position of each world rank in a group.
std::unordered_map<int, int> Positions(const GroupInfo& group) {
  std::unordered_map<int, int> positions;
  for (std::size_t r = 0; r < group.size(); ++r) positions.emplace(group[r], static_cast<int>(r));
  return positions;
}

int CheckedRank(const GroupInfo& group, int rank) {
  if (rank < 0 || rank >= static_cast<int>(group.size()))
    throw Error(kErrRank, "rank " + std::to_string(rank) + " is not in a group of " +
                              std::to_string(group.size()));
  return group[static_cast<std::size_t>(rank)];
}

// The ranks of MPI_Group_range_incl's triplets, in order.
std::vector<int> RangeRanks(const GroupInfo& group, int n, int ranges[][3]) {
  std::vector<int> ranks;
  for (int i = 0; i < n; ++i) {
    int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0 || (last > first && stride < 0) || (last < first && stride > 0))
      throw Error(kErrArg, "invalid rank range");
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      CheckedRank(group, r);
      ranks.push_back(r);
    }
  }
  return ranks;
}

MPI_Group Included(const GroupInfo& group, const std::vector<int>& ranks) {
  GroupInfo members;
  std::unordered_set<int> seen;
  for (int r : ranks) {
    if (!seen.insert(r).second) throw Error(kErrRank, "a rank is named twice");
    members.push_back(CheckedRank(group, r));
  }
  return NewGroup(std::move(members));
}

MPI_Group Excluded(const GroupInfo& group, const std::vector<int>& ranks) {
  std::unordered_set<int> excluded;
  for (int r : ranks) {
    CheckedRank(group, r);
    if (!excluded.insert(r).second) throw Error(kErrRank, "a rank is named twice");
  }
  GroupInfo members;
  for (std::size_t r = 0; r < group.size(); ++r) {
    if (!excluded.count(static_cast<int>(r))) members.push_back(group[r]);
  }
  return NewGroup(std::move(members));
}

// The members of `group` that are (or are not) in `other`, in group's order.
GroupInfo Filter(const GroupInfo& group, const GroupInfo& other, bool keep_common) {
  std::unordered_set<int> in_other(other.begin(), other.end());
  GroupInfo members;
  for (int world_rank : group) {
    if (static_cast<bool>(in_other.count(world_rank)) == keep_common) members.push_back(world_rank);
  }
  return members;
}

// IDENT, SIMILAR or UNEQUAL for two member lists.
int CompareMembers(const std::vector<int>& a, const std::vector<int>& b) {
  if (a == b) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  std::vector<int> sorted_a = a, sorted_b = b;
  std::sort(sorted_a.begin(), sorted_a.end());
  std::sort(sorted_b.begin(), sorted_b.end());
  return sorted_a == sorted_b ? MPI_SIMILAR : MPI_UNEQUAL;
}

// A split that other threads' calls must be able to run beside (threads.h):
// joined without waiting in it, as MPI_Comm_idup joins one
// (master/comm/idup_split.cpp), so that it matches the other ranks'
// blocking splits, and its outcome polled for. nullopt: MPI_UNDEFINED.
std::optional<CommInfo> SplitWithoutWaiting(RequestMsg request) {
  Runtime* runtime = Runtime::Instance();
  request.id = runtime->NewRecvId();  // completed with the outcome
  runtime->Post(request);
  RequestMsg wait;
  wait.type = MsgType::kWaitRecv;
  wait.id = request.id;
  ReplyMsg reply = runtime->Call(wait);  // polls
  if (reply.bytes == 0) return std::nullopt;
  // As the idup's outcome: the new id, then the members' world ranks.
  std::vector<std::int32_t> words(reply.bytes / sizeof(std::int32_t));
  runtime->FetchPayload(reply, words.data(), words.size() * sizeof(std::int32_t));
  BDMPI_ENFORCE(words.size() >= 2, "a split's outcome without members");
  CommInfo comm;
  comm.id = words.front();
  comm.rank = reply.source;
  comm.size = reply.tag;
  comm.world_ranks.assign(words.begin() + 1, words.end());
  BDMPI_ENFORCE(comm.world_ranks.size() == static_cast<std::size_t>(comm.size),
                "a split's outcome of the wrong size");
  return comm;
}

}  // namespace

MPI_Comm CommSplit(MPI_Comm comm_handle, int color, int key) {
  RequireInitialized();
  const CommInfo& parent = LookupComm(comm_handle);
  if (color < 0 && color != MPI_UNDEFINED)
    throw Error(kErrArg, "color " + std::to_string(color) + " is negative");
  if (parent.cross) return CrossSplit(parent, color, key);
  if (parent.inter) return IntercommSplit(comm_handle, color, key);
  MPI_Errhandler errhandler = parent.errhandler;
  MPI_Session session = parent.session;
  RequestMsg request;
  request.type = MsgType::kCommSplit;
  request.comm = parent.id;
  request.rank = parent.rank;
  request.peer = 0;
  CommSplitArgs{color == MPI_UNDEFINED ? kUndefinedColor : color, key}.Into(request);
  Runtime* runtime = Runtime::Instance();
  if (!threads::MayBlockAtMaster()) {
    std::optional<CommInfo> made = SplitWithoutWaiting(request);
    if (!made) return MPI_COMM_NULL;
    made->errhandler = errhandler;
    made->session = session;
    return NewComm(std::move(*made));
  }
  ReplyMsg reply = runtime->Call(request);
  CommSplitReply made = CommSplitReply::Of(reply);
  if (!made.made) return MPI_COMM_NULL;
  CommInfo comm;
  comm.id = made.id;
  comm.rank = made.rank;
  comm.size = made.size;
  comm.errhandler = errhandler;
  comm.session = session;
  comm.world_ranks.resize(static_cast<std::size_t>(comm.size));
  std::uint64_t bytes = comm.world_ranks.size() * sizeof(int);
  BDMPI_ENFORCE(reply.bytes == bytes, "communicator member list of the wrong size");
  runtime->FetchPayload(reply, comm.world_ranks.data(), bytes);
  return NewComm(std::move(comm));
}

MPI_Comm CommDup(MPI_Comm comm) {
  RequireInitialized();
  if (const CommInfo* cross = CrossJob(comm)) return CrossDup(*cross);
  MPI_Comm copy = LookupComm(comm).inter ? IntercommDup(comm)
                                         : CommSplit(comm, 0, LookupComm(comm).rank);
  // MPI-3.1 6.4.2: the copy has the same topology and the attributes whose
  // copy callbacks ask for it; its name is not copied.
  LookupComm(copy).topology = LookupComm(comm).topology;
  try {
    CopyAttrs(AttrKind::kComm, comm, copy);
  } catch (const Error&) {
    DeleteAllAttrs(AttrKind::kComm, copy);
    CommFree(&copy);
    throw;
  }
  return copy;
}

namespace {

// Every rank of a split_type call joins one split, those that get
// MPI_COMM_NULL with MPI_UNDEFINED: a rank may pass MPI_UNDEFINED for the
// type and cannot know what the others decide.

// MPI_COMM_TYPE_HW_GUIDED's split by a resource type: a communicator per
// node for a type the rank runs within one instance of (hw_resources.h),
// MPI_COMM_NULL for the ranks of nodes with several instances.
// "mpi_shared_memory" is MPI_COMM_TYPE_SHARED. A name that is no resource
// type gives every rank MPI_COMM_NULL.
// The colour of the ranks that share a node's memory: their node's, or
// on a communicator between jobs their job's node's (Open MPI also splits
// such a communicator by job).
int SharedMemoryColor(MPI_Comm comm) {
  return LookupComm(comm).cross ? CrossJobColor() : Runtime::Instance()->node();
}

MPI_Comm SplitByResource(MPI_Comm comm, const std::string& type, int key) {
  int node = SharedMemoryColor(comm);
  if (type == "mpi_shared_memory") return CommSplit(comm, node, key);
  switch (HwResourceOf(type)) {
    case HwAnswer::kSingle: return CommSplit(comm, node, key);
    case HwAnswer::kSeveral:
    case HwAnswer::kUnknown: break;
  }
  return CommSplit(comm, MPI_UNDEFINED, key);
}

// MPI_COMM_TYPE_RESOURCE_GUIDED's split by a process set (session.h):
// the members of comm in the same set together; a name that is no set
// gives every rank MPI_COMM_NULL.
MPI_Comm SplitByPset(MPI_Comm comm, const std::string& pset, int key) {
  std::vector<std::string> names = PsetNames();
  auto known = std::find_if(names.begin(), names.end(), [&](const std::string& name) {
    return strcasecmp(name.c_str(), pset.c_str()) == 0;
  });
  if (known == names.end()) return CommSplit(comm, MPI_UNDEFINED, key);
  // The sets each rank belongs to one of: the world (one), itself, its
  // node; the set's first world rank names it.
  std::vector<int> members = PsetMembers(known->c_str());
  return CommSplit(comm, members.front(), key);
}

// MPI_COMM_TYPE_HW_UNGUIDED: the finest split into strict subsets. The
// finest level a rank stays within is its node (hw_resources.h), so a
// communicator spanning nodes splits by node, one within a node not at
// all (MPI_COMM_NULL for every rank). The caller's info learns the type
// (MPI 4.1 7.4.2; MPICH does so too), and so does the new communicator's.
MPI_Comm SplitUnguided(MPI_Comm comm, int key, MPI_Info caller_info) {
  const CommInfo& info = LookupComm(comm);
  // Between jobs of one host: their processes' nodes are in no layout.
  if (info.cross) return CommSplit(comm, MPI_UNDEFINED, key);
  Runtime* runtime = Runtime::Instance();
  RankLayout layout = runtime->layout();
  bool spans_nodes = false;
  std::vector<int> members = info.WorldRanks();
  for (int world_rank : members) {
    spans_nodes = spans_nodes || layout.NodeOf(world_rank) != layout.NodeOf(members.front());
  }
  MPI_Comm made = CommSplit(comm, spans_nodes && !info.inter ? runtime->node() : MPI_UNDEFINED, key);
  if (made != MPI_COMM_NULL) {
    InfoEntries& hints = LookupComm(made).hints;
    hints.emplace_back("mpi_hw_resource_type", kHwNode);
    if (caller_info != MPI_INFO_NULL) SetInfo(caller_info, "mpi_hw_resource_type", kHwNode);
  }
  return made;
}

// The hints of a guided split hold only when every member gives the same
// (MPI 4.1 7.4.2: different values are ignored): the members compare a
// hash of theirs (an allreduce of it and its negation; a member passing
// MPI_UNDEFINED, which cannot know whether the others' type takes hints,
// joins with values that change nothing). Every member thus learns the
// same answer.
bool SameHintEverywhere(MPI_Comm comm, bool undefined, const std::string* type,
                        const std::string* pset) {
  std::uint32_t hash = 2166136261u;  // FNV-1a of the two values, absent ones marked
  auto fold = [&hash](const std::string* value) {
    std::string text = value != nullptr ? "+" + *value : "-";
    for (unsigned char c : text) hash = (hash ^ c) * 16777619u;
  };
  fold(type);
  fold(pset);
  int mine = static_cast<int>(hash & 0x3fffffffu);
  int extremes[2] = {mine, -mine};
  if (undefined) extremes[0] = extremes[1] = INT_MIN;
  int error = PMPI_Allreduce(MPI_IN_PLACE, extremes, 2, MPI_INT, MPI_MAX, comm);
  if (error != MPI_SUCCESS) throw Error(error, "the members could not compare their hints");
  return extremes[0] == INT_MIN || extremes[0] == -extremes[1];  // INT_MIN: all undefined
}

}  // namespace

MPI_Comm CommSplitType(MPI_Comm comm, int split_type, int key, MPI_Info info) {
  RequireInitialized();
  const std::string* type =
      info != MPI_INFO_NULL ? FindInfo(info, "mpi_hw_resource_type") : nullptr;
  const std::string* pset = info != MPI_INFO_NULL ? FindInfo(info, "mpi_pset_name") : nullptr;
  static constexpr int kTypes[] = {MPI_UNDEFINED, MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED,
                                   MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED};
  if (std::find(std::begin(kTypes), std::end(kTypes), split_type) == std::end(kTypes))
    throw Error(kErrArg, "unknown split type " + std::to_string(split_type) +
                             ": MPI_COMM_TYPE_SHARED, _HW_GUIDED, _HW_UNGUIDED, "
                             "_RESOURCE_GUIDED or MPI_UNDEFINED");
  // Every call compares the hints, whatever its type: a member passing
  // MPI_UNDEFINED cannot tell whether the others' type is a guided one. An
  // intercommunicator's allreduce would compare the other group's: there
  // the hints are taken as given.
  bool consistent = LookupComm(comm).inter ||
                    SameHintEverywhere(comm, split_type == MPI_UNDEFINED, type, pset);
  switch (split_type) {
    // The slaves of a node share its memory (and its master).
    case MPI_COMM_TYPE_SHARED:
      return CommSplit(comm, SharedMemoryColor(comm), key);
    case MPI_COMM_TYPE_HW_GUIDED:
      if (consistent && type != nullptr) return SplitByResource(comm, *type, key);
      break;
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
      if (consistent && type != nullptr) return SplitByResource(comm, *type, key);
      if (consistent && pset != nullptr) return SplitByPset(comm, *pset, key);
      break;
    case MPI_COMM_TYPE_HW_UNGUIDED: return SplitUnguided(comm, key, info);
    default: break;
  }
  return CommSplit(comm, MPI_UNDEFINED, key);
}

MPI_Comm CommCreate(MPI_Comm comm_handle, MPI_Group group) {
  RequireInitialized();
  std::vector<int> members = LookupComm(comm_handle).WorldRanks();
  const GroupInfo& subgroup = LookupGroup(group);
  std::unordered_set<int> in_comm(members.begin(), members.end());
  for (int world_rank : subgroup) {
    if (!in_comm.count(world_rank))
      throw Error(kErrGroup, "MPI_Comm_create: the group is not a subgroup of the "
                             "communicator's group");
  }
  auto mine = std::find(subgroup.begin(), subgroup.end(), MyWorldRank());
  if (mine == subgroup.end()) return CommSplit(comm_handle, MPI_UNDEFINED, 0);
  // Each side of an intercommunicator passes a group of its own.
  if (LookupComm(comm_handle).inter)
    return CommSplit(comm_handle, 0, static_cast<int>(mine - subgroup.begin()));
  // MPI-2.2 6.4.2: processes may pass different, disjoint groups, each
  // making a communicator of its own. The parent rank of the group's first
  // member names the group among them.
  int color = static_cast<int>(std::find(members.begin(), members.end(), subgroup.front()) -
                               members.begin());
  return CommSplit(comm_handle, color, static_cast<int>(mine - subgroup.begin()));
}

void CommFree(MPI_Comm* comm_handle) {
  RequireInitialized();
  LookupComm(*comm_handle);
  if (IsPredefinedComm(*comm_handle))
    throw Error(kErrComm, "a predefined communicator (MPI_COMM_WORLD, MPI_COMM_SELF, "
                          "BDMPI_COMM_CWORLD, BDMPI_COMM_NODE) cannot be freed");
  // The delete callbacks run first: one that fails leaves the communicator.
  DeleteAllAttrs(AttrKind::kComm, *comm_handle);
  const CommInfo& comm = LookupComm(*comm_handle);
  if (comm.cross) return CrossFree(comm_handle);
  RequestMsg request;
  request.type = MsgType::kCommFree;
  request.comm = comm.id;
  request.rank = comm.rank;
  Runtime::Instance()->Post(request);
  DropBuffer(BufferOwner{BufferOwner::Kind::kComm, *comm_handle});
  ReleaseComm(*comm_handle);
  *comm_handle = MPI_COMM_NULL;
}

int CommCompare(MPI_Comm comm1, MPI_Comm comm2) {
  RequireInitialized();
  const CommInfo& a = LookupComm(comm1);
  const CommInfo& b = LookupComm(comm2);
  if (comm1 == comm2) return MPI_IDENT;
  int members = CompareMembers(a.WorldRanks(), b.WorldRanks());
  return members == MPI_IDENT ? MPI_CONGRUENT : members;
}

MPI_Group CommGroup(MPI_Comm comm) {
  RequireInitialized();
  return NewGroup(LookupComm(comm).WorldRanks());
}

int GroupRank(MPI_Group group) {
  RequireInitialized();
  const GroupInfo& members = LookupGroup(group);
  auto mine = std::find(members.begin(), members.end(), MyWorldRank());
  return mine == members.end() ? MPI_UNDEFINED : static_cast<int>(mine - members.begin());
}

void GroupTranslateRanks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                         int ranks2[]) {
  const GroupInfo& from = LookupGroup(group1);
  std::unordered_map<int, int> to = Positions(LookupGroup(group2));
  if (n < 0) throw Error(kErrArg, "negative number of ranks");
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    auto found = to.find(CheckedRank(from, ranks1[i]));
    ranks2[i] = found == to.end() ? MPI_UNDEFINED : found->second;
  }
}

int GroupCompare(MPI_Group group1, MPI_Group group2) {
  return CompareMembers(LookupGroup(group1), LookupGroup(group2));
}

MPI_Group GroupIncl(MPI_Group group, int n, const int ranks[]) {
  if (n < 0) throw Error(kErrArg, "negative number of ranks");
  return Included(LookupGroup(group), std::vector<int>(ranks, ranks + n));
}

MPI_Group GroupExcl(MPI_Group group, int n, const int ranks[]) {
  if (n < 0) throw Error(kErrArg, "negative number of ranks");
  return Excluded(LookupGroup(group), std::vector<int>(ranks, ranks + n));
}

MPI_Group GroupRangeIncl(MPI_Group group, int n, int ranges[][3]) {
  const GroupInfo& members = LookupGroup(group);
  return Included(members, RangeRanks(members, n, ranges));
}

MPI_Group GroupRangeExcl(MPI_Group group, int n, int ranges[][3]) {
  const GroupInfo& members = LookupGroup(group);
  return Excluded(members, RangeRanks(members, n, ranges));
}

MPI_Group GroupUnion(MPI_Group group1, MPI_Group group2) {
  GroupInfo members = LookupGroup(group1);
  GroupInfo extra = Filter(LookupGroup(group2), members, /*keep_common=*/false);
  members.insert(members.end(), extra.begin(), extra.end());
  return NewGroup(std::move(members));
}

MPI_Group GroupIntersection(MPI_Group group1, MPI_Group group2) {
  return NewGroup(Filter(LookupGroup(group1), LookupGroup(group2), /*keep_common=*/true));
}

MPI_Group GroupDifference(MPI_Group group1, MPI_Group group2) {
  return NewGroup(Filter(LookupGroup(group1), LookupGroup(group2), /*keep_common=*/false));
}

}  // namespace bdmpi
