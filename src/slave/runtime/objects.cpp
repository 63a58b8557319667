#include "slave/runtime/objects.h"

#include <bdmpi.h>

#include <vector>

#include "common/error.h"
#include "common/handles.h"
#include "common/protocol.h"
#include "slave/runtime/handle_table.h"

namespace bdmpi {

static_assert(MPI_COMM_WORLD == MakeHandle(HandleKind::kComm, 0));
static_assert(MPI_COMM_SELF == MakeHandle(HandleKind::kComm, 1));
static_assert(BDMPI_COMM_CWORLD == MakeHandle(HandleKind::kComm, 2));
static_assert(BDMPI_COMM_NODE == MakeHandle(HandleKind::kComm, 3));
static_assert(MPI_GROUP_EMPTY == MakeHandle(HandleKind::kGroup, 0));
static_assert(MPI_INT == MakeHandle(HandleKind::kDatatype,
                                    static_cast<int>(DatatypeId::kInt)));
static_assert(MPI_REQUEST_NULL == MakeHandle(HandleKind::kRequest, 0));

namespace {

// Slots 0-3 are MPI_COMM_WORLD, MPI_COMM_SELF, BDMPI_COMM_CWORLD and
// BDMPI_COMM_NODE (IsPredefinedComm).
HandleTable<CommInfo>& Comms() {
  static HandleTable<CommInfo> comms(HandleKind::kComm, 0);
  return comms;
}

// MPI_GROUP_EMPTY (index 0) is not in the table.
HandleTable<GroupInfo>& Groups() {
  static HandleTable<GroupInfo> groups(HandleKind::kGroup, 1);
  return groups;
}

}  // namespace

CommInfo& LookupComm(MPI_Comm comm) {
  CommInfo* info = Comms().Find(comm);
  if (info == nullptr) throw Error(kErrComm, "invalid communicator");
  return *info;
}

const CommInfo* FindComm(MPI_Comm comm) { return Comms().Find(comm); }

std::vector<int> CommInfo::WorldRanks() const {
  if (!world_ranks.empty()) return world_ranks;
  std::vector<int> identity(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) identity[static_cast<std::size_t>(r)] = r;
  return identity;
}

bool IsPredefinedComm(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF || comm == BDMPI_COMM_CWORLD ||
         comm == BDMPI_COMM_NODE;
}

namespace {
MPI_Comm universe_comm = MPI_COMM_NULL;
}  // namespace

MPI_Comm UniverseComm() { return universe_comm; }

void ResetComms(int world_rank, const RankLayout& layout, int spawn_first, int spawn_size) {
  // Ids are made with the universe size, which holds spawned ranks too.
  int universe = layout.universe_size();
  HandleTable<CommInfo>& comms = Comms();
  comms.Clear();
  CommInfo world;
  if (spawn_size > 0) {
    world.id = CommId(spawn_first, kSpawnWorldCreation, universe);
    world.rank = world_rank - spawn_first;
    world.size = spawn_size;
    for (int r = 0; r < spawn_size; ++r) world.world_ranks.push_back(spawn_first + r);
  } else {
    world.id = kWorldCommId;
    world.rank = world_rank;
    world.size = layout.world_size();
  }
  world.name = "MPI_COMM_WORLD";
  CommInfo spawned_world = world;
  comms.Add(std::move(world));
  CommInfo self;
  self.id = CommId(world_rank, 0, universe);
  self.rank = 0;
  self.size = 1;
  self.name = "MPI_COMM_SELF";
  self.world_ranks = {world_rank};
  comms.Add(std::move(self));
  if (spawn_size > 0) {
    // The job's BDMPI_COMM_CWORLD and BDMPI_COMM_NODE hold the ranks it
    // started with; a spawned rank's are its own world.
    spawned_world.name = "BDMPI_COMM_CWORLD";
    BDMPI_ENFORCE(comms.Add(spawned_world) == BDMPI_COMM_CWORLD, "BDMPI_COMM_CWORLD's slot");
    spawned_world.name = "BDMPI_COMM_NODE";
    BDMPI_ENFORCE(comms.Add(std::move(spawned_world)) == BDMPI_COMM_NODE,
                  "BDMPI_COMM_NODE's slot");
  } else {
    // The masters register the same two (master/comm/comm_registry.cpp).
    int world_size = layout.world_size();
    int node = layout.NodeOf(world_rank), first = layout.FirstRank(node);
    CommInfo cworld;
    cworld.id = CworldCommId(universe);
    cworld.rank = layout.CworldRank(world_rank);
    cworld.size = world_size;
    cworld.name = "BDMPI_COMM_CWORLD";
    for (int r = 0; r < world_size; ++r) cworld.world_ranks.push_back(layout.WorldRankOfCworld(r));
    BDMPI_ENFORCE(comms.Add(std::move(cworld)) == BDMPI_COMM_CWORLD, "BDMPI_COMM_CWORLD's slot");
    CommInfo local;
    local.id = NodeCommId(first, universe);
    local.rank = world_rank - first;
    local.size = layout.Count(node);
    local.name = "BDMPI_COMM_NODE";
    for (int i = 0; i < local.size; ++i) local.world_ranks.push_back(first + i);
    BDMPI_ENFORCE(comms.Add(std::move(local)) == BDMPI_COMM_NODE, "BDMPI_COMM_NODE's slot");
  }
  CommInfo all;
  all.id = UniverseCommId(universe);
  all.rank = world_rank;
  all.size = universe;
  all.name = "BDMPI universe";
  universe_comm = comms.Add(std::move(all));
}

MPI_Comm NewComm(CommInfo comm) { return Comms().Add(std::move(comm)); }

void ReleaseComm(MPI_Comm comm) {
  LookupComm(comm);
  BDMPI_ENFORCE(!IsPredefinedComm(comm), "releasing a predefined communicator");
  Comms().Remove(comm);
}

const GroupInfo& LookupGroup(MPI_Group group) {
  static const GroupInfo empty;
  if (group == MPI_GROUP_EMPTY) return empty;
  const GroupInfo* info = Groups().Find(group);
  if (info == nullptr) throw Error(kErrGroup, "invalid group");
  return *info;
}

MPI_Group NewGroup(GroupInfo members) {
  if (members.empty()) return MPI_GROUP_EMPTY;
  return Groups().Add(std::move(members));
}

void FreeGroup(MPI_Group* group) {
  LookupGroup(*group);
  // MPI_GROUP_EMPTY stays; freeing a handle to it just nulls the handle.
  if (*group != MPI_GROUP_EMPTY) Groups().Remove(*group);
  *group = MPI_GROUP_NULL;
}

void SetStatus(MPI_Status* status, int source, int tag, int error,
               std::uint64_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = error;
  status->bdmpi_cancelled = 0;
  status->bdmpi_count = static_cast<long long>(bytes);
}

void SetEmptyStatus(MPI_Status* status) {
  SetStatus(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
}

void SetResult(MPI_Status* status, int source, int tag, std::uint64_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  int error = status->MPI_ERROR;
  SetStatus(status, source, tag, MPI_SUCCESS, bytes);
  status->MPI_ERROR = error;
}

void CopyResult(MPI_Status* to, const MPI_Status& from) {
  if (to == MPI_STATUS_IGNORE) return;
  int error = to->MPI_ERROR;
  *to = from;
  to->MPI_ERROR = error;
}

}  // namespace bdmpi
