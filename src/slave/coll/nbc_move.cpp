// The data-moving collectives as one-round schedules (nbc.h): barrier,
// bcast, gather, scatter, allgather and alltoall with their v and w forms.
// Every block travels as wire bytes, so datatypes with gaps work as in
// point-to-point.
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/nbc_blocks.h"
#include "slave/coll/nbc_inter.h"
#include "slave/coll/nbc_plans.h"
#include "slave/datatype/large_count.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void CheckRoot(const CommInfo& comm, int root);  // bcast.cpp

namespace {

std::int64_t Extent(MPI_Datatype type) {
  return static_cast<std::int64_t>(LookupType(type).extent);
}

// The blocks of a non-v call: `count` elements each, one after the other.
Blocks Regular(int n, int count, MPI_Datatype type) {
  WireBytes(count, type);
  Blocks blocks;
  for (int i = 0; i < n; ++i)
    blocks.push_back(Block{count, static_cast<std::int64_t>(i) * count * Extent(type), type});
  return blocks;
}

void RequireArrays(int n, const void* counts, const void* displs) {
  if (n > 0 && counts == nullptr) throw Error(kErrCount, "no counts given");
  if (n > 0 && displs == nullptr) throw Error(kErrArg, "no displacements given");
}

// One rank's block: a count beyond INT_MAX travels as one element of a
// counted type.
Block BlockOf(std::int64_t count, std::int64_t offset, MPI_Datatype type) {
  WireBytes(count, type);
  if (count > INT_MAX) return Block{1, offset, CountedType(count, type)};
  return Block{static_cast<int>(count), offset, type};
}

// A v-call's blocks: displacements in extents of the type.
template <class Count, class Disp>
Blocks Given(int n, const Count counts[], const Disp displs[], MPI_Datatype type) {
  RequireArrays(n, counts, displs);
  Blocks blocks;
  for (int i = 0; i < n; ++i)
    blocks.push_back(BlockOf(counts[i], static_cast<std::int64_t>(displs[i]) * Extent(type), type));
  return blocks;
}

// A w-call's blocks: displacements in bytes, a type for each.
template <class Count, class Disp>
Blocks GivenW(int n, const Count counts[], const Disp displs[], const MPI_Datatype types[]) {
  RequireArrays(n, counts, displs);
  if (n > 0 && types == nullptr) throw Error(kErrType, "no datatypes given");
  Blocks blocks;
  for (int i = 0; i < n; ++i) blocks.push_back(BlockOf(counts[i], displs[i], types[i]));
  return blocks;
}

// Copies this rank's own contribution into its block of the result.
void LocalCopy(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
               const Block& block) {
  WireData wire = ToWire(send, sendcount, sendtype);
  if (wire.bytes > WireBytes(block.count, block.type))
    throw Error(kErrTruncate, "this rank's own block is longer than its receive block");
  const TypeInfo& type = LookupType(block.type);
  if (type.Dense()) {
    if (wire.bytes > 0 && recv != wire.data) std::memmove(recv, wire.data, wire.bytes);
  } else {
    UnpackElements(static_cast<const std::byte*>(wire.data), wire.bytes, recv, block.count, type);
  }
}

void RefuseInPlace(const void* buffer, const char* what) {
  if (buffer == MPI_IN_PLACE) throw Error(kErrBuffer, what);
}

// Gather and gatherv: `blocks` (the root's) say where each rank's data goes.
CollectivePlan GatherBlocks(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                            Blocks blocks, int root, const CommInfo& comm) {
  CheckRoot(comm, root);
  if (comm.rank != root) RefuseInPlace(send, "MPI_IN_PLACE is only valid at the root");
  if (send != MPI_IN_PLACE) WireBytes(sendcount, sendtype);
  return [=]() {
    Schedule schedule(comm);
    if (comm.rank != root) {
      schedule.LendElements(root, kTagGather, send, sendcount, sendtype);
      return schedule;
    }
    for (int r = 0; r < comm.size; ++r) {
      const Block& block = blocks[static_cast<std::size_t>(r)];
      if (r != root) {
        schedule.RecvElements(r, kTagGather, At(recv, block), block.count, block.type);
      } else if (send != MPI_IN_PLACE) {
        LocalCopy(send, sendcount, sendtype, At(recv, block), block);
      }
    }
    return schedule;
  };
}

CollectivePlan ScatterBlocks(const void* send, Blocks blocks, void* recv, int recvcount,
                             MPI_Datatype recvtype, int root, const CommInfo& comm) {
  CheckRoot(comm, root);
  if (comm.rank != root) RefuseInPlace(recv, "MPI_IN_PLACE is only valid at the root");
  if (recv != MPI_IN_PLACE) WireBytes(recvcount, recvtype);
  return [=]() {
    Schedule schedule(comm);
    if (comm.rank != root) {
      schedule.RecvElements(root, kTagScatter, recv, recvcount, recvtype);
      return schedule;
    }
    for (int r = 0; r < comm.size; ++r) {
      const Block& block = blocks[static_cast<std::size_t>(r)];
      if (r != root) {
        schedule.LendElements(r, kTagScatter, At(send, block), block.count, block.type);
      } else if (recv != MPI_IN_PLACE) {
        LocalCopy(At(send, block), block.count, block.type, recv, Block{recvcount, 0, recvtype});
      }
    }
    return schedule;
  };
}

CollectivePlan AllgatherBlocks(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                               Blocks blocks, const CommInfo& comm) {
  if (send != MPI_IN_PLACE) WireBytes(sendcount, sendtype);
  return [=]() {
    Schedule schedule(comm);
    const Block& mine = blocks[static_cast<std::size_t>(comm.rank)];
    WireData wire = send == MPI_IN_PLACE ? ToWire(At(recv, mine), mine.count, mine.type)
                                         : ToWire(send, sendcount, sendtype);
    for (int r = 0; r < comm.size; ++r) {
      if (r != comm.rank) schedule.LendWire(r, kTagAllgather, wire);
    }
    if (send != MPI_IN_PLACE) LocalCopy(send, sendcount, sendtype, At(recv, mine), mine);
    for (int r = 0; r < comm.size; ++r) {
      const Block& block = blocks[static_cast<std::size_t>(r)];
      if (r != comm.rank)
        schedule.RecvElements(r, kTagAllgather, At(recv, block), block.count, block.type);
    }
    return schedule;
  };
}

// Alltoall in all its forms; in place (send == MPI_IN_PLACE) the blocks
// sent are the receive blocks, copied when the operation starts.
// An empty block travels nowhere: a receive of no bytes matches only a
// send of no bytes (the pair's type signatures are equal), so both sides
// skip it. A sparse MPI_Alltoallv then costs only its non-empty messages,
// and a 0-byte MPI_Alltoall no message at all (IMB's took 122 us on 4 ranks).
bool Empty(const Block& block) { return WireBytes(block.count, block.type) == 0; }

CollectivePlan AlltoallBlocks(const void* send, Blocks sblocks, void* recv, Blocks rblocks,
                              const CommInfo& comm) {
  return [=]() {
    Schedule schedule(comm);
    bool in_place = send == MPI_IN_PLACE;
    const void* source = in_place ? recv : send;
    const Blocks& from = in_place ? rblocks : sblocks;
    for (int r = 0; r < comm.size; ++r) {
      const Block& block = from[static_cast<std::size_t>(r)];
      if (r == comm.rank || Empty(block)) continue;
      // In place, the receives overwrite the blocks sent: those are copied.
      if (in_place) {
        schedule.SendElements(r, kTagAlltoall, At(source, block), block.count, block.type);
      } else {
        schedule.LendElements(r, kTagAlltoall, At(source, block), block.count, block.type);
      }
    }
    std::size_t me = static_cast<std::size_t>(comm.rank);
    if (!in_place)
      LocalCopy(At(send, sblocks[me]), sblocks[me].count, sblocks[me].type, At(recv, rblocks[me]),
                rblocks[me]);
    for (int r = 0; r < comm.size; ++r) {
      const Block& block = rblocks[static_cast<std::size_t>(r)];
      if (r != comm.rank && !Empty(block))
        schedule.RecvElements(r, kTagAlltoall, At(recv, block), block.count, block.type);
    }
    return schedule;
  };
}

const CommInfo& Checked(MPI_Comm comm) {
  RequireInitialized();
  return LookupComm(comm);
}

// The root's blocks of an intercommunicator's gather or scatter, one for
// each remote rank; none elsewhere.
template <typename MakeBlocks>
Blocks RootsBlocks(const CommInfo& comm, int root, MakeBlocks make) {
  return root == MPI_ROOT ? make(comm.PeerGroupSize()) : Blocks{};
}

CollectivePlan AlltoallFor(const void* send, Blocks sblocks, void* recv, Blocks rblocks,
                           const CommInfo& comm) {
  if (comm.inter) return InterAlltoallPlan(send, sblocks, recv, rblocks, comm);
  return AlltoallBlocks(send, sblocks, recv, rblocks, comm);
}

}  // namespace

CollectivePlan BarrierPlan(MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  if (comm.inter) return InterBarrierPlan(comm);
  // Its empty messages between ranks of a node go without the master:
  // AML's MPI_Ibarrier and MPI_Test loop, once per BFS level of Graph500,
  // took 50 us through the master on 2 ranks of 2 cores, Open MPI's 0.7.
  return [=]() {
    Schedule schedule(comm);
    for (int r = 0; r < comm.size; ++r) {
      if (r != comm.rank) schedule.SendEmpty(r, kTagBarrier);
    }
    for (int r = 0; r < comm.size; ++r) {
      if (r != comm.rank) schedule.RecvEmpty(r, kTagBarrier);
    }
    return schedule;
  };
}

CollectivePlan BcastPlan(void* buffer, int count, MPI_Datatype datatype, int root,
                         MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  if (comm.inter) return InterBcastPlan(buffer, count, datatype, root, comm);
  WireBytes(count, datatype);
  CheckRoot(comm, root);
  return [=]() {
    Schedule schedule(comm);
    if (comm.rank != root) {
      schedule.RecvElements(root, kTagBcast, buffer, count, datatype);
      return schedule;
    }
    WireData wire = ToWire(buffer, count, datatype);
    for (int r = 0; r < comm.size; ++r) {
      if (r != root) schedule.SendBytes(r, kTagBcast, wire.data, wire.bytes);
    }
    return schedule;
  };
}

CollectivePlan GatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  if (comm.inter)
    return InterGatherPlan(send, sendcount, sendtype, recv,
                           RootsBlocks(comm, root, [&](int n) {
                             return Regular(n, recvcount, recvtype);
                           }),
                           root, comm);
  CheckRoot(comm, root);
  Blocks blocks;
  if (comm.rank == root) blocks = Regular(comm.size, recvcount, recvtype);
  return GatherBlocks(send, sendcount, sendtype, recv, blocks, root, comm);
}

template <class Count, class Disp>
CollectivePlan GathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           const Count recvcounts[], const Disp displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  if (comm.inter)
    return InterGatherPlan(send, sendcount, sendtype, recv,
                           RootsBlocks(comm, root, [&](int n) {
                             return Given(n, recvcounts, displs, recvtype);
                           }),
                           root, comm);
  CheckRoot(comm, root);
  Blocks blocks;
  if (comm.rank == root) blocks = Given(comm.size, recvcounts, displs, recvtype);
  return GatherBlocks(send, sendcount, sendtype, recv, blocks, root, comm);
}

CollectivePlan ScatterPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  if (comm.inter)
    return InterScatterPlan(send,
                            RootsBlocks(comm, root, [&](int n) {
                              return Regular(n, sendcount, sendtype);
                            }),
                            recv, recvcount, recvtype, root, comm);
  CheckRoot(comm, root);
  Blocks blocks;
  if (comm.rank == root) blocks = Regular(comm.size, sendcount, sendtype);
  return ScatterBlocks(send, blocks, recv, recvcount, recvtype, root, comm);
}

template <class Count, class Disp>
CollectivePlan ScattervPlan(const void* send, const Count sendcounts[], const Disp displs[],
                            MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype,
                            int root, MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  if (comm.inter)
    return InterScatterPlan(send,
                            RootsBlocks(comm, root, [&](int n) {
                              return Given(n, sendcounts, displs, sendtype);
                            }),
                            recv, recvcount, recvtype, root, comm);
  CheckRoot(comm, root);
  Blocks blocks;
  if (comm.rank == root) blocks = Given(comm.size, sendcounts, displs, sendtype);
  return ScatterBlocks(send, blocks, recv, recvcount, recvtype, root, comm);
}

CollectivePlan AllgatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  Blocks blocks = Regular(comm.PeerGroupSize(), recvcount, recvtype);
  if (comm.inter) return InterAllgatherPlan(send, sendcount, sendtype, recv, blocks, comm);
  return AllgatherBlocks(send, sendcount, sendtype, recv, blocks, comm);
}

template <class Count, class Disp>
CollectivePlan AllgathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                              const Count recvcounts[], const Disp displs[], MPI_Datatype recvtype,
                              MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  Blocks blocks = Given(comm.PeerGroupSize(), recvcounts, displs, recvtype);
  if (comm.inter) return InterAllgatherPlan(send, sendcount, sendtype, recv, blocks, comm);
  return AllgatherBlocks(send, sendcount, sendtype, recv, blocks, comm);
}

CollectivePlan AlltoallPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  int n = comm.PeerGroupSize();
  Blocks sblocks;
  if (send != MPI_IN_PLACE) sblocks = Regular(n, sendcount, sendtype);
  return AlltoallFor(send, sblocks, recv, Regular(n, recvcount, recvtype), comm);
}

template <class Count, class Disp>
CollectivePlan AlltoallvPlan(const void* send, const Count sendcounts[], const Disp sdispls[],
                             MPI_Datatype sendtype, void* recv, const Count recvcounts[],
                             const Disp rdispls[], MPI_Datatype recvtype, MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  int n = comm.PeerGroupSize();
  Blocks sblocks;
  if (send != MPI_IN_PLACE) sblocks = Given(n, sendcounts, sdispls, sendtype);
  return AlltoallFor(send, sblocks, recv, Given(n, recvcounts, rdispls, recvtype), comm);
}

template <class Count, class Disp>
CollectivePlan AlltoallwPlan(const void* send, const Count sendcounts[], const Disp sdispls[],
                             const MPI_Datatype sendtypes[], void* recv, const Count recvcounts[],
                             const Disp rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm_handle) {
  const CommInfo& comm = Checked(comm_handle);
  int n = comm.PeerGroupSize();
  Blocks sblocks;
  if (send != MPI_IN_PLACE) sblocks = GivenW(n, sendcounts, sdispls, sendtypes);
  return AlltoallFor(send, sblocks, recv, GivenW(n, recvcounts, rdispls, recvtypes), comm);
}

// The int and the large-count (_c) forms.
#define BDMPI_V_PLANS(Count, Disp)                                                           \
  template CollectivePlan GathervPlan(const void*, int, MPI_Datatype, void*, const Count[],   \
                                      const Disp[], MPI_Datatype, int, MPI_Comm);             \
  template CollectivePlan ScattervPlan(const void*, const Count[], const Disp[], MPI_Datatype, \
                                       void*, int, MPI_Datatype, int, MPI_Comm);              \
  template CollectivePlan AllgathervPlan(const void*, int, MPI_Datatype, void*, const Count[], \
                                         const Disp[], MPI_Datatype, MPI_Comm);               \
  template CollectivePlan AlltoallvPlan(const void*, const Count[], const Disp[], MPI_Datatype, \
                                        void*, const Count[], const Disp[], MPI_Datatype,     \
                                        MPI_Comm);                                            \
  template CollectivePlan AlltoallwPlan(const void*, const Count[], const Disp[],             \
                                        const MPI_Datatype[], void*, const Count[],           \
                                        const Disp[], const MPI_Datatype[], MPI_Comm);
BDMPI_V_PLANS(int, int)
BDMPI_V_PLANS(MPI_Count, MPI_Aint)
#undef BDMPI_V_PLANS

}  // namespace bdmpi
