// The MPI objects a slave holds: communicators (with their error handlers),
// groups and requests, looked up by handle with MPI's error classes;
// datatypes are in datatypes.h.
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
  // An intercommunicator (intercomm.h): rank, size and world_ranks are the
  // local group's; its messages travel on `id`, a hidden communicator of
  // both groups (the group with the lowest world rank first), where this
  // rank is union_rank and the remote group starts at remote_offset.
  bool inter = false;
  std::vector<int> remote_world_ranks;
  int union_rank = 0;
  int remote_offset = 0;

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
void ResetComms(int world_rank, const RankLayout& layout);
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

// MPI_Grequest_start's callbacks: an operation the program completes
// itself (MPI_Grequest_complete); see p2p/p2p_more.h.
struct GeneralizedRequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  // Guarded by generalized_wait's mutex: MPI_Grequest_complete may come
  // from another thread.
  bool complete = false;
  bool freed = false;  // MPI_Request_free came before MPI_Grequest_complete
  // One the runtime completes itself (MPI_Buffer_iflush), with no
  // callbacks: makes progress, waiting when asked; true when complete.
  std::function<bool(bool wait)> progress;
};
struct CollectiveRequest;  // nbc.h

// A non-blocking operation in flight.
struct PendingRequest {
  bool is_recv = false;
  bool done = false;
  MPI_Comm comm = MPI_COMM_NULL;
  void* buffer = nullptr;
  std::uint64_t capacity = 0;
  // The master's receive id; for a synchronous send, the id the master
  // completes when its message is matched.
  std::uint64_t id = 0;
  MPI_Status status{};
  // Persistent requests (MPI_Send_init, MPI_Recv_init): the arguments each
  // MPI_Start uses; between a completion and the next start the request
  // is inactive, which the completion calls treat like MPI_REQUEST_NULL.
  bool persistent = false;
  bool active = true;
  const void* send_buffer = nullptr;
  int count = 0;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  // A receive into a datatype with gaps: where to unpack (see FinishRecv).
  std::shared_ptr<const TypeInfo> layout;
  int peer = 0;
  int tag = 0;
  SendMode mode = SendMode::kStandard;
  // A generalized request (done once the program completes it).
  std::shared_ptr<GeneralizedRequest> generalized;
  // A nonblocking or persistent collective (nbc.h): `id` is the receive
  // its schedule waits for next, and `done` says the schedule is complete.
  std::shared_ptr<CollectiveRequest> collective;
};

MPI_Request NewRequest(const PendingRequest& request);
// Throws kErrRequest for handles that name no request in flight.
PendingRequest& LookupRequest(MPI_Request request);
void FreeRequest(MPI_Request request);

// Status helpers: `status` may be MPI_STATUS_IGNORE.
void SetStatus(MPI_Status* status, int source, int tag, int error,
               std::uint64_t bytes);
void SetEmptyStatus(MPI_Status* status);

}  // namespace bdmpi
