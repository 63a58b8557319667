// Neighbourhood collectives; see neighbor.h.
#include "slave/neighbor.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/error.h"
#include "slave/coll_p2p.h"
#include "slave/datatypes.h"
#include "slave/errors.h"
#include "slave/objects.h"
#include "slave/topology_comm.h"
#include "slave/wire_data.h"

namespace bdmpi {
namespace {

// Tags on the collective twin, far from coll_p2p.h's CollTag values. A
// Cartesian rank's two neighbours along a dimension of extent 1 or 2 may be
// the same rank: each direction gets its own tag (the receiver's block
// number), so that blocks land in the right place.
constexpr int kTagNeighbor = 0x4e0000;

// A block travels as wire bytes (wire_data.h), so that any datatype
// matches any other of the same type signature.
using Block = WireData;
using Slot = WireSink;

// Sends block i to out-neighbour i, then receives block j from
// in-neighbour j.
void Exchange(MPI_Comm comm_handle, const std::vector<Block>& blocks,
              std::vector<Slot> slots) {
  const CommInfo& comm = LookupComm(comm_handle);
  const Topology& topology = TopologyOf(comm_handle);
  std::vector<int> outs = topology.OutNeighbors(comm.rank);
  std::vector<int> ins = topology.InNeighbors(comm.rank);
  bool cartesian = topology.kind == MPI_CART;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    if (outs[i] == MPI_PROC_NULL) continue;
    // Sent down a dimension it arrives as the receiver's "from above" block.
    int tag = kTagNeighbor + (cartesian ? static_cast<int>(i ^ 1) : 0);
    CollSend(comm, outs[i], tag, blocks[i].data, blocks[i].bytes);
  }
  for (std::size_t j = 0; j < ins.size(); ++j) {
    if (ins[j] == MPI_PROC_NULL) continue;
    int tag = kTagNeighbor + (cartesian ? static_cast<int>(j) : 0);
    CollRecv(comm, ins[j], tag, slots[j].data(), slots[j].bytes());
    slots[j].Finish();
  }
}

std::size_t OutDegree(MPI_Comm comm) {
  return TopologyOf(comm).OutNeighbors(LookupComm(comm).rank).size();
}
std::size_t InDegree(MPI_Comm comm) {
  return TopologyOf(comm).InNeighbors(LookupComm(comm).rank).size();
}

const std::byte* Offset(const void* base, std::int64_t bytes) {
  return static_cast<const std::byte*>(base) + bytes;
}
std::byte* Offset(void* base, std::int64_t bytes) { return static_cast<std::byte*>(base) + bytes; }

std::int64_t Extent(MPI_Datatype type) {
  return static_cast<std::int64_t>(LookupType(type).extent);
}

// Blocks of counts[i] elements at displs[i] extents (or a regular layout).
std::vector<Block> SendBlocks(const void* send, std::size_t n, const int counts[],
                              const int displs[], int count, MPI_Datatype type, bool same) {
  std::vector<Block> blocks;
  std::int64_t extent = Extent(type);
  for (std::size_t i = 0; i < n; ++i) {
    int c = counts != nullptr ? counts[i] : count;
    std::int64_t at = same                ? 0
                      : displs != nullptr ? displs[i]
                                          : static_cast<std::int64_t>(i) * count;
    blocks.push_back(ToWire(Offset(send, at * extent), c, type));
  }
  return blocks;
}

std::vector<Slot> RecvSlots(void* recv, std::size_t n, const int counts[], const int displs[],
                            int count, MPI_Datatype type) {
  std::vector<Slot> slots;
  std::int64_t extent = Extent(type);
  for (std::size_t j = 0; j < n; ++j) {
    int c = counts != nullptr ? counts[j] : count;
    std::int64_t at = displs != nullptr ? displs[j] : static_cast<std::int64_t>(j) * count;
    slots.emplace_back(Offset(recv, at * extent), c, type);
  }
  return slots;
}

void NoInPlace(const void* send) {
  if (send == MPI_IN_PLACE)
    throw Error(kErrBuffer, "neighbourhood collectives take no MPI_IN_PLACE");
}

}  // namespace

void NeighborAllgather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  RequireInitialized();
  NoInPlace(send);
  Exchange(comm, SendBlocks(send, OutDegree(comm), nullptr, nullptr, sendcount, sendtype, true),
           RecvSlots(recv, InDegree(comm), nullptr, nullptr, recvcount, recvtype));
}

void NeighborAllgatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm) {
  RequireInitialized();
  NoInPlace(send);
  Exchange(comm, SendBlocks(send, OutDegree(comm), nullptr, nullptr, sendcount, sendtype, true),
           RecvSlots(recv, InDegree(comm), recvcounts, displs, 0, recvtype));
}

void NeighborAlltoall(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  RequireInitialized();
  NoInPlace(send);
  Exchange(comm, SendBlocks(send, OutDegree(comm), nullptr, nullptr, sendcount, sendtype, false),
           RecvSlots(recv, InDegree(comm), nullptr, nullptr, recvcount, recvtype));
}

void NeighborAlltoallv(const void* send, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recv, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  RequireInitialized();
  NoInPlace(send);
  Exchange(comm, SendBlocks(send, OutDegree(comm), sendcounts, sdispls, 0, sendtype, false),
           RecvSlots(recv, InDegree(comm), recvcounts, rdispls, 0, recvtype));
}

void NeighborAlltoallw(const void* send, const int sendcounts[], const MPI_Aint sdispls[],
                       const MPI_Datatype sendtypes[], void* recv, const int recvcounts[],
                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  RequireInitialized();
  NoInPlace(send);
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < OutDegree(comm); ++i)
    blocks.push_back(ToWire(Offset(send, sdispls[i]), sendcounts[i], sendtypes[i]));
  std::vector<Slot> slots;
  for (std::size_t j = 0; j < InDegree(comm); ++j)
    slots.emplace_back(Offset(recv, rdispls[j]), recvcounts[j], recvtypes[j]);
  Exchange(comm, blocks, std::move(slots));
}

}  // namespace bdmpi
