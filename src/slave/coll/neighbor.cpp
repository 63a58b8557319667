// Neighbourhood collectives; see neighbor.h.
#include "slave/coll/neighbor.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/error.h"
#include "slave/coll/nbc_blocks.h"
#include "slave/comm/cross_job_coll.h"
#include "slave/comm/cross_job_internal.h"
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

// A rank's neighbours, the blocks' types checked.
struct NeighborSides {
  std::vector<int> outs;
  std::vector<int> ins;
  bool cartesian = false;
};

NeighborSides SidesOf(MPI_Comm comm_handle, const Blocks& blocks, const Blocks& slots) {
  const Topology& topology = TopologyOf(comm_handle);
  int rank = LookupComm(comm_handle).rank;
  for (const Block& block : blocks) WireBytes(block.count, block.type);
  for (const Block& slot : slots) WireBytes(slot.count, slot.type);
  return {topology.OutNeighbors(rank), topology.InNeighbors(rank), topology.kind == MPI_CART};
}

// Sends block i of `send` to out-neighbour i and receives block j of
// `recv` from in-neighbour j.
CollectivePlan Exchange(MPI_Comm comm_handle, const void* send, Blocks blocks, void* recv,
                        Blocks slots) {
  const CommInfo& comm = LookupComm(comm_handle);
  auto [outs, ins, cartesian] = SidesOf(comm_handle, blocks, slots);
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

// Exchange over a communicator between two jobs (cross_job_coll.h), whose
// schedule has one tag per operation: frames from one rank are taken in
// the order sent, so the blocks go out in the order of the receiver's
// blocks (a Cartesian neighbour both below and above sends the block the
// receiver takes as from below first).
CrossPlan CrossExchange(MPI_Comm comm_handle, const void* send, Blocks blocks, void* recv,
                        Blocks slots) {
  auto [outs, ins, cartesian] = SidesOf(comm_handle, blocks, slots);
  return [=]() {
    const CommInfo& at = LookupComm(comm_handle);
    CrossSchedule schedule(at);
    std::shared_ptr<const CrossJobComm> cross = at.cross;
    const std::vector<int>& peers = cross->peers();
    for (std::size_t k = 0; k < outs.size(); ++k) {
      std::size_t i = cartesian ? k ^ 1 : k;
      if (outs[i] == MPI_PROC_NULL) continue;
      schedule.SendElements(peers[static_cast<std::size_t>(outs[i])], At(send, blocks[i]),
                            blocks[i].count, blocks[i].type);
    }
    for (std::size_t j = 0; j < ins.size(); ++j) {
      if (ins[j] == MPI_PROC_NULL) continue;
      Block slot = slots[j];
      void* into = At(recv, slot);
      schedule.Recv(peers[static_cast<std::size_t>(ins[j])], [cross, into, slot](Frame& frame) {
        DeliverFrame(frame, *cross, into, slot.count, slot.type, MPI_STATUS_IGNORE);
      });
    }
    return schedule;
  };
}

// The exchange of a plan of either kind.
template <class Plan>
Plan ExchangeFor(MPI_Comm comm, const void* send, Blocks blocks, void* recv, Blocks slots) {
  if constexpr (std::is_same_v<Plan, CrossPlan>)
    return CrossExchange(comm, send, std::move(blocks), recv, std::move(slots));
  else
    return Exchange(comm, send, std::move(blocks), recv, std::move(slots));
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

template <class Plan>
Plan NeighborPlans<Plan>::Allgather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  NoInPlace(send);
  return ExchangeFor<Plan>(
      comm, send, Layout(OutDegree(comm), nullptr, nullptr, sendcount, sendtype, /*same=*/true),
      recv, Layout(InDegree(comm), nullptr, nullptr, recvcount, recvtype));
}

template <class Plan>
Plan NeighborPlans<Plan>::Allgatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                            MPI_Comm comm) {
  NoInPlace(send);
  return ExchangeFor<Plan>(
      comm, send, Layout(OutDegree(comm), nullptr, nullptr, sendcount, sendtype, /*same=*/true),
      recv, Layout(InDegree(comm), recvcounts, displs, 0, recvtype));
}

template <class Plan>
Plan NeighborPlans<Plan>::Alltoall(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  NoInPlace(send);
  return ExchangeFor<Plan>(comm, send,
                           Layout(OutDegree(comm), nullptr, nullptr, sendcount, sendtype), recv,
                           Layout(InDegree(comm), nullptr, nullptr, recvcount, recvtype));
}

template <class Plan>
Plan NeighborPlans<Plan>::Alltoallv(const void* send, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recv, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  NoInPlace(send);
  return ExchangeFor<Plan>(comm, send, Layout(OutDegree(comm), sendcounts, sdispls, 0, sendtype),
                           recv, Layout(InDegree(comm), recvcounts, rdispls, 0, recvtype));
}

template <class Plan>
Plan NeighborPlans<Plan>::Alltoallw(const void* send, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recv, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm) {
  NoInPlace(send);
  return ExchangeFor<Plan>(comm, send, LayoutW(OutDegree(comm), sendcounts, sdispls, sendtypes),
                           recv, LayoutW(InDegree(comm), recvcounts, rdispls, recvtypes));
}

template struct NeighborPlans<CollectivePlan>;
template struct NeighborPlans<CrossPlan>;

}  // namespace bdmpi
