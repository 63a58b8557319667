// Collectives on intercommunicators as one-round schedules; see nbc_inter.h.
#include "slave/coll/nbc_inter.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "common/error.h"
#include "slave/coll/fold.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// Tags on the hidden communicator's collective twin (coll_p2p.h's tags
// are on other communicators' twins, so they could be reused; distinct
// values make traces readable).
enum InterTag : int {
  kTagInterBcast = 0x5c000001,
  kTagInterReduce,
  kTagInterAllreduce,
  kTagInterGather,
  kTagInterScatter,
  kTagInterAllgather,
  kTagInterAlltoall,
  kTagInterBarrier,
  kTagInterReduceScatter,
};

// The ranks of the hidden communicator: the remote group's j-th rank and
// every remote rank in order.
int Remote(const CommInfo& comm, int j) { return comm.WirePeer(j); }
std::vector<int> RemoteRanks(const CommInfo& comm) {
  std::vector<int> ranks;
  for (int j = 0; j < comm.PeerGroupSize(); ++j) ranks.push_back(Remote(comm, j));
  return ranks;
}

// Which side of a rooted collective this rank is on.
enum class Side { kRoot, kIdle, kOther };

Side SideOf(int root, const CommInfo& comm) {
  if (root == MPI_ROOT) return Side::kRoot;
  if (root == MPI_PROC_NULL) return Side::kIdle;
  if (root < 0 || root >= comm.PeerGroupSize())
    throw Error(kErrRoot, "root " + std::to_string(root) +
                              " is none of MPI_ROOT, MPI_PROC_NULL or a rank of the remote group");
  return Side::kOther;
}

void RefuseInPlace(const void* buffer) {
  if (buffer == MPI_IN_PLACE)
    throw Error(kErrBuffer, "MPI_IN_PLACE is not valid on an intercommunicator");
}

std::function<void(const std::vector<std::byte>&)> WriteTo(void* recv, int count,
                                                            MPI_Datatype datatype) {
  std::shared_ptr<const TypeInfo> layout = ScatteredLayout(datatype);
  return [=](const std::vector<std::byte>& result) {
    WriteWire(result, recv, count, layout.get());
  };
}

}  // namespace

CollectivePlan InterBarrierPlan(const CommInfo& comm) {
  return [=]() {
    Schedule schedule(comm);
    // A group may leave once the whole other group has entered.
    for (int r : RemoteRanks(comm)) schedule.SendBytes(r, kTagInterBarrier, nullptr, 0);
    for (int r : RemoteRanks(comm))
      schedule.Recv(r, kTagInterBarrier, 0, [](const ReplyMsg& reply) {
        Runtime::Instance()->FetchPayload(reply, nullptr, 0);
      });
    return schedule;
  };
}

CollectivePlan InterBcastPlan(void* buffer, int count, MPI_Datatype datatype, int root,
                              const CommInfo& comm) {
  WireBytes(count, datatype);
  Side side = SideOf(root, comm);
  return [=]() {
    Schedule schedule(comm);
    if (side == Side::kRoot) {
      WireData wire = ToWire(buffer, count, datatype);
      for (int r : RemoteRanks(comm)) schedule.SendBytes(r, kTagInterBcast, wire.data, wire.bytes);
    } else if (side == Side::kOther) {
      schedule.RecvElements(Remote(comm, root), kTagInterBcast, buffer, count, datatype);
    }
    return schedule;
  };
}

CollectivePlan InterGatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                               Blocks blocks, int root, const CommInfo& comm) {
  Side side = SideOf(root, comm);
  if (side == Side::kOther) {
    RefuseInPlace(send);
    WireBytes(sendcount, sendtype);
  }
  return [=]() {
    Schedule schedule(comm);
    if (side == Side::kRoot) {
      for (int j = 0; j < comm.PeerGroupSize(); ++j) {
        const Block& block = blocks[static_cast<std::size_t>(j)];
        schedule.RecvElements(Remote(comm, j), kTagInterGather, At(recv, block), block.count,
                              block.type);
      }
    } else if (side == Side::kOther) {
      schedule.SendElements(Remote(comm, root), kTagInterGather, send, sendcount, sendtype);
    }
    return schedule;
  };
}

CollectivePlan InterScatterPlan(const void* send, Blocks blocks, void* recv, int recvcount,
                                MPI_Datatype recvtype, int root, const CommInfo& comm) {
  Side side = SideOf(root, comm);
  if (side == Side::kOther) {
    RefuseInPlace(recv);
    WireBytes(recvcount, recvtype);
  }
  return [=]() {
    Schedule schedule(comm);
    if (side == Side::kRoot) {
      for (int j = 0; j < comm.PeerGroupSize(); ++j) {
        const Block& block = blocks[static_cast<std::size_t>(j)];
        schedule.SendElements(Remote(comm, j), kTagInterScatter, At(send, block), block.count,
                              block.type);
      }
    } else if (side == Side::kOther) {
      schedule.RecvElements(Remote(comm, root), kTagInterScatter, recv, recvcount, recvtype);
    }
    return schedule;
  };
}

CollectivePlan InterAllgatherPlan(const void* send, int sendcount, MPI_Datatype sendtype,
                                  void* recv, Blocks blocks, const CommInfo& comm) {
  RefuseInPlace(send);
  WireBytes(sendcount, sendtype);
  return [=]() {
    Schedule schedule(comm);
    WireData wire = ToWire(send, sendcount, sendtype);
    for (int r : RemoteRanks(comm)) schedule.SendBytes(r, kTagInterAllgather, wire.data, wire.bytes);
    for (int j = 0; j < comm.PeerGroupSize(); ++j) {
      const Block& block = blocks[static_cast<std::size_t>(j)];
      schedule.RecvElements(Remote(comm, j), kTagInterAllgather, At(recv, block), block.count,
                            block.type);
    }
    return schedule;
  };
}

CollectivePlan InterAlltoallPlan(const void* send, Blocks sblocks, void* recv, Blocks rblocks,
                                 const CommInfo& comm) {
  RefuseInPlace(send);
  return [=]() {
    Schedule schedule(comm);
    for (int j = 0; j < comm.PeerGroupSize(); ++j) {
      const Block& block = sblocks[static_cast<std::size_t>(j)];
      schedule.SendElements(Remote(comm, j), kTagInterAlltoall, At(send, block), block.count,
                            block.type);
    }
    for (int j = 0; j < comm.PeerGroupSize(); ++j) {
      const Block& block = rblocks[static_cast<std::size_t>(j)];
      schedule.RecvElements(Remote(comm, j), kTagInterAlltoall, At(recv, block), block.count,
                            block.type);
    }
    return schedule;
  };
}

CollectivePlan InterReducePlan(const void* send, void* recv, int count, MPI_Datatype datatype,
                               MPI_Op op, int root, const CommInfo& comm) {
  Side side = SideOf(root, comm);
  // An idle rank's buffers, type and operation are not significant (mpi4py
  // passes MPI_SUM on MPI_BYTE there, as Open MPI accepts).
  if (side == Side::kIdle) return [=]() { return Schedule(comm); };
  WireBytes(count, datatype);
  CheckedOp checked = CheckOp(op, datatype);
  if (side == Side::kOther) RefuseInPlace(send);
  return [=]() {
    Schedule schedule(comm);
    if (side == Side::kRoot) {
      FoldReceived(schedule, kTagInterReduce, RemoteRanks(comm), checked, datatype, count,
                   WriteTo(recv, count, datatype));
    } else if (side == Side::kOther) {
      schedule.SendElements(Remote(comm, root), kTagInterReduce, send, count, datatype);
    }
    return schedule;
  };
}

CollectivePlan InterAllreducePlan(const void* send, void* recv, int count, MPI_Datatype datatype,
                                  MPI_Op op, const CommInfo& comm) {
  WireBytes(count, datatype);
  CheckedOp checked = CheckOp(op, datatype);
  RefuseInPlace(send);
  return [=]() {
    Schedule schedule(comm);
    WireData wire = ToWire(send, count, datatype);
    for (int r : RemoteRanks(comm)) schedule.SendBytes(r, kTagInterAllreduce, wire.data, wire.bytes);
    FoldReceived(schedule, kTagInterAllreduce, RemoteRanks(comm), checked, datatype, count,
                 WriteTo(recv, count, datatype));
    return schedule;
  };
}

CollectivePlan InterReduceScatterPlan(const void* send, void* recv, std::vector<int> counts,
                                      MPI_Datatype datatype, MPI_Op op, const CommInfo& comm) {
  CheckedOp checked = CheckOp(op, datatype);
  RefuseInPlace(send);
  std::int64_t total = 0, before = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    WireBytes(counts[i], datatype);
    if (static_cast<int>(i) < comm.rank) before += counts[i];
    total += counts[i];
  }
  if (total > std::numeric_limits<int>::max())
    throw Error(kErrCount, "the counts add up to more than an int");
  int mine = counts[static_cast<std::size_t>(comm.rank)];
  std::uint64_t element = WireBytes(1, datatype);
  std::shared_ptr<const TypeInfo> layout = ScatteredLayout(datatype);
  return [=]() {
    Schedule schedule(comm);
    int n = static_cast<int>(total);
    WireData wire = ToWire(send, n, datatype);
    for (int r : RemoteRanks(comm))
      schedule.SendBytes(r, kTagInterReduceScatter, wire.data, wire.bytes);
    FoldReceived(schedule, kTagInterReduceScatter, RemoteRanks(comm), checked, datatype, n,
                 [=](const std::vector<std::byte>& result) {
                   auto first = result.begin() + static_cast<std::ptrdiff_t>(before * element);
                   std::vector<std::byte> block(
                       first, first + static_cast<std::ptrdiff_t>(mine * element));
                   WriteWire(block, recv, mine, layout.get());
                 });
    return schedule;
  };
}

}  // namespace bdmpi
