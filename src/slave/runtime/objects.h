// The MPI objects a slave holds: communicators (with their error handlers)
// and groups, looked up by handle with MPI's error classes, and statuses;
// datatypes are in datatype/datatypes.h, requests in request/request.h.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/rank_layout.h"
#include "slave/comm/topology.h"
#include "slave/datatype/datatypes.h"
#include "slave/runtime/info.h"

namespace bdmpi {

struct CrossJobComm;  // slave/comm/cross_job.h

struct CommInfo {
  int id = 0;  // the masters' name for it, unique in the job (CommId)
  int rank = 0;
  int size = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  // The members' world ranks by rank; empty for MPI_COMM_WORLD, where a
  // rank is its world rank.
  std::vector<int> world_ranks;
  // Its process topology (MPI_Cart_create, ...); null for none.
  std::shared_ptr<const Topology> topology;
  // The hints MPI_Comm_set_info gave (BDMPI acts on none).
  InfoEntries hints;
  // The session it derives from (MPI_Comm_create_from_group, then split
  // and dup), whose attached buffer its buffered sends may use.
  MPI_Session session = MPI_SESSION_NULL;
  // An intercommunicator (intercomm.h): rank, size and world_ranks are the
  // local group's; its messages travel on `id`, a hidden communicator of
  // both groups (the group with the lowest world rank first), where this
  // rank is union_rank and the remote group starts at remote_offset.
  bool inter = false;
  std::vector<int> remote_world_ranks;
  int union_rank = 0;
  int remote_offset = 0;
  // A communicator between two jobs (cross_job.h), which no master knows:
  // its ranks carry its messages themselves.
  std::shared_ptr<const CrossJobComm> cross;

  int WorldRank(int r) const { return world_ranks.empty() ? r : world_ranks[r]; }
  std::vector<int> WorldRanks() const;
  // Point-to-point names peers in the remote group of an intercommunicator:
  // how many there are, and their and this rank's numbers on the wire.
  int PeerGroupSize() const { return inter ? static_cast<int>(remote_world_ranks.size()) : size; }
  int WireRank() const { return inter ? union_rank : rank; }
  int WirePeer(int peer) const { return inter && peer >= 0 ? remote_offset + peer : peer; }
  int UserSource(int wire_source) const {
    return inter && wire_source >= 0 ? wire_source - remote_offset : wire_source;
  }
};

// Throws kErrComm for MPI_COMM_NULL and anything that is not a communicator.
CommInfo& LookupComm(MPI_Comm comm);
// The communicator, or nullptr.
const CommInfo* FindComm(MPI_Comm comm);
// Sets up the predefined communicators (and forgets everything else) at
// MPI_Init: MPI_COMM_WORLD, MPI_COMM_SELF, BDMPI_COMM_CWORLD and
// BDMPI_COMM_NODE (bdmpi.h), from where `layout` runs each rank.
// A rank MPI_Comm_spawn started has `spawn_world` (job ranks, by rank) as
// its MPI_COMM_WORLD (empty: not spawned), which also serves as its
// BDMPI_COMM_CWORLD, and whose members on its node are its BDMPI_COMM_NODE.
void ResetComms(int world_rank, const RankLayout& layout,
                const std::vector<int>& spawn_world = {});
// The hidden communicator of every job rank (UniverseCommId), where a
// rank is its job rank: the peer communicator through which spawn, ports
// and MPI_Comm_join make intercommunicators.
MPI_Comm UniverseComm();
// One of those four, which MPI_Comm_free refuses.
bool IsPredefinedComm(MPI_Comm comm);
MPI_Comm NewComm(CommInfo comm);
// Forgets a communicator other than the predefined ones.
void ReleaseComm(MPI_Comm comm);

// Groups: their members' world ranks by rank in the group.
using GroupInfo = std::vector<int>;
// Throws kErrGroup for MPI_GROUP_NULL, freed and non-group handles.
const GroupInfo& LookupGroup(MPI_Group group);
// MPI_GROUP_EMPTY for an empty group.
MPI_Group NewGroup(GroupInfo members);
void FreeGroup(MPI_Group* group);

// How a send completes. Every message is copied out when it is sent, so a
// standard send (and MPI's ready mode) completes at once; a buffered one
// also needs a large enough attached buffer (MPI_Buffer_attach); a
// synchronous one completes when a receive on the destination has taken
// its message.
enum class SendMode { kStandard, kBuffered, kSynchronous };

// Status helpers: `status` may be MPI_STATUS_IGNORE.
void SetStatus(MPI_Status* status, int source, int tag, int error,
               std::uint64_t bytes);
void SetEmptyStatus(MPI_Status* status);
// A status the single-completion calls hand out (MPI_Recv, MPI_Wait,
// MPI_Probe, ...): every field but MPI_ERROR, which only the calls with an
// array of statuses set (MPI-3.1 3.7.5), as in Open MPI.
void SetResult(MPI_Status* status, int source, int tag, std::uint64_t bytes);
void CopyResult(MPI_Status* to, const MPI_Status& from);

}  // namespace bdmpi
