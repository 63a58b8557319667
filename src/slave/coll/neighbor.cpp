// Neighbourhood collectives; see neighbor.h.
#include "slave/coll/neighbor.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/error.h"
#include "slave/coll/nbc_blocks.h"
#include "slave/comm/topology_comm.h"
#include "slave/datatype/datatypes.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"

namespace bdmpi {
namespace {

// Tags on the collective twin, far from coll_p2p.h's CollTag values. A
// Cartesian rank's two neighbours along a dimension of extent 1 or 2 may be
// the same rank: each direction gets its own tag (the receiver's block
// number), so that blocks land in the right place.
constexpr int kTagNeighbor = 0x4e0000;

// Sends block i of `send` to out-neighbour i and receives block j of
// `recv` from in-neighbour j.
CollectivePlan Exchange(MPI_Comm comm_handle, const void* send, Blocks blocks, void* recv,
                        Blocks slots) {
  const CommInfo& comm = LookupComm(comm_handle);
  const Topology& topology = TopologyOf(comm_handle);
  std::vector<int> outs = topology.OutNeighbors(comm.rank);
  std::vector<int> ins = topology.InNeighbors(comm.rank);
  bool cartesian = topology.kind == MPI_CART;
  for (const Block& block : blocks) WireBytes(block.count, block.type);
  for (const Block& slot : slots) WireBytes(slot.count, slot.type);
  return [=]() {
    Schedule schedule(comm);
    for (std::size_t i = 0; i < outs.size(); ++i) {
      if (outs[i] == MPI_PROC_NULL) continue;
      // Sent down a dimension it arrives as the receiver's "from above" block.
      int tag = kTagNeighbor + (cartesian ? static_cast<int>(i ^ 1) : 0);
      schedule.SendElements(outs[i], tag, At(send, blocks[i]), blocks[i].count, blocks[i].type);
    }
    for (std::size_t j = 0; j < ins.size(); ++j) {
      if (ins[j] == MPI_PROC_NULL) continue;
      int tag = kTagNeighbor + (cartesian ? static_cast<int>(j) : 0);
      schedule.RecvElements(ins[j], tag, At(recv, slots[j]), slots[j].count, slots[j].type);
    }
    return schedule;
  };
}

std::size_t OutDegree(MPI_Comm comm) {
  return TopologyOf(comm).OutNeighbors(LookupComm(comm).rank).size();
}
std::size_t InDegree(MPI_Comm comm) {
  return TopologyOf(comm).InNeighbors(LookupComm(comm).rank).size();
}

std::int64_t ExtentOf(MPI_Datatype type) {
  return static_cast<std::int64_t>(LookupType(type).extent);
}

// Blocks of counts[i] elements at displs[i] extents, or of `count` each
// one after the other, or (`same`) all the same block at the start.
Blocks Layout(std::size_t n, const int counts[], const int displs[], int count, MPI_Datatype type,
              bool same = false) {
  Blocks blocks;
  std::int64_t extent = ExtentOf(type);
  for (std::size_t i = 0; i < n; ++i) {
    int c = counts != nullptr ? counts[i] : count;
    std::int64_t at = same                ? 0
                      : displs != nullptr ? displs[i]
                                          : static_cast<std::int64_t>(i) * count;
    blocks.push_back(Block{c, at * extent, type});
  }
  return blocks;
}

// MPI_Neighbor_alltoallw's: byte displacements, a type for each.
Blocks LayoutW(std::size_t n, const int counts[], const MPI_Aint displs[],
               const MPI_Datatype types[]) {
  Blocks blocks;
  for (std::size_t i = 0; i < n; ++i)
    blocks.push_back(Block{counts[i], static_cast<std::int64_t>(displs[i]), types[i]});
  return blocks;
}

void NoInPlace(const void* send) {
  RequireInitialized();
  if (send == MPI_IN_PLACE)
    throw Error(kErrBuffer, "neighbourhood collectives take no MPI_IN_PLACE");
}

}  // namespace

CollectivePlan NeighborAllgatherPlan(const void* send, int sendcount, MPI_Datatype sendtype,
                                     void* recv, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm) {
  NoInPlace(send);
  return Exchange(comm, send,
                  Layout(OutDegree(comm), nullptr, nullptr, sendcount, sendtype, /*same=*/true),
                  recv, Layout(InDegree(comm), nullptr, nullptr, recvcount, recvtype));
}

CollectivePlan NeighborAllgathervPlan(const void* send, int sendcount, MPI_Datatype sendtype,
                                      void* recv, const int recvcounts[], const int displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm) {
  NoInPlace(send);
  return Exchange(comm, send,
                  Layout(OutDegree(comm), nullptr, nullptr, sendcount, sendtype, /*same=*/true),
                  recv, Layout(InDegree(comm), recvcounts, displs, 0, recvtype));
}

CollectivePlan NeighborAlltoallPlan(const void* send, int sendcount, MPI_Datatype sendtype,
                                    void* recv, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm) {
  NoInPlace(send);
  return Exchange(comm, send, Layout(OutDegree(comm), nullptr, nullptr, sendcount, sendtype),
                  recv, Layout(InDegree(comm), nullptr, nullptr, recvcount, recvtype));
}

CollectivePlan NeighborAlltoallvPlan(const void* send, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void* recv, const int recvcounts[],
                                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  NoInPlace(send);
  return Exchange(comm, send, Layout(OutDegree(comm), sendcounts, sdispls, 0, sendtype), recv,
                  Layout(InDegree(comm), recvcounts, rdispls, 0, recvtype));
}

CollectivePlan NeighborAlltoallwPlan(const void* send, const int sendcounts[],
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                     void* recv, const int recvcounts[], const MPI_Aint rdispls[],
                                     const MPI_Datatype recvtypes[], MPI_Comm comm) {
  NoInPlace(send);
  return Exchange(comm, send, LayoutW(OutDegree(comm), sendcounts, sdispls, sendtypes), recv,
                  LayoutW(InDegree(comm), recvcounts, rdispls, recvtypes));
}

}  // namespace bdmpi
