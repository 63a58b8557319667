// Collectives built from point-to-point messages on the communicator's
// collective twin; see coll_p2p.h.
#include "slave/coll_p2p.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/collectives.h"
#include "slave/errors.h"
#include "slave/intercomm.h"
#include "slave/intercomm_coll.h"
#include "slave/runtime.h"

namespace bdmpi {

void CheckRoot(const CommInfo& comm, int root);  // bcast.cpp

void CollSend(const CommInfo& comm, int dest, int tag, const void* data, std::uint64_t bytes) {
  RequireIntracomm(comm);
  Runtime* runtime = Runtime::Instance();
  RequestMsg request;
  request.type = MsgType::kSend;
  request.comm = CollectiveCommId(comm.id);
  request.rank = comm.rank;
  request.peer = dest;
  request.tag = tag;
  runtime->StagePayload(data, bytes, request);
  runtime->PostStaged(request);
}

void CollRecv(const CommInfo& comm, int source, int tag, void* data, std::uint64_t capacity) {
  RequireIntracomm(comm);
  Runtime* runtime = Runtime::Instance();
  RequestMsg request;
  request.type = MsgType::kPostRecv;
  request.comm = CollectiveCommId(comm.id);
  request.rank = comm.rank;
  request.peer = source;
  request.tag = tag;
  request.bytes = capacity;
  request.id = runtime->NewRecvId();
  ReplyMsg reply = runtime->Call(request);
  runtime->FetchPayload(reply, data, capacity);
  if (reply.error != MPI_SUCCESS)
    throw Error(reply.error, "rank " + std::to_string(source) +
                                 " contributes more data than the receive count holds");
}

namespace {

// Where block i of a buffer starts: displs in extents of the type.
std::byte* At(void* buffer, std::int64_t displ, const TypeInfo& type) {
  return static_cast<std::byte*>(buffer) + displ * static_cast<std::int64_t>(type.extent);
}
const std::byte* At(const void* buffer, std::int64_t displ, const TypeInfo& type) {
  return static_cast<const std::byte*>(buffer) + displ * static_cast<std::int64_t>(type.extent);
}

void Copy(void* to, const void* from, std::uint64_t bytes) {
  if (bytes > 0 && to != from) std::memmove(to, from, bytes);
}

void CheckCounts(const int counts[], int n, MPI_Datatype type) {
  if (n > 0 && counts == nullptr) throw Error(kErrCount, "no counts given");
  for (int i = 0; i < n; ++i) BufferBytes(counts[i], type);
}

// The block layout of a v-call: counts[i] elements at displs[i] (or the
// regular layout of a non-v call).
struct Layout {
  std::vector<int> counts, displs;
};

Layout Regular(int n, int count) {
  Layout layout;
  for (int i = 0; i < n; ++i) {
    layout.counts.push_back(count);
    layout.displs.push_back(i * count);
  }
  return layout;
}

Layout Given(int n, const int counts[], const int displs[], MPI_Datatype type) {
  CheckCounts(counts, n, type);
  if (n > 0 && displs == nullptr) throw Error(kErrArg, "no displacements given");
  return Layout{std::vector<int>(counts, counts + n), std::vector<int>(displs, displs + n)};
}

void GatherImpl(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                const Layout* layout, MPI_Datatype recvtype, int root, const CommInfo& comm) {
  CheckRoot(comm, root);
  if (comm.rank != root) {
    if (send == MPI_IN_PLACE) throw Error(kErrBuffer, "MPI_IN_PLACE is only valid at the root");
    CollSend(comm, root, kTagGather, send, BufferBytes(sendcount, sendtype));
    return;
  }
  const TypeInfo& rtype = LookupType(recvtype);
  std::size_t me = static_cast<std::size_t>(root);
  if (send != MPI_IN_PLACE) {
    std::uint64_t bytes = BufferBytes(sendcount, sendtype);
    std::uint64_t capacity = BufferBytes(layout->counts[me], recvtype);
    if (bytes > capacity) throw Error(kErrTruncate, "the root's own block is too long");
    Copy(At(recv, layout->displs[me], rtype), send, bytes);
  }
  for (int r = 0; r < comm.size; ++r) {
    if (r == root) continue;
    std::size_t i = static_cast<std::size_t>(r);
    CollRecv(comm, r, kTagGather, At(recv, layout->displs[i], rtype),
             BufferBytes(layout->counts[i], recvtype));
  }
}

void ScatterImpl(const void* send, const Layout* layout, MPI_Datatype sendtype, void* recv,
                 int recvcount, MPI_Datatype recvtype, int root, const CommInfo& comm) {
  CheckRoot(comm, root);
  if (comm.rank != root) {
    if (recv == MPI_IN_PLACE) throw Error(kErrBuffer, "MPI_IN_PLACE is only valid at the root");
    CollRecv(comm, root, kTagScatter, recv, BufferBytes(recvcount, recvtype));
    return;
  }
  const TypeInfo& stype = LookupType(sendtype);
  for (int r = 0; r < comm.size; ++r) {
    std::size_t i = static_cast<std::size_t>(r);
    std::uint64_t bytes = BufferBytes(layout->counts[i], sendtype);
    if (r == root) {
      if (recv == MPI_IN_PLACE) continue;
      if (bytes > BufferBytes(recvcount, recvtype))
        throw Error(kErrTruncate, "the root's own block is too long");
      Copy(recv, At(send, layout->displs[i], stype), bytes);
    } else {
      CollSend(comm, r, kTagScatter, At(send, layout->displs[i], stype), bytes);
    }
  }
}

void AllgatherImpl(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                   const Layout& layout, MPI_Datatype recvtype, const CommInfo& comm) {
  const TypeInfo& rtype = LookupType(recvtype);
  std::size_t me = static_cast<std::size_t>(comm.rank);
  std::uint64_t capacity = BufferBytes(layout.counts[me], recvtype);
  const void* mine = At(recv, layout.displs[me], rtype);
  std::uint64_t bytes = capacity;
  if (send != MPI_IN_PLACE) {
    bytes = BufferBytes(sendcount, sendtype);
    if (bytes > capacity) throw Error(kErrTruncate, "this rank's own block is too long");
    mine = send;
  }
  for (int r = 0; r < comm.size; ++r) {
    if (r != comm.rank) CollSend(comm, r, kTagAllgather, mine, bytes);
  }
  Copy(At(recv, layout.displs[me], rtype), mine, bytes);
  for (int r = 0; r < comm.size; ++r) {
    if (r == comm.rank) continue;
    std::size_t i = static_cast<std::size_t>(r);
    CollRecv(comm, r, kTagAllgather, At(recv, layout.displs[i], rtype),
             BufferBytes(layout.counts[i], recvtype));
  }
}

void AlltoallImpl(const void* send, const Layout& slayout, MPI_Datatype sendtype, void* recv,
                  const Layout& rlayout, MPI_Datatype recvtype, const CommInfo& comm) {
  const TypeInfo& rtype = LookupType(recvtype);
  bool in_place = send == MPI_IN_PLACE;
  const TypeInfo& stype = in_place ? rtype : LookupType(sendtype);
  const Layout& from = in_place ? rlayout : slayout;
  MPI_Datatype ftype = in_place ? recvtype : sendtype;
  const void* source = in_place ? recv : send;
  std::size_t me = static_cast<std::size_t>(comm.rank);
  // Sends copy their data, so in place the blocks may be overwritten after.
  for (int r = 0; r < comm.size; ++r) {
    if (r == comm.rank) continue;
    std::size_t i = static_cast<std::size_t>(r);
    CollSend(comm, r, kTagAlltoall, At(source, from.displs[i], stype),
             BufferBytes(from.counts[i], ftype));
  }
  if (!in_place) {
    std::uint64_t bytes = BufferBytes(from.counts[me], ftype);
    if (bytes > BufferBytes(rlayout.counts[me], recvtype))
      throw Error(kErrTruncate, "this rank's own block is too long");
    Copy(At(recv, rlayout.displs[me], rtype), At(send, from.displs[me], stype), bytes);
  }
  for (int r = 0; r < comm.size; ++r) {
    if (r == comm.rank) continue;
    std::size_t i = static_cast<std::size_t>(r);
    CollRecv(comm, r, kTagAlltoall, At(recv, rlayout.displs[i], rtype),
             BufferBytes(rlayout.counts[i], recvtype));
  }
}

}  // namespace

void Gather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter)
    return InterGather(send, sendcount, sendtype, recv, nullptr, nullptr, recvcount, recvtype,
                       root, comm);
  CheckRoot(comm, root);
  Layout layout;
  if (comm.rank == root) {
    BufferBytes(recvcount, recvtype);
    layout = Regular(comm.size, recvcount);
  }
  GatherImpl(send, sendcount, sendtype, recv, &layout, recvtype, root, comm);
}

void Gatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter)
    return InterGather(send, sendcount, sendtype, recv, recvcounts, displs, 0, recvtype, root,
                       comm);
  CheckRoot(comm, root);
  Layout layout;
  if (comm.rank == root) layout = Given(comm.size, recvcounts, displs, recvtype);
  GatherImpl(send, sendcount, sendtype, recv, &layout, recvtype, root, comm);
}

void Scatter(const void* send, int sendcount, MPI_Datatype sendtype, void* recv, int recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter)
    return InterScatter(send, nullptr, nullptr, sendcount, sendtype, recv, recvcount, recvtype,
                        root, comm);
  CheckRoot(comm, root);
  Layout layout;
  if (comm.rank == root) {
    BufferBytes(sendcount, sendtype);
    layout = Regular(comm.size, sendcount);
  }
  ScatterImpl(send, &layout, sendtype, recv, recvcount, recvtype, root, comm);
}

void Scatterv(const void* send, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter)
    return InterScatter(send, sendcounts, displs, 0, sendtype, recv, recvcount, recvtype, root,
                        comm);
  CheckRoot(comm, root);
  Layout layout;
  if (comm.rank == root) layout = Given(comm.size, sendcounts, displs, sendtype);
  ScatterImpl(send, &layout, sendtype, recv, recvcount, recvtype, root, comm);
}

void Allgather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter)
    return InterAllgather(send, sendcount, sendtype, recv, nullptr, nullptr, recvcount, recvtype,
                          comm);
  BufferBytes(recvcount, recvtype);
  AllgatherImpl(send, sendcount, sendtype, recv, Regular(comm.size, recvcount), recvtype,
                comm);
}

void Allgatherv(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter)
    return InterAllgather(send, sendcount, sendtype, recv, recvcounts, displs, 0, recvtype, comm);
  AllgatherImpl(send, sendcount, sendtype, recv,
                Given(comm.size, recvcounts, displs, recvtype), recvtype, comm);
}

void Alltoall(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter)
    return InterAlltoall(send, nullptr, nullptr, sendcount, sendtype, recv, nullptr, nullptr,
                         recvcount, recvtype, comm);
  BufferBytes(recvcount, recvtype);
  Layout slayout;
  if (send != MPI_IN_PLACE) {
    BufferBytes(sendcount, sendtype);
    slayout = Regular(comm.size, sendcount);
  }
  AlltoallImpl(send, slayout, sendtype, recv, Regular(comm.size, recvcount), recvtype, comm);
}

void Alltoallv(const void* send, const int sendcounts[], const int sdispls[],
               MPI_Datatype sendtype, void* recv, const int recvcounts[], const int rdispls[],
               MPI_Datatype recvtype, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter)
    return InterAlltoall(send, sendcounts, sdispls, 0, sendtype, recv, recvcounts, rdispls, 0,
                         recvtype, comm);
  Layout rlayout = Given(comm.size, recvcounts, rdispls, recvtype);
  Layout slayout;
  if (send != MPI_IN_PLACE) slayout = Given(comm.size, sendcounts, sdispls, sendtype);
  AlltoallImpl(send, slayout, sendtype, recv, rlayout, recvtype, comm);
}

// Scan and exscan: a chain in rank order. Rank r receives the prefix
// x_0 op ... op x_{r-1} from r - 1, combines its own x_r after it and
// passes the result on to r + 1.
namespace {

void ScanImpl(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm_handle, bool exclusive) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t bytes = BufferBytes(count, datatype);
  CheckedOp checked = CheckOp(op, datatype);
  int tag = exclusive ? kTagExscan : kTagScan;
  std::vector<std::byte> mine;  // x_r, then the prefix through r
  if (send == MPI_IN_PLACE) {
    mine.assign(static_cast<const std::byte*>(recv), static_cast<const std::byte*>(recv) + bytes);
  } else {
    mine.assign(static_cast<const std::byte*>(send), static_cast<const std::byte*>(send) + bytes);
  }
  if (comm.rank > 0) {
    // The prefix of the lower ranks, straight into recv (exscan's result).
    std::vector<std::byte> before_buffer;
    void* before = recv;
    if (!exclusive) {
      before_buffer.resize(bytes);
      before = before_buffer.data();
    }
    CollRecv(comm, comm.rank - 1, tag, before, bytes);
    ApplyOp(checked, datatype, before, mine.data(), count);
  }
  if (comm.rank + 1 < comm.size) CollSend(comm, comm.rank + 1, tag, mine.data(), bytes);
  if (!exclusive) Copy(recv, mine.data(), bytes);
}

void ReduceScatterImpl(const void* send, void* recv, const std::vector<int>& counts,
                       MPI_Datatype datatype, MPI_Op op, const CommInfo& comm,
                       MPI_Comm comm_handle) {
  CheckedOp checked = CheckOp(op, datatype);
  Layout layout;
  std::int64_t total = 0;
  for (int count : counts) {
    BufferBytes(count, datatype);
    layout.counts.push_back(count);
    layout.displs.push_back(static_cast<int>(total));
    total += count;
  }
  if (total > std::numeric_limits<int>::max())
    throw Error(kErrCount, "the counts add up to more than an int");
  int n = static_cast<int>(total);
  const void* input = send == MPI_IN_PLACE ? recv : send;
  // Reduce everything to rank 0, which scatters the blocks.
  std::vector<std::byte> reduced(comm.rank == 0 ? BufferBytes(n, datatype) : 0);
  if (checked.user != nullptr) {
    UserReduce(input, reduced.data(), n, datatype, checked, 0, comm);
  } else if (comm.rank == 0) {
    Reduce(input, reduced.data(), n, datatype, op, 0, comm_handle);
  } else {
    Reduce(input, nullptr, n, datatype, op, 0, comm_handle);
  }
  std::size_t me = static_cast<std::size_t>(comm.rank);
  ScatterImpl(reduced.data(), &layout, datatype, recv, counts[me], datatype, 0, comm);
}

}  // namespace

void Scan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
          MPI_Comm comm) {
  ScanImpl(send, recv, count, datatype, op, comm, /*exclusive=*/false);
}

void Exscan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm) {
  ScanImpl(send, recv, count, datatype, op, comm, /*exclusive=*/true);
}

void ReduceScatterBlock(const void* send, void* recv, int recvcount, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  BufferBytes(recvcount, datatype);
  ReduceScatterImpl(send, recv, std::vector<int>(static_cast<std::size_t>(comm.size), recvcount),
                    datatype, op, comm, comm_handle);
}

void ReduceScatter(const void* send, void* recv, const int recvcounts[], MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  CheckCounts(recvcounts, comm.size, datatype);
  ReduceScatterImpl(send, recv, std::vector<int>(recvcounts, recvcounts + comm.size), datatype,
                    op, comm, comm_handle);
}

}  // namespace bdmpi
