// Collectives built from point-to-point messages on the communicator's
// collective twin; see coll_p2p.h.
#include "slave/coll/coll_p2p.h"

#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/coll/collectives.h"
#include "slave/coll/engine.h"
#include "slave/coll/nbc_plans.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/intercomm.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

RequestMsg CollRequest(MsgType type, std::int32_t twin, int rank, int peer, int tag) {
  RequestMsg request;
  request.type = type;
  request.comm = twin;
  request.rank = rank;
  request.peer = peer;
  request.tag = tag;
  return request;
}

void CollSend(const CommInfo& comm, int dest, int tag, const void* data, std::uint64_t bytes) {
  RequireIntracomm(comm);
  Runtime* runtime = Runtime::Instance();
  RequestMsg request =
      CollRequest(MsgType::kSend, CollectiveCommId(comm.id), comm.rank, dest, tag);
  runtime->SendMessage(data, bytes, request, SendKind::kCollective, comm.WorldRank(dest));
}

void CollRecv(const CommInfo& comm, int source, int tag, void* data, std::uint64_t capacity) {
  RequireIntracomm(comm);
  Runtime* runtime = Runtime::Instance();
  RequestMsg request =
      CollRequest(MsgType::kPostRecv, CollectiveCommId(comm.id), comm.rank, source, tag);
  request.bytes = capacity;
  request.id = runtime->NewRecvId();
  ReplyMsg reply = runtime->Call(request);
  runtime->FetchPayload(reply, data, capacity);
  if (reply.error != MPI_SUCCESS)
    throw Error(reply.error, "rank " + std::to_string(source) +
                                 " contributes more data than the receive count holds");
}

// The blocking forms run the schedules of nbc_move.cpp / nbc_reduce.cpp
// (nbc_inter.cpp on intercommunicators).
void Gather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (const CommInfo* cross = CrossJob(comm)) {
    CrossEvenBlocks blocks = EvenBlocksOf(*cross, recvcount);
    return CrossGatherv(*cross, send, sendcount, sendtype, recv, blocks.counts.data(),
                        blocks.displs.data(), recvtype, root);
  }
  RunBlocking(GatherPlan(send, sendcount, sendtype, recv, recvcount, recvtype, root, comm));
}

void Gatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm) {
  if (const CommInfo* cross = CrossJob(comm))
    return CrossGatherv(*cross, send, sendcount, sendtype, recv, recvcounts, displs, recvtype,
                        root);
  RunBlocking(
      GathervPlan(send, sendcount, sendtype, recv, recvcounts, displs, recvtype, root, comm));
}

void Scatter(const void* send, int sendcount, MPI_Datatype sendtype, void* recv, int recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (const CommInfo* cross = CrossJob(comm)) {
    CrossEvenBlocks blocks = EvenBlocksOf(*cross, sendcount);
    return CrossScatterv(*cross, send, blocks.counts.data(), blocks.displs.data(), sendtype, recv,
                         recvcount, recvtype, root);
  }
  RunBlocking(ScatterPlan(send, sendcount, sendtype, recv, recvcount, recvtype, root, comm));
}

void Scatterv(const void* send, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
              void* recv, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (const CommInfo* cross = CrossJob(comm))
    return CrossScatterv(*cross, send, sendcounts, displs, sendtype, recv, recvcount, recvtype,
                         root);
  RunBlocking(
      ScattervPlan(send, sendcounts, displs, sendtype, recv, recvcount, recvtype, root, comm));
}

void Allgather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv, int recvcount,
               MPI_Datatype recvtype, MPI_Comm comm) {
  if (const CommInfo* cross = CrossJob(comm)) {
    CrossEvenBlocks blocks = EvenBlocksOf(*cross, recvcount);
    return CrossAllgatherv(*cross, send, sendcount, sendtype, recv, blocks.counts.data(),
                           blocks.displs.data(), recvtype);
  }
  RunBlocking(AllgatherPlan(send, sendcount, sendtype, recv, recvcount, recvtype, comm));
}

void Allgatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (const CommInfo* cross = CrossJob(comm))
    return CrossAllgatherv(*cross, send, sendcount, sendtype, recv, recvcounts, displs, recvtype);
  RunBlocking(AllgathervPlan(send, sendcount, sendtype, recv, recvcounts, displs, recvtype, comm));
}

void Alltoall(const void* send, int sendcount, MPI_Datatype sendtype, void* recv, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm) {
  if (const CommInfo* cross = CrossJob(comm)) {
    CrossEvenBlocks sent = EvenBlocksOf(*cross, sendcount);
    CrossEvenBlocks received = EvenBlocksOf(*cross, recvcount);
    return CrossAlltoallv(*cross, send, sent.counts.data(), sent.displs.data(), sendtype, recv,
                          received.counts.data(), received.displs.data(), recvtype);
  }
  RunBlocking(AlltoallPlan(send, sendcount, sendtype, recv, recvcount, recvtype, comm));
}

void Alltoallv(const void* send, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
               void* recv, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
               MPI_Comm comm) {
  if (const CommInfo* cross = CrossJob(comm))
    return CrossAlltoallv(*cross, send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls,
                          recvtype);
  RunBlocking(AlltoallvPlan(send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls,
                            recvtype, comm));
}

void Alltoallw(const void *send, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void *recv,
               const int recvcounts[], const int rdispls[],
               const MPI_Datatype recvtypes[], MPI_Comm comm) {
  RunBlocking(AlltoallwPlan(send, sendcounts, sdispls, sendtypes, recv,
                            recvcounts, rdispls, recvtypes, comm));
}

// Blocking scan and exscan: a chain in rank order (n - 1 messages, where
// the one-round ScanPlan that MPI_Iscan needs sends n(n-1)/2). Rank r
// receives the prefix x_0 op ... op x_{r-1} from r - 1, combines its own
// x_r after it and passes the result on to r + 1. Data travels and is
// folded as wire bytes (ApplyOpWire), so any datatype works.
namespace {

// Where the result goes: unpacked when the type has gaps.
const TypeInfo* Scattered(MPI_Datatype datatype) {
  const TypeInfo& type = LookupType(datatype);
  return type.Dense() ? nullptr : &type;
}

void ScanImpl(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm_handle, bool exclusive) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t bytes = WireBytes(count, datatype);
  CheckedOp checked = CheckOp(op, datatype);
  int tag = exclusive ? kTagExscan : kTagScan;
  // x_r, then the prefix through r.
  std::vector<std::byte> mine = WireCopy(send == MPI_IN_PLACE ? recv : send, count, datatype);
  std::vector<std::byte> before(bytes);  // the prefix of the lower ranks
  if (comm.rank > 0) {
    CollRecv(comm, comm.rank - 1, tag, before.data(), bytes);
    ApplyOpWire(checked, datatype, before.data(), mine.data(), count);
  }
  if (comm.rank + 1 < comm.size) CollSend(comm, comm.rank + 1, tag, mine.data(), bytes);
  if (!exclusive) {
    WriteWire(mine, recv, count, Scattered(datatype));
  } else if (comm.rank > 0) {
    WriteWire(before, recv, count, Scattered(datatype));
  }
}

}  // namespace

void Scan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
          MPI_Comm comm) {
  RequireInitialized();
  if (const CommInfo* cross = CrossJob(comm))
    return CrossScan(*cross, send, recv, count, datatype, op, /*exclusive=*/false);
  if (SelectEngine(CollKind::kScan, LookupComm(comm)).engine == CollEngine::kSchedule)
    return RunBlocking(ScanPlan(send, recv, count, datatype, op, comm));
  ScanImpl(send, recv, count, datatype, op, comm, /*exclusive=*/false);
}

void Exscan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm) {
  RequireInitialized();
  if (const CommInfo* cross = CrossJob(comm))
    return CrossScan(*cross, send, recv, count, datatype, op, /*exclusive=*/true);
  if (SelectEngine(CollKind::kExscan, LookupComm(comm)).engine == CollEngine::kSchedule)
    return RunBlocking(ExscanPlan(send, recv, count, datatype, op, comm));
  ScanImpl(send, recv, count, datatype, op, comm, /*exclusive=*/true);
}

void ReduceScatterBlock(const void* send, void* recv, int recvcount, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm) {
  RunBlocking(ReduceScatterBlockPlan(send, recv, recvcount, datatype, op, comm));
}

void ReduceScatter(const void* send, void* recv, const int recvcounts[], MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm) {
  RunBlocking(ReduceScatterPlan(send, recv, recvcounts, datatype, op, comm));
}

}  // namespace bdmpi
