// Collectives on intercommunicators; see intercomm_coll.h.
#include "slave/intercomm_coll.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/coll_p2p.h"
#include "slave/datatypes.h"
#include "slave/wire_data.h"

namespace bdmpi {
namespace {

// Internal tags on the hidden communicator's collective twin, which
// carries nothing else (coll_p2p.h's tags are on other communicators').
enum InterTag : int {
  kTagInterBcast = 0x5c000001,
  kTagInterReduce,
  kTagInterAllreduce,
  kTagInterAllreduceResult,
  kTagInterGather,
  kTagInterScatter,
  kTagInterAllgather,
  kTagInterAlltoall,
};

// The hidden communicator of both groups as CollSend/CollRecv see it, and
// the numbers of remote and local ranks on it.
struct Both {
  CommInfo info;
  int local_offset;
  int remote_offset;
  int remote_size;

  explicit Both(const CommInfo& inter) {
    info.id = inter.id;
    info.rank = inter.union_rank;
    remote_size = static_cast<int>(inter.remote_world_ranks.size());
    info.size = inter.size + remote_size;
    remote_offset = inter.remote_offset;
    local_offset = remote_offset == 0 ? remote_size : 0;
  }
  void SendRemote(int j, int tag, const void* data, std::uint64_t bytes) const {
    CollSend(info, remote_offset + j, tag, data, bytes);
  }
  void RecvRemote(int j, int tag, void* data, std::uint64_t capacity) const {
    CollRecv(info, remote_offset + j, tag, data, capacity);
  }
  void SendLocal(int i, int tag, const void* data, std::uint64_t bytes) const {
    CollSend(info, local_offset + i, tag, data, bytes);
  }
  void RecvLocal(int i, int tag, void* data, std::uint64_t capacity) const {
    CollRecv(info, local_offset + i, tag, data, capacity);
  }
  // `count` elements as wire bytes (wire_data.h), so that any datatype
  // matches any other of the same type signature.
  void SendRemote(int j, int tag, const void* buffer, int count, MPI_Datatype type) const {
    WireData wire = ToWire(buffer, count, type);
    SendRemote(j, tag, wire.data, wire.bytes);
  }
  void RecvRemote(int j, int tag, void* buffer, int count, MPI_Datatype type) const {
    WireSink sink(buffer, count, type);
    RecvRemote(j, tag, sink.data(), sink.bytes());
    sink.Finish();
  }
};

// Which side of a rooted collective this rank is on.
enum class Side { kRoot, kIdle, kOther };

Side SideOf(int root, const Both& both) {
  if (root == MPI_ROOT) return Side::kRoot;
  if (root == MPI_PROC_NULL) return Side::kIdle;
  if (root < 0 || root >= both.remote_size)
    throw Error(kErrRoot, "root " + std::to_string(root) +
                              " is none of MPI_ROOT, MPI_PROC_NULL or a remote rank");
  return Side::kOther;
}

std::byte* At(void* base, std::int64_t elements, MPI_Datatype type) {
  return static_cast<std::byte*>(base) +
         elements * static_cast<std::int64_t>(LookupType(type).extent);
}
const std::byte* At(const void* base, std::int64_t elements, MPI_Datatype type) {
  return static_cast<const std::byte*>(base) +
         elements * static_cast<std::int64_t>(LookupType(type).extent);
}

int CountOf(const int counts[], int count, int j) { return counts != nullptr ? counts[j] : count; }
std::int64_t DisplOf(const int displs[], int count, int j) {
  return displs != nullptr ? displs[j] : static_cast<std::int64_t>(j) * count;
}

// Receives the remote group's `count` elements each and folds them in rank
// order into `result`.
void FoldRemote(const Both& both, int tag, void* result, int count, MPI_Datatype datatype,
                const CheckedOp& op) {
  std::uint64_t bytes = WireBytes(count, datatype);
  std::vector<std::byte> folded(bytes), part(bytes);
  // result = c_0 op (c_1 op (... op c_last)): the lower ranks on the left.
  both.RecvRemote(both.remote_size - 1, tag, folded.data(), bytes);
  for (int j = both.remote_size - 2; j >= 0; --j) {
    both.RecvRemote(j, tag, part.data(), bytes);
    ApplyOpWire(op, datatype, part.data(), folded.data(), count);
  }
  WriteWire(folded, result, count, ScatteredLayout(datatype).get());
}

}  // namespace

void InterBcast(void* buffer, int count, MPI_Datatype datatype, int root, const CommInfo& comm) {
  Both both(comm);
  switch (SideOf(root, both)) {
    case Side::kRoot: {
      WireData wire = ToWire(buffer, count, datatype);
      for (int j = 0; j < both.remote_size; ++j)
        both.SendRemote(j, kTagInterBcast, wire.data, wire.bytes);
      break;
    }
    case Side::kIdle: break;
    case Side::kOther: both.RecvRemote(root, kTagInterBcast, buffer, count, datatype); break;
  }
}

void InterReduce(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, const CommInfo& comm) {
  Both both(comm);
  CheckedOp checked = CheckOp(op, datatype);
  switch (SideOf(root, both)) {
    case Side::kRoot: FoldRemote(both, kTagInterReduce, recv, count, datatype, checked); break;
    case Side::kIdle: break;
    case Side::kOther:
      both.SendRemote(root, kTagInterReduce, send, count, datatype);
      break;
  }
}

void InterAllreduce(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                    const CommInfo& comm) {
  Both both(comm);
  CheckedOp checked = CheckOp(op, datatype);
  // Every rank gives its data to the remote group's rank 0, which folds
  // and hands the result to its own group.
  both.SendRemote(0, kTagInterAllreduce, send, count, datatype);
  if (comm.rank == 0) {
    FoldRemote(both, kTagInterAllreduce, recv, count, datatype, checked);
    WireData result = ToWire(recv, count, datatype);
    for (int i = 1; i < comm.size; ++i)
      both.SendLocal(i, kTagInterAllreduceResult, result.data, result.bytes);
  } else {
    WireSink sink(recv, count, datatype);
    both.RecvLocal(0, kTagInterAllreduceResult, sink.data(), sink.bytes());
    sink.Finish();
  }
}

void InterGather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                 const int recvcounts[], const int displs[], int recvcount, MPI_Datatype recvtype,
                 int root, const CommInfo& comm) {
  Both both(comm);
  switch (SideOf(root, both)) {
    case Side::kRoot:
      for (int j = 0; j < both.remote_size; ++j)
        both.RecvRemote(j, kTagInterGather, At(recv, DisplOf(displs, recvcount, j), recvtype),
                        CountOf(recvcounts, recvcount, j), recvtype);
      break;
    case Side::kIdle: break;
    case Side::kOther:
      both.SendRemote(root, kTagInterGather, send, sendcount, sendtype);
      break;
  }
}

void InterScatter(const void* send, const int sendcounts[], const int displs[], int sendcount,
                  MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype, int root,
                  const CommInfo& comm) {
  Both both(comm);
  switch (SideOf(root, both)) {
    case Side::kRoot:
      for (int j = 0; j < both.remote_size; ++j)
        both.SendRemote(j, kTagInterScatter, At(send, DisplOf(displs, sendcount, j), sendtype),
                        CountOf(sendcounts, sendcount, j), sendtype);
      break;
    case Side::kIdle: break;
    case Side::kOther:
      both.RecvRemote(root, kTagInterScatter, recv, recvcount, recvtype);
      break;
  }
}

void InterAllgather(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                    const int recvcounts[], const int displs[], int recvcount,
                    MPI_Datatype recvtype, const CommInfo& comm) {
  Both both(comm);
  WireData wire = ToWire(send, sendcount, sendtype);
  for (int j = 0; j < both.remote_size; ++j)
    both.SendRemote(j, kTagInterAllgather, wire.data, wire.bytes);
  for (int j = 0; j < both.remote_size; ++j)
    both.RecvRemote(j, kTagInterAllgather, At(recv, DisplOf(displs, recvcount, j), recvtype),
                    CountOf(recvcounts, recvcount, j), recvtype);
}

void InterAlltoall(const void* send, const int sendcounts[], const int sdispls[], int sendcount,
                   MPI_Datatype sendtype, void* recv, const int recvcounts[], const int rdispls[],
                   int recvcount, MPI_Datatype recvtype, const CommInfo& comm) {
  Both both(comm);
  for (int j = 0; j < both.remote_size; ++j)
    both.SendRemote(j, kTagInterAlltoall, At(send, DisplOf(sdispls, sendcount, j), sendtype),
                    CountOf(sendcounts, sendcount, j), sendtype);
  for (int j = 0; j < both.remote_size; ++j)
    both.RecvRemote(j, kTagInterAlltoall, At(recv, DisplOf(rdispls, recvcount, j), recvtype),
                    CountOf(recvcounts, recvcount, j), recvtype);
}

}  // namespace bdmpi
