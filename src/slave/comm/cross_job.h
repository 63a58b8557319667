// Communicators between two jobs of one user, on one host or two: the
// intercommunicator of MPI_Comm_accept/MPI_Comm_connect to another job's
// port (and MPI_Comm_join over a socket to another job's rank), and what
// MPI_Intercomm_merge, MPI_Comm_dup, MPI_Comm_split and the like make of
// it.
//
// Design (docs/processes.md, "Ports and joins between two jobs"). The two
// jobs' masters never meet: every rank of both groups holds a stream
// socket to every other one (the mesh, cross_job_mesh.h, made here at the
// connection: each rank listens on an abstract socket of a random name and
// on TCP, the roots swap the names through the port's socket, a rank dials
// the lower indexes, over Unix sockets on its host and TCP to others, and
// accepts the higher ones). A message is a frame on the
// socket to its destination; a receive takes the first arrived frame that
// matches (context, source, tag). The collectives (cross_job_coll.cpp)
// travel over the same frames in the communicator's second context: the
// blocking ones are linear (those that move blocks are one list of sends
// and one of receives each, run by one function; the reductions fold in
// rank order at a group's rank 0), the others one-round schedules
// (cross_job_coll.h).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

class Mesh;

// What a communicator between two jobs holds (CommInfo::cross). Its user
// messages travel in `context`, its collectives' in `context + 1`.
struct CrossJobComm {
  std::shared_ptr<Mesh> mesh;
  int context = 0;
  std::vector<int> local;   // mesh index by rank in the local group
  std::vector<int> remote;  // of the remote group (an intercommunicator), else empty
  std::string other_job;
  bool accepting = false;  // the local group came in by MPI_Comm_accept
  // The group identity of the process of each mesh index (its job rank
  // when of this rank's job).
  std::vector<int> ids;
  // The schedules (cross_job_coll.h) started on it so far.
  mutable std::uint32_t schedules = 0;

  // The mesh indexes point-to-point names ranks of.
  const std::vector<int>& peers() const { return remote.empty() ? local : remote; }
};

// What a root writes first on the port's socket (and each side of
// MPI_Comm_join on the program's): its job and job rank.
struct RankCard {
  char job[64] = {};
  std::int32_t rank = 0;
};
RankCard OwnCard();

// The listening sockets of a port of this rank, made by MPI_Open_port:
// the abstract one of `tag`, and one on TCP when the host has a network
// address. Returns the port's name, `name_of` the TCP endpoint (or empty).
std::string ListenOnPort(std::uint64_t tag,
                         const std::function<std::string(const std::string& tcp)>& name_of);
void StopListening(const std::string& port);
// Throws kErrPort when this rank does not listen on the port (closed).
void RequireListening(const std::string& port);
// Whether a rank connected to the port within a millisecond: then `card`
// gets its card and `link` the socket.
bool TryKnock(const std::string& port, RankCard* card, int* link);
// Connects to a port's socket (any job's of this user on this host, else
// its TCP endpoint `tcp`, with the tag as proof) and writes this rank's
// card; throws kErrPort when no rank listens on it.
int KnockAt(const std::string& port, std::uint64_t tag, const std::string& tcp);

// Collective over `comm`: makes the mesh with the group on the other end of
// `link` (significant at `root` only, left open) and returns the
// intercommunicator. `accepting`: this group comes first in the mesh.
MPI_Comm LinkJobs(int link, bool accepting, int root, MPI_Comm comm);

// A colour (MPI_Comm_split) of this rank's job and node, the same at
// every rank of the job's node and another at other nodes' and jobs'.
int CrossJobColor();

// The communicator when it is one between two jobs, else nullptr.
inline const CommInfo* CrossJob(MPI_Comm comm) {
  if (cross_job_comms == 0) return nullptr;
  const CommInfo* info = FindComm(comm);
  return info != nullptr && info->cross ? info : nullptr;
}

// The operations a communicator between two jobs serves; each throws
// kErrComm for what it does not (an intercommunicator's reduce, ...).
// A send is written into the socket when made; a synchronous one
// (MPI_Ssend) returns once the destination's receive took the message,
// a buffered one must fit the attached buffer (MPI_ERR_BUFFER).
void CrossSend(MPI_Comm handle, const void* buffer, int count, MPI_Datatype datatype, int dest,
               int tag, SendMode mode = SendMode::kStandard);
void CrossRecv(const CommInfo& comm, void* buffer, int count, MPI_Datatype datatype, int source,
               int tag, MPI_Status* status);
MPI_Request CrossIrecv(MPI_Comm handle, void* buffer, int count, MPI_Datatype datatype, int source,
                       int tag);
MPI_Request CrossRecvInit(MPI_Comm handle, void* buffer, int count, MPI_Datatype datatype,
                          int source, int tag);
// A nonblocking send of any mode, or (`persistent`) its inactive
// persistent request.
MPI_Request CrossIsend(MPI_Comm handle, const void* buffer, int count, MPI_Datatype datatype,
                       int dest, int tag, SendMode mode, bool persistent);
// MPI_Mprobe (`wait`) and MPI_Improbe: takes the matching message out of
// the arrived ones; 0 when none arrived, else the key MPI_Mrecv names it by.
std::uint64_t CrossMprobe(const CommInfo& comm, int source, int tag, bool wait, MPI_Status* status);
void CrossMrecv(std::uint64_t key, void* buffer, int count, MPI_Datatype datatype,
                MPI_Status* status);
bool CrossProbe(const CommInfo& comm, int source, int tag, bool wait, MPI_Status* status);
void CrossBarrier(const CommInfo& comm);
void CrossBcast(const CommInfo& comm, void* buffer, int count, MPI_Datatype datatype, int root);
void CrossReduce(const CommInfo& comm, const void* send, void* recv, int count,
                 MPI_Datatype datatype, MPI_Op op, int root);
void CrossAllreduce(const CommInfo& comm, const void* send, void* recv, int count,
                    MPI_Datatype datatype, MPI_Op op);
void CrossGatherv(const CommInfo& comm, const void* send, int sendcount, MPI_Datatype sendtype,
                  void* recv, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                  int root);
void CrossScatterv(const CommInfo& comm, const void* send, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void* recv, int recvcount,
                   MPI_Datatype recvtype, int root);
void CrossAllgatherv(const CommInfo& comm, const void* send, int sendcount, MPI_Datatype sendtype,
                     void* recv, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype);
void CrossAlltoallv(const CommInfo& comm, const void* send, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void* recv,
                    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype);
// MPI_Scan, or MPI_Exscan when `exclusive`: a chain in rank order.
void CrossScan(const CommInfo& comm, const void* send, void* recv, int count,
               MPI_Datatype datatype, MPI_Op op, bool exclusive);
// What the forms without v mean: one block of `count` elements per rank
// of the peer group, back to back.
struct CrossEvenBlocks {
  std::vector<int> counts;
  std::vector<int> displs;
};
CrossEvenBlocks EvenBlocksOf(const CommInfo& comm, int count);
MPI_Comm CrossMerge(const CommInfo& inter, int high);
MPI_Comm CrossDup(const CommInfo& comm);
// MPI_Comm_split (and MPI_Comm_create, through it) of a merged
// communicator: its members of `color`, of both jobs, by key.
MPI_Comm CrossSplit(const CommInfo& comm, int color, int key);
// MPI_Comm_create_group of a merged communicator, called by the group's
// members only: `ranks` are theirs in the parent, in the group's order,
// `me` this rank's place among them.
MPI_Comm CrossCreateGroup(const CommInfo& comm, const std::vector<int>& ranks, int me, int tag);
// Forgets it; the sockets close with the mesh's last communicator.
void CrossFree(MPI_Comm* handle);

}  // namespace bdmpi
