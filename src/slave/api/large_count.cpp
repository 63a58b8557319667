// The extern "C" entry points of MPI-4's large-count (_c) calls for
// point-to-point, collectives, MPI-IO and one-sided communication. A count
// that fits in an int is handed to the int call as it is; a larger one as
// one element of a counted type (slave/datatype/large_count.h), which the
// int paths carry unchanged (their byte counts are 64-bit). The v and w
// collectives take MPI_Count counts and MPI_Aint displacements throughout
// (coll/nbc_plans.h). The datatype ones are in datatype.cpp.
#include "slave/datatype/large_count.h"

#include <mpi.h>

#include <array>
#include <climits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/nbc.h"
#include "slave/coll/nbc_plans.h"
#include "slave/comm/cross_job.h"
#include "slave/runtime/errors.h"

using bdmpi::CallName;
using bdmpi::Error;
using bdmpi::Guard;
using bdmpi::IntCount;
using bdmpi::NarrowCount;

namespace {

// The calls that only take int arrays (the neighbourhood v and w forms,
// MPI_Reduce_scatter): their values must fit in an int.
template <class Wide>
std::vector<int> Narrow(const Wide* values, int n, const char* call) {
  std::vector<int> narrow;
  if (values == nullptr) return narrow;
  for (int i = 0; i < n; ++i) {
    if (values[i] > INT_MAX || values[i] < INT_MIN)
      throw Error(bdmpi::kErrCount, std::string(call) + ": counts and displacements beyond "
                                                        "INT_MAX are not supported here; "
                                                        "describe the blocks with a derived "
                                                        "datatype");
    narrow.push_back(static_cast<int>(values[i]));
  }
  return narrow;
}

int CommSize(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

// A neighbourhood collective's in- and out-degree (MPI-3.1 7.6).
void Degrees(MPI_Comm comm, int* in, int* out) {
  int kind = MPI_UNDEFINED, rank = 0;
  *in = *out = 0;
  PMPI_Topo_test(comm, &kind);
  if (kind == MPI_CART) {
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    *in = *out = 2 * ndims;
  } else if (kind == MPI_GRAPH) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, in);
    *out = *in;
  } else if (kind == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
  }
}

const int* Data(const std::vector<int>& values) {
  return values.empty() ? nullptr : values.data();
}

// On a communicator between two jobs the v and w collectives take int
// counts and displacements (slave/comm/cross_job_coll.h): the call's
// arrays, of n values each (none where they are not significant), are
// narrowed (MPI_ERR_COUNT when one does not fit) and handed to the int
// call, which runs them over the jobs' sockets. A persistent request
// (`persistent`, else nullptr) reads its arrays at each MPI_Start, so
// they are kept while its handle names it: until a later request takes
// the handle, which is free again by then.
template <std::size_t N>
using NarrowArrays = std::array<std::vector<int>, N>;

template <std::size_t N>
void KeepForRequest(MPI_Request request, NarrowArrays<N>&& arrays) {
  static std::mutex lock;
  static std::map<MPI_Request, NarrowArrays<N>> kept;
  std::lock_guard<std::mutex> hold(lock);
  kept[request] = std::move(arrays);  // a move keeps the values where they are
}

template <class IntCall, class... Wide>
int NarrowedCall(const char* call, MPI_Comm comm, int n, MPI_Request* persistent,
                 IntCall&& int_call, const Wide*... wide) {
  NarrowArrays<sizeof...(Wide)> narrow;
  int error = Guard(call, comm, [&] {
    std::size_t i = 0;
    ((narrow[i++] = Narrow(wide, n, call)), ...);
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name(call);
  error = std::apply([&](const auto&... values) { return int_call(Data(values)...); }, narrow);
  if (error == MPI_SUCCESS && persistent != nullptr) KeepForRequest(*persistent, std::move(narrow));
  return error;
}

// How many blocks a rank's arrays hold: the other group's size on an
// intercommunicator, the group's on an intracommunicator.
int Peers(MPI_Comm comm) {
  int inter = 0, size = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    PMPI_Comm_remote_size(comm, &size);
  else
    PMPI_Comm_size(comm, &size);
  return size;
}

// Peers(comm) where a rooted call's arrays are significant, else 0.
int RootPeers(MPI_Comm comm, int root) {
  int inter = 0, rank = -1;
  PMPI_Comm_test_inter(comm, &inter);
  if (!inter) PMPI_Comm_rank(comm, &rank);
  return (inter ? root == MPI_ROOT : root == rank) ? Peers(comm) : 0;
}

}  // namespace

extern "C" {

// ------------------------------------------------ calls of (count, type)

#pragma weak MPI_Accumulate_c = PMPI_Accumulate_c
int PMPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  const IntCount a = NarrowCount(origin_count, origin_datatype);
  const IntCount b = NarrowCount(target_count, target_datatype);
  const CallName name("MPI_Accumulate_c");
  return PMPI_Accumulate(origin_addr, a.count, a.type, target_rank, target_disp, b.count, b.type,
                         op, win);
}

#pragma weak MPI_Allgather_c = PMPI_Allgather_c
int PMPI_Allgather_c(const void* sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Allgather_c");
  return PMPI_Allgather(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm);
}

#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c
int PMPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Allgather_init_c");
  return PMPI_Allgather_init(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm, info,
                             request);
}

#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c
int PMPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Allreduce_c");
  return PMPI_Allreduce(sendbuf, recvbuf, a.count, a.type, op, comm);
}

#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c
int PMPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          MPI_Info info, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Allreduce_init_c");
  return PMPI_Allreduce_init(sendbuf, recvbuf, a.count, a.type, op, comm, info, request);
}

#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c
int PMPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Alltoall_c");
  return PMPI_Alltoall(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm);
}

#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c
int PMPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Alltoall_init_c");
  return PMPI_Alltoall_init(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm, info,
                            request);
}

#pragma weak MPI_Bcast_c = PMPI_Bcast_c
int PMPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Bcast_c");
  return PMPI_Bcast(buffer, a.count, a.type, root, comm);
}

#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c
int PMPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype,
                      int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Bcast_init_c");
  return PMPI_Bcast_init(buffer, a.count, a.type, root, comm, info, request);
}

#pragma weak MPI_Bsend_c = PMPI_Bsend_c
int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Bsend_c");
  return PMPI_Bsend(buf, a.count, a.type, dest, tag, comm);
}

#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c
int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Bsend_init_c");
  return PMPI_Bsend_init(buf, a.count, a.type, dest, tag, comm, request);
}

#pragma weak MPI_Exscan_c = PMPI_Exscan_c
int PMPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Exscan_c");
  return PMPI_Exscan(sendbuf, recvbuf, a.count, a.type, op, comm);
}

#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c
int PMPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Exscan_init_c");
  return PMPI_Exscan_init(sendbuf, recvbuf, a.count, a.type, op, comm, info, request);
}

#pragma weak MPI_File_iread_c = PMPI_File_iread_c
int PMPI_File_iread_c(MPI_File fh, void* buf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iread_c");
  return PMPI_File_iread(fh, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iread_all_c = PMPI_File_iread_all_c
int PMPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iread_all_c");
  return PMPI_File_iread_all(fh, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iread_at_c = PMPI_File_iread_at_c
int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void* buf,
                         MPI_Count count, MPI_Datatype datatype,
                         MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iread_at_c");
  return PMPI_File_iread_at(fh, offset, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iread_at_all_c = PMPI_File_iread_at_all_c
int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf,
                             MPI_Count count, MPI_Datatype datatype,
                             MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iread_at_all_c");
  return PMPI_File_iread_at_all(fh, offset, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iread_shared_c = PMPI_File_iread_shared_c
int PMPI_File_iread_shared_c(MPI_File fh, void* buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iread_shared_c");
  return PMPI_File_iread_shared(fh, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iwrite_c = PMPI_File_iwrite_c
int PMPI_File_iwrite_c(MPI_File fh, const void* buf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iwrite_c");
  return PMPI_File_iwrite(fh, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iwrite_all_c = PMPI_File_iwrite_all_c
int PMPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iwrite_all_c");
  return PMPI_File_iwrite_all(fh, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iwrite_at_c = PMPI_File_iwrite_at_c
int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void* buf,
                          MPI_Count count, MPI_Datatype datatype,
                          MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iwrite_at_c");
  return PMPI_File_iwrite_at(fh, offset, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iwrite_at_all_c = PMPI_File_iwrite_at_all_c
int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf,
                              MPI_Count count, MPI_Datatype datatype,
                              MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iwrite_at_all_c");
  return PMPI_File_iwrite_at_all(fh, offset, buf, a.count, a.type, request);
}

#pragma weak MPI_File_iwrite_shared_c = PMPI_File_iwrite_shared_c
int PMPI_File_iwrite_shared_c(MPI_File fh, const void* buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_iwrite_shared_c");
  return PMPI_File_iwrite_shared(fh, buf, a.count, a.type, request);
}

#pragma weak MPI_File_read_c = PMPI_File_read_c
int PMPI_File_read_c(MPI_File fh, void* buf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_c");
  return PMPI_File_read(fh, buf, a.count, a.type, status);
}

#pragma weak MPI_File_read_all_c = PMPI_File_read_all_c
int PMPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_all_c");
  return PMPI_File_read_all(fh, buf, a.count, a.type, status);
}

#pragma weak MPI_File_read_all_begin_c = PMPI_File_read_all_begin_c
int PMPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count,
                               MPI_Datatype datatype) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_all_begin_c");
  return PMPI_File_read_all_begin(fh, buf, a.count, a.type);
}

#pragma weak MPI_File_read_at_c = PMPI_File_read_at_c
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void* buf,
                        MPI_Count count, MPI_Datatype datatype,
                        MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_at_c");
  return PMPI_File_read_at(fh, offset, buf, a.count, a.type, status);
}

#pragma weak MPI_File_read_at_all_c = PMPI_File_read_at_all_c
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf,
                            MPI_Count count, MPI_Datatype datatype,
                            MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_at_all_c");
  return PMPI_File_read_at_all(fh, offset, buf, a.count, a.type, status);
}

#pragma weak MPI_File_read_at_all_begin_c = PMPI_File_read_at_all_begin_c
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf,
                                  MPI_Count count, MPI_Datatype datatype) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_at_all_begin_c");
  return PMPI_File_read_at_all_begin(fh, offset, buf, a.count, a.type);
}

#pragma weak MPI_File_read_ordered_c = PMPI_File_read_ordered_c
int PMPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_ordered_c");
  return PMPI_File_read_ordered(fh, buf, a.count, a.type, status);
}

#pragma weak MPI_File_read_ordered_begin_c = PMPI_File_read_ordered_begin_c
int PMPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count,
                                   MPI_Datatype datatype) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_ordered_begin_c");
  return PMPI_File_read_ordered_begin(fh, buf, a.count, a.type);
}

#pragma weak MPI_File_read_shared_c = PMPI_File_read_shared_c
int PMPI_File_read_shared_c(MPI_File fh, void* buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_read_shared_c");
  return PMPI_File_read_shared(fh, buf, a.count, a.type, status);
}

#pragma weak MPI_File_write_c = PMPI_File_write_c
int PMPI_File_write_c(MPI_File fh, const void* buf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_c");
  return PMPI_File_write(fh, buf, a.count, a.type, status);
}

#pragma weak MPI_File_write_all_c = PMPI_File_write_all_c
int PMPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_all_c");
  return PMPI_File_write_all(fh, buf, a.count, a.type, status);
}

#pragma weak MPI_File_write_all_begin_c = PMPI_File_write_all_begin_c
int PMPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                MPI_Datatype datatype) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_all_begin_c");
  return PMPI_File_write_all_begin(fh, buf, a.count, a.type);
}

#pragma weak MPI_File_write_at_c = PMPI_File_write_at_c
int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void* buf,
                         MPI_Count count, MPI_Datatype datatype,
                         MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_at_c");
  return PMPI_File_write_at(fh, offset, buf, a.count, a.type, status);
}

#pragma weak MPI_File_write_at_all_c = PMPI_File_write_at_all_c
int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf,
                             MPI_Count count, MPI_Datatype datatype,
                             MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_at_all_c");
  return PMPI_File_write_at_all(fh, offset, buf, a.count, a.type, status);
}

#pragma weak MPI_File_write_at_all_begin_c = PMPI_File_write_at_all_begin_c
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset,
                                   const void* buf, MPI_Count count,
                                   MPI_Datatype datatype) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_at_all_begin_c");
  return PMPI_File_write_at_all_begin(fh, offset, buf, a.count, a.type);
}

#pragma weak MPI_File_write_ordered_c = PMPI_File_write_ordered_c
int PMPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_ordered_c");
  return PMPI_File_write_ordered(fh, buf, a.count, a.type, status);
}

#pragma weak MPI_File_write_ordered_begin_c = PMPI_File_write_ordered_begin_c
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void* buf,
                                    MPI_Count count, MPI_Datatype datatype) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_ordered_begin_c");
  return PMPI_File_write_ordered_begin(fh, buf, a.count, a.type);
}

#pragma weak MPI_File_write_shared_c = PMPI_File_write_shared_c
int PMPI_File_write_shared_c(MPI_File fh, const void* buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_File_write_shared_c");
  return PMPI_File_write_shared(fh, buf, a.count, a.type, status);
}

#pragma weak MPI_Gather_c = PMPI_Gather_c
int PMPI_Gather_c(const void* sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Gather_c");
  return PMPI_Gather(sendbuf, a.count, a.type, recvbuf, b.count, b.type, root, comm);
}

#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c
int PMPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void* recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Gather_init_c");
  return PMPI_Gather_init(sendbuf, a.count, a.type, recvbuf, b.count, b.type, root, comm, info,
                          request);
}

#pragma weak MPI_Get_c = PMPI_Get_c
int PMPI_Get_c(void* origin_addr, MPI_Count origin_count,
               MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win) {
  const IntCount a = NarrowCount(origin_count, origin_datatype);
  const IntCount b = NarrowCount(target_count, target_datatype);
  const CallName name("MPI_Get_c");
  return PMPI_Get(origin_addr, a.count, a.type, target_rank, target_disp, b.count, b.type, win);
}

#pragma weak MPI_Get_accumulate_c = PMPI_Get_accumulate_c
int PMPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void* result_addr,
                          MPI_Count result_count, MPI_Datatype result_datatype,
                          int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype,
                          MPI_Op op, MPI_Win win) {
  const IntCount a = NarrowCount(origin_count, origin_datatype);
  const IntCount b = NarrowCount(result_count, result_datatype);
  const IntCount c = NarrowCount(target_count, target_datatype);
  const CallName name("MPI_Get_accumulate_c");
  return PMPI_Get_accumulate(origin_addr, a.count, a.type, result_addr, b.count, b.type,
                             target_rank, target_disp, c.count, c.type, op, win);
}

#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c
int PMPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Iallgather_c");
  return PMPI_Iallgather(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm, request);
}

#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c
int PMPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                      MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Iallreduce_c");
  return PMPI_Iallreduce(sendbuf, recvbuf, a.count, a.type, op, comm, request);
}

#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c
int PMPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Ialltoall_c");
  return PMPI_Ialltoall(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm, request);
}

#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c
int PMPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Ibcast_c");
  return PMPI_Ibcast(buffer, a.count, a.type, root, comm, request);
}

#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c
int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Ibsend_c");
  return PMPI_Ibsend(buf, a.count, a.type, dest, tag, comm, request);
}

#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c
int PMPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Iexscan_c");
  return PMPI_Iexscan(sendbuf, recvbuf, a.count, a.type, op, comm, request);
}

#pragma weak MPI_Igather_c = PMPI_Igather_c
int PMPI_Igather_c(const void* sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Igather_c");
  return PMPI_Igather(sendbuf, a.count, a.type, recvbuf, b.count, b.type, root, comm, request);
}

#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c
int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Message* message, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Imrecv_c");
  return PMPI_Imrecv(buf, a.count, a.type, message, request);
}

#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c
int PMPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Ineighbor_allgather_c");
  return PMPI_Ineighbor_allgather(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm,
                                  request);
}

#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c
int PMPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Ineighbor_alltoall_c");
  return PMPI_Ineighbor_alltoall(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm, request);
}

#pragma weak MPI_Irecv_c = PMPI_Irecv_c
int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                 int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Irecv_c");
  return PMPI_Irecv(buf, a.count, a.type, source, tag, comm, request);
}

#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c
int PMPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                   MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Ireduce_c");
  return PMPI_Ireduce(sendbuf, recvbuf, a.count, a.type, op, root, comm, request);
}

#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c
int PMPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request) {
  const IntCount a = NarrowCount(recvcount, datatype);
  const CallName name("MPI_Ireduce_scatter_block_c");
  return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, a.count, a.type, op, comm, request);
}

#pragma weak MPI_Irsend_c = PMPI_Irsend_c
int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Irsend_c");
  return PMPI_Irsend(buf, a.count, a.type, dest, tag, comm, request);
}

#pragma weak MPI_Iscan_c = PMPI_Iscan_c
int PMPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Iscan_c");
  return PMPI_Iscan(sendbuf, recvbuf, a.count, a.type, op, comm, request);
}

#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c
int PMPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Iscatter_c");
  return PMPI_Iscatter(sendbuf, a.count, a.type, recvbuf, b.count, b.type, root, comm, request);
}

#pragma weak MPI_Isend_c = PMPI_Isend_c
int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Isend_c");
  return PMPI_Isend(buf, a.count, a.type, dest, tag, comm, request);
}

#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c
int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm,
                     MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Isendrecv_c");
  return PMPI_Isendrecv(sendbuf, a.count, a.type, dest, sendtag, recvbuf, b.count, b.type, source,
                        recvtag, comm, request);
}

#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c
int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype,
                             int dest, int sendtag, int source, int recvtag,
                             MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Isendrecv_replace_c");
  return PMPI_Isendrecv_replace(buf, a.count, a.type, dest, sendtag, source, recvtag, comm,
                                request);
}

#pragma weak MPI_Issend_c = PMPI_Issend_c
int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Issend_c");
  return PMPI_Issend(buf, a.count, a.type, dest, tag, comm, request);
}

#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c
int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Message* message, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Mrecv_c");
  return PMPI_Mrecv(buf, a.count, a.type, message, status);
}

#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c
int PMPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Neighbor_allgather_c");
  return PMPI_Neighbor_allgather(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm);
}

#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c
int PMPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Neighbor_alltoall_c");
  return PMPI_Neighbor_alltoall(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm);
}

#pragma weak MPI_Put_c = PMPI_Put_c
int PMPI_Put_c(const void* origin_addr, MPI_Count origin_count,
               MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win) {
  const IntCount a = NarrowCount(origin_count, origin_datatype);
  const IntCount b = NarrowCount(target_count, target_datatype);
  const CallName name("MPI_Put_c");
  return PMPI_Put(origin_addr, a.count, a.type, target_rank, target_disp, b.count, b.type, win);
}

#pragma weak MPI_Raccumulate_c = PMPI_Raccumulate_c
int PMPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, MPI_Count target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request* request) {
  const IntCount a = NarrowCount(origin_count, origin_datatype);
  const IntCount b = NarrowCount(target_count, target_datatype);
  const CallName name("MPI_Raccumulate_c");
  return PMPI_Raccumulate(origin_addr, a.count, a.type, target_rank, target_disp, b.count, b.type,
                          op, win, request);
}

#pragma weak MPI_Recv_c = PMPI_Recv_c
int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                int tag, MPI_Comm comm, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Recv_c");
  return PMPI_Recv(buf, a.count, a.type, source, tag, comm, status);
}

#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c
int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype,
                     int source, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Recv_init_c");
  return PMPI_Recv_init(buf, a.count, a.type, source, tag, comm, request);
}

#pragma weak MPI_Reduce_c = PMPI_Reduce_c
int PMPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Reduce_c");
  return PMPI_Reduce(sendbuf, recvbuf, a.count, a.type, op, root, comm);
}

#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c
int PMPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Reduce_init_c");
  return PMPI_Reduce_init(sendbuf, recvbuf, a.count, a.type, op, root, comm, info, request);
}

#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c
int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Reduce_local_c");
  return PMPI_Reduce_local(inbuf, inoutbuf, a.count, a.type, op);
}

#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c
int PMPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf,
                                MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm) {
  const IntCount a = NarrowCount(recvcount, datatype);
  const CallName name("MPI_Reduce_scatter_block_c");
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, a.count, a.type, op, comm);
}

#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
int PMPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf,
                                     MPI_Count recvcount, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  const IntCount a = NarrowCount(recvcount, datatype);
  const CallName name("MPI_Reduce_scatter_block_init_c");
  return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, a.count, a.type, op, comm, info, request);
}

#pragma weak MPI_Rget_c = PMPI_Rget_c
int PMPI_Rget_c(void* origin_addr, MPI_Count origin_count,
                MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request* request) {
  const IntCount a = NarrowCount(origin_count, origin_datatype);
  const IntCount b = NarrowCount(target_count, target_datatype);
  const CallName name("MPI_Rget_c");
  return PMPI_Rget(origin_addr, a.count, a.type, target_rank, target_disp, b.count, b.type, win,
                   request);
}

#pragma weak MPI_Rget_accumulate_c = PMPI_Rget_accumulate_c
int PMPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void* result_addr,
                           MPI_Count result_count, MPI_Datatype result_datatype,
                           int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype,
                           MPI_Op op, MPI_Win win, MPI_Request* request) {
  const IntCount a = NarrowCount(origin_count, origin_datatype);
  const IntCount b = NarrowCount(result_count, result_datatype);
  const IntCount c = NarrowCount(target_count, target_datatype);
  const CallName name("MPI_Rget_accumulate_c");
  return PMPI_Rget_accumulate(origin_addr, a.count, a.type, result_addr, b.count, b.type,
                              target_rank, target_disp, c.count, c.type, op, win, request);
}

#pragma weak MPI_Rput_c = PMPI_Rput_c
int PMPI_Rput_c(const void* origin_addr, MPI_Count origin_count,
                MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request* request) {
  const IntCount a = NarrowCount(origin_count, origin_datatype);
  const IntCount b = NarrowCount(target_count, target_datatype);
  const CallName name("MPI_Rput_c");
  return PMPI_Rput(origin_addr, a.count, a.type, target_rank, target_disp, b.count, b.type, win,
                   request);
}

#pragma weak MPI_Rsend_c = PMPI_Rsend_c
int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Rsend_c");
  return PMPI_Rsend(buf, a.count, a.type, dest, tag, comm);
}

#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c
int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Rsend_init_c");
  return PMPI_Rsend_init(buf, a.count, a.type, dest, tag, comm, request);
}

#pragma weak MPI_Scan_c = PMPI_Scan_c
int PMPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Scan_c");
  return PMPI_Scan(sendbuf, recvbuf, a.count, a.type, op, comm);
}

#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c
int PMPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Scan_init_c");
  return PMPI_Scan_init(sendbuf, recvbuf, a.count, a.type, op, comm, info, request);
}

#pragma weak MPI_Scatter_c = PMPI_Scatter_c
int PMPI_Scatter_c(const void* sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Scatter_c");
  return PMPI_Scatter(sendbuf, a.count, a.type, recvbuf, b.count, b.type, root, comm);
}

#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c
int PMPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void* recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Scatter_init_c");
  return PMPI_Scatter_init(sendbuf, a.count, a.type, recvbuf, b.count, b.type, root, comm, info,
                           request);
}

#pragma weak MPI_Send_c = PMPI_Send_c
int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                int dest, int tag, MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Send_c");
  return PMPI_Send(buf, a.count, a.type, dest, tag, comm);
}

#pragma weak MPI_Send_init_c = PMPI_Send_init_c
int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Send_init_c");
  return PMPI_Send_init(buf, a.count, a.type, dest, tag, comm, request);
}

#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c
int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source,
                    int recvtag, MPI_Comm comm, MPI_Status* status) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Sendrecv_c");
  return PMPI_Sendrecv(sendbuf, a.count, a.type, dest, sendtag, recvbuf, b.count, b.type, source,
                       recvtag, comm, status);
}

#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c
int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag,
                            MPI_Comm comm, MPI_Status* status) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Sendrecv_replace_c");
  return PMPI_Sendrecv_replace(buf, a.count, a.type, dest, sendtag, source, recvtag, comm, status);
}

#pragma weak MPI_Ssend_c = PMPI_Ssend_c
int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Ssend_c");
  return PMPI_Ssend(buf, a.count, a.type, dest, tag, comm);
}

#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c
int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  const IntCount a = NarrowCount(count, datatype);
  const CallName name("MPI_Ssend_init_c");
  return PMPI_Ssend_init(buf, a.count, a.type, dest, tag, comm, request);
}

// ------------------------------------------------ v and w collectives

#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c
int PMPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Gatherv_c", comm, RootPeers(comm, root), nullptr,
        [&](const int* counts, const int* ds) {
          const IntCount a = NarrowCount(sendcount, sendtype);
          return PMPI_Gatherv(sendbuf, a.count, a.type, recvbuf, counts, ds, recvtype, root, comm);
        },
        recvcounts, displs);
  return Guard("MPI_Gatherv_c", comm, [&] {
    const IntCount a = NarrowCount(sendcount, sendtype);
    bdmpi::RunBlocking(bdmpi::GathervPlan(sendbuf, a.count, a.type, recvbuf, recvcounts, displs,
                                          recvtype, root, comm));
  });
}

#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c
int PMPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Igatherv_c", comm, RootPeers(comm, root), nullptr,
        [&](const int* counts, const int* ds) {
          const IntCount a = NarrowCount(sendcount, sendtype);
          return PMPI_Igatherv(sendbuf, a.count, a.type, recvbuf, counts, ds, recvtype, root, comm,
                               request);
        },
        recvcounts, displs);
  return Guard("MPI_Igatherv_c", comm, [&] {
    const IntCount a = NarrowCount(sendcount, sendtype);
    *request = bdmpi::StartNonblocking(bdmpi::GathervPlan(sendbuf, a.count, a.type, recvbuf,
                                                          recvcounts, displs, recvtype, root,
                                                          comm),
                                       comm);
  });
}

#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c
int PMPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Gatherv_init_c", comm, RootPeers(comm, root), request,
        [&](const int* counts, const int* ds) {
          const IntCount a = NarrowCount(sendcount, sendtype);
          return PMPI_Gatherv_init(sendbuf, a.count, a.type, recvbuf, counts, ds, recvtype, root,
                                   comm, info, request);
        },
        recvcounts, displs);
  return Guard("MPI_Gatherv_init_c", comm, [&] {
    const IntCount a = NarrowCount(sendcount, sendtype);
    *request = bdmpi::NewPersistent(bdmpi::GathervPlan(sendbuf, a.count, a.type, recvbuf,
                                                       recvcounts, displs, recvtype, root, comm),
                                    comm);
  });
}

#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
int PMPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Scatterv_c", comm, RootPeers(comm, root), nullptr,
        [&](const int* counts, const int* ds) {
          const IntCount b = NarrowCount(recvcount, recvtype);
          return PMPI_Scatterv(sendbuf, counts, ds, sendtype, recvbuf, b.count, b.type, root, comm);
        },
        sendcounts, displs);
  return Guard("MPI_Scatterv_c", comm, [&] {
    const IntCount b = NarrowCount(recvcount, recvtype);
    bdmpi::RunBlocking(bdmpi::ScattervPlan(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                           b.count, b.type, root, comm));
  });
}

#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c
int PMPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Iscatterv_c", comm, RootPeers(comm, root), nullptr,
        [&](const int* counts, const int* ds) {
          const IntCount b = NarrowCount(recvcount, recvtype);
          return PMPI_Iscatterv(sendbuf, counts, ds, sendtype, recvbuf, b.count, b.type, root, comm,
                                request);
        },
        sendcounts, displs);
  return Guard("MPI_Iscatterv_c", comm, [&] {
    const IntCount b = NarrowCount(recvcount, recvtype);
    *request = bdmpi::StartNonblocking(bdmpi::ScattervPlan(sendbuf, sendcounts, displs, sendtype,
                                                           recvbuf, b.count, b.type, root, comm),
                                       comm);
  });
}

#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c
int PMPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Scatterv_init_c", comm, RootPeers(comm, root), request,
        [&](const int* counts, const int* ds) {
          const IntCount b = NarrowCount(recvcount, recvtype);
          return PMPI_Scatterv_init(sendbuf, counts, ds, sendtype, recvbuf, b.count, b.type, root,
                                    comm, info, request);
        },
        sendcounts, displs);
  return Guard("MPI_Scatterv_init_c", comm, [&] {
    const IntCount b = NarrowCount(recvcount, recvtype);
    *request = bdmpi::NewPersistent(bdmpi::ScattervPlan(sendbuf, sendcounts, displs, sendtype,
                                                        recvbuf, b.count, b.type, root, comm),
                                    comm);
  });
}

#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c
int PMPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Allgatherv_c", comm, Peers(comm), nullptr,
        [&](const int* counts, const int* ds) {
          const IntCount a = NarrowCount(sendcount, sendtype);
          return PMPI_Allgatherv(sendbuf, a.count, a.type, recvbuf, counts, ds, recvtype, comm);
        },
        recvcounts, displs);
  return Guard("MPI_Allgatherv_c", comm, [&] {
    const IntCount a = NarrowCount(sendcount, sendtype);
    bdmpi::RunBlocking(bdmpi::AllgathervPlan(sendbuf, a.count, a.type, recvbuf, recvcounts,
                                             displs, recvtype, comm));
  });
}

#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c
int PMPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Iallgatherv_c", comm, Peers(comm), nullptr,
        [&](const int* counts, const int* ds) {
          const IntCount a = NarrowCount(sendcount, sendtype);
          return PMPI_Iallgatherv(sendbuf, a.count, a.type, recvbuf, counts, ds, recvtype, comm,
                                  request);
        },
        recvcounts, displs);
  return Guard("MPI_Iallgatherv_c", comm, [&] {
    const IntCount a = NarrowCount(sendcount, sendtype);
    *request = bdmpi::StartNonblocking(bdmpi::AllgathervPlan(sendbuf, a.count, a.type, recvbuf,
                                                             recvcounts, displs, recvtype, comm),
                                       comm);
  });
}

#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c
int PMPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Allgatherv_init_c", comm, Peers(comm), request,
        [&](const int* counts, const int* ds) {
          const IntCount a = NarrowCount(sendcount, sendtype);
          return PMPI_Allgatherv_init(sendbuf, a.count, a.type, recvbuf, counts, ds, recvtype, comm,
                                      info, request);
        },
        recvcounts, displs);
  return Guard("MPI_Allgatherv_init_c", comm, [&] {
    const IntCount a = NarrowCount(sendcount, sendtype);
    *request = bdmpi::NewPersistent(bdmpi::AllgathervPlan(sendbuf, a.count, a.type, recvbuf,
                                                          recvcounts, displs, recvtype, comm),
                                    comm);
  });
}

#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c
int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Alltoallv_c", comm, Peers(comm), nullptr,
        [&](const int* sc, const int* sd, const int* rc, const int* rd) {
          return PMPI_Alltoallv(sendbuf, sc, sd, sendtype, recvbuf, rc, rd, recvtype, comm);
        },
        sendcounts, sdispls, recvcounts, rdispls);
  return Guard("MPI_Alltoallv_c", comm, [&] {
    bdmpi::RunBlocking(bdmpi::AlltoallvPlan(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                            recvcounts, rdispls, recvtype, comm));
  });
}

#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c
int PMPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Ialltoallv_c", comm, Peers(comm), nullptr,
        [&](const int* sc, const int* sd, const int* rc, const int* rd) {
          return PMPI_Ialltoallv(sendbuf, sc, sd, sendtype, recvbuf, rc, rd, recvtype, comm,
                                 request);
        },
        sendcounts, sdispls, recvcounts, rdispls);
  return Guard("MPI_Ialltoallv_c", comm, [&] {
    *request = bdmpi::StartNonblocking(bdmpi::AlltoallvPlan(sendbuf, sendcounts, sdispls,
                                                            sendtype, recvbuf, recvcounts,
                                                            rdispls, recvtype, comm),
                                       comm);
  });
}

#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c
int PMPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Alltoallv_init_c", comm, Peers(comm), request,
        [&](const int* sc, const int* sd, const int* rc, const int* rd) {
          return PMPI_Alltoallv_init(sendbuf, sc, sd, sendtype, recvbuf, rc, rd, recvtype, comm,
                                     info, request);
        },
        sendcounts, sdispls, recvcounts, rdispls);
  return Guard("MPI_Alltoallv_init_c", comm, [&] {
    *request = bdmpi::NewPersistent(bdmpi::AlltoallvPlan(sendbuf, sendcounts, sdispls, sendtype,
                                                         recvbuf, recvcounts, rdispls, recvtype,
                                                         comm),
                                    comm);
  });
}

#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c
int PMPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Alltoallw_c", comm, Peers(comm), nullptr,
        [&](const int* sc, const int* sd, const int* rc, const int* rd) {
          return PMPI_Alltoallw(sendbuf, sc, sd, sendtypes, recvbuf, rc, rd, recvtypes, comm);
        },
        sendcounts, sdispls, recvcounts, rdispls);
  return Guard("MPI_Alltoallw_c", comm, [&] {
    bdmpi::RunBlocking(bdmpi::AlltoallwPlan(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                            recvcounts, rdispls, recvtypes, comm));
  });
}

#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c
int PMPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                      const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Ialltoallw_c", comm, Peers(comm), nullptr,
        [&](const int* sc, const int* sd, const int* rc, const int* rd) {
          return PMPI_Ialltoallw(sendbuf, sc, sd, sendtypes, recvbuf, rc, rd, recvtypes, comm,
                                 request);
        },
        sendcounts, sdispls, recvcounts, rdispls);
  return Guard("MPI_Ialltoallw_c", comm, [&] {
    *request = bdmpi::StartNonblocking(bdmpi::AlltoallwPlan(sendbuf, sendcounts, sdispls,
                                                            sendtypes, recvbuf, recvcounts,
                                                            rdispls, recvtypes, comm),
                                       comm);
  });
}

#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c
int PMPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  if (bdmpi::CrossJob(comm) != nullptr)
    return NarrowedCall(
        "MPI_Alltoallw_init_c", comm, Peers(comm), request,
        [&](const int* sc, const int* sd, const int* rc, const int* rd) {
          return PMPI_Alltoallw_init(sendbuf, sc, sd, sendtypes, recvbuf, rc, rd, recvtypes, comm,
                                     info, request);
        },
        sendcounts, sdispls, recvcounts, rdispls);
  return Guard("MPI_Alltoallw_init_c", comm, [&] {
    *request = bdmpi::NewPersistent(bdmpi::AlltoallwPlan(sendbuf, sendcounts, sdispls,
                                                         sendtypes, recvbuf, recvcounts,
                                                         rdispls, recvtypes, comm),
                                    comm);
  });
}

// Neighbourhood v and w forms and MPI_Reduce_scatter: int arrays below.
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c
int PMPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  std::vector<int> counts, disps;
  const IntCount a = NarrowCount(sendcount, sendtype);
  int error = Guard("MPI_Neighbor_allgatherv_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    counts = Narrow(recvcounts, in, "MPI_Neighbor_allgatherv_c");
    disps = Narrow(displs, in, "MPI_Neighbor_allgatherv_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Neighbor_allgatherv_c");
  return PMPI_Neighbor_allgatherv(sendbuf, a.count, a.type, recvbuf, Data(counts), Data(disps),
                                  recvtype, comm);
}

#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c
int PMPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request* request) {
  std::vector<int> counts, disps;
  const IntCount a = NarrowCount(sendcount, sendtype);
  int error = Guard("MPI_Ineighbor_allgatherv_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    counts = Narrow(recvcounts, in, "MPI_Ineighbor_allgatherv_c");
    disps = Narrow(displs, in, "MPI_Ineighbor_allgatherv_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Ineighbor_allgatherv_c");
  return PMPI_Ineighbor_allgatherv(sendbuf, a.count, a.type, recvbuf, Data(counts), Data(disps),
                                   recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c
int PMPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm) {
  std::vector<int> sc, sd, rc, rd;
  int error = Guard("MPI_Neighbor_alltoallv_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    const char* call = "MPI_Neighbor_alltoallv_c";
    sc = Narrow(sendcounts, out, call);
    sd = Narrow(sdispls, out, call);
    rc = Narrow(recvcounts, in, call);
    rd = Narrow(rdispls, in, call);
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Neighbor_alltoallv_c");
  return PMPI_Neighbor_alltoallv(sendbuf, Data(sc), Data(sd), sendtype, recvbuf, Data(rc),
                                 Data(rd), recvtype, comm);
}

#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c
int PMPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  std::vector<int> sc, sd, rc, rd;
  int error = Guard("MPI_Ineighbor_alltoallv_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    const char* call = "MPI_Ineighbor_alltoallv_c";
    sc = Narrow(sendcounts, out, call);
    sd = Narrow(sdispls, out, call);
    rc = Narrow(recvcounts, in, call);
    rd = Narrow(rdispls, in, call);
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Ineighbor_alltoallv_c");
  return PMPI_Ineighbor_alltoallv(sendbuf, Data(sc), Data(sd), sendtype, recvbuf, Data(rc),
                                  Data(rd), recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c
int PMPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm) {
  std::vector<int> sc, rc;
  int error = Guard("MPI_Neighbor_alltoallw_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    sc = Narrow(sendcounts, out, "MPI_Neighbor_alltoallw_c");
    rc = Narrow(recvcounts, in, "MPI_Neighbor_alltoallw_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Neighbor_alltoallw_c");
  return PMPI_Neighbor_alltoallw(sendbuf, Data(sc), sdispls, sendtypes, recvbuf, Data(rc),
                                 rdispls, recvtypes, comm);
}

#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c
int PMPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request* request) {
  std::vector<int> sc, rc;
  int error = Guard("MPI_Ineighbor_alltoallw_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    sc = Narrow(sendcounts, out, "MPI_Ineighbor_alltoallw_c");
    rc = Narrow(recvcounts, in, "MPI_Ineighbor_alltoallw_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Ineighbor_alltoallw_c");
  return PMPI_Ineighbor_alltoallw(sendbuf, Data(sc), sdispls, sendtypes, recvbuf, Data(rc),
                                  rdispls, recvtypes, comm, request);
}

#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c
int PMPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Neighbor_allgather_init_c");
  return PMPI_Neighbor_allgather_init(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm,
                                      info, request);
}

#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c
int PMPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount,
                                  MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  const IntCount a = NarrowCount(sendcount, sendtype);
  const IntCount b = NarrowCount(recvcount, recvtype);
  const CallName name("MPI_Neighbor_alltoall_init_c");
  return PMPI_Neighbor_alltoall_init(sendbuf, a.count, a.type, recvbuf, b.count, b.type, comm,
                                     info, request);
}

#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c
int PMPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void* recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  std::vector<int> counts, disps;
  const IntCount a = NarrowCount(sendcount, sendtype);
  int error = Guard("MPI_Neighbor_allgatherv_init_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    counts = Narrow(recvcounts, in, "MPI_Neighbor_allgatherv_init_c");
    disps = Narrow(displs, in, "MPI_Neighbor_allgatherv_init_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Neighbor_allgatherv_init_c");
  return PMPI_Neighbor_allgatherv_init(sendbuf, a.count, a.type, recvbuf, Data(counts),
                                       Data(disps), recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c
int PMPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                   void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  std::vector<int> sc, sd, rc, rd;
  int error = Guard("MPI_Neighbor_alltoallv_init_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    const char* call = "MPI_Neighbor_alltoallv_init_c";
    sc = Narrow(sendcounts, out, call);
    sd = Narrow(sdispls, out, call);
    rc = Narrow(recvcounts, in, call);
    rd = Narrow(rdispls, in, call);
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Neighbor_alltoallv_init_c");
  return PMPI_Neighbor_alltoallv_init(sendbuf, Data(sc), Data(sd), sendtype, recvbuf, Data(rc),
                                      Data(rd), recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c
int PMPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  std::vector<int> sc, rc;
  int error = Guard("MPI_Neighbor_alltoallw_init_c", comm, [&] {
    int in = 0, out = 0;
    Degrees(comm, &in, &out);
    sc = Narrow(sendcounts, out, "MPI_Neighbor_alltoallw_init_c");
    rc = Narrow(recvcounts, in, "MPI_Neighbor_alltoallw_init_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Neighbor_alltoallw_init_c");
  return PMPI_Neighbor_alltoallw_init(sendbuf, Data(sc), sdispls, sendtypes, recvbuf, Data(rc),
                                      rdispls, recvtypes, comm, info, request);
}

#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c
int PMPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  std::vector<int> counts;
  int error = Guard("MPI_Reduce_scatter_c", comm, [&] {
    counts = Narrow(recvcounts, CommSize(comm), "MPI_Reduce_scatter_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Reduce_scatter_c");
  return PMPI_Reduce_scatter(sendbuf, recvbuf, Data(counts), datatype, op, comm);
}

#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c
int PMPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                           MPI_Request* request) {
  std::vector<int> counts;
  int error = Guard("MPI_Ireduce_scatter_c", comm, [&] {
    counts = Narrow(recvcounts, CommSize(comm), "MPI_Ireduce_scatter_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Ireduce_scatter_c");
  return PMPI_Ireduce_scatter(sendbuf, recvbuf, Data(counts), datatype, op, comm, request);
}

#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c
int PMPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  std::vector<int> counts;
  int error = Guard("MPI_Reduce_scatter_init_c", comm, [&] {
    counts = Narrow(recvcounts, CommSize(comm), "MPI_Reduce_scatter_init_c");
  });
  if (error != MPI_SUCCESS) return error;
  const CallName name("MPI_Reduce_scatter_init_c");
  return PMPI_Reduce_scatter_init(sendbuf, recvbuf, Data(counts), datatype, op, comm, info,
                                  request);
}

// ------------------------------------------------ the rest

#pragma weak MPI_Op_create_c = PMPI_Op_create_c
int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return Guard("MPI_Op_create_c", MPI_COMM_WORLD,
               [&] { *op = bdmpi::OpCreate(user_fn, commute); });
}

#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c
int PMPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  const CallName name("MPI_Status_set_elements_c");
  return PMPI_Status_set_elements_x(status, datatype, count);
}

// The attached buffer holds at most INT_MAX bytes (bsend_buffer.h).
#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  if (size > INT_MAX)
    return Guard("MPI_Buffer_attach_c", MPI_COMM_WORLD, [&] {
      throw Error(bdmpi::kErrBuffer, "MPI_Buffer_attach_c: a buffer of more than INT_MAX "
                                     "bytes is not supported");
    });
  const CallName name("MPI_Buffer_attach_c");
  return PMPI_Buffer_attach(buffer, static_cast<int>(size));
}

#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c
int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  const CallName name("MPI_Buffer_detach_c");
  int narrow = 0;
  int error = PMPI_Buffer_detach(buffer_addr, &narrow);
  if (error == MPI_SUCCESS) *size = narrow;
  return error;
}

#pragma weak MPI_File_get_type_extent_c = PMPI_File_get_type_extent_c
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  const CallName name("MPI_File_get_type_extent_c");
  MPI_Aint wide = 0;
  int error = PMPI_File_get_type_extent(fh, datatype, &wide);
  if (error == MPI_SUCCESS) *extent = wide;
  return error;
}

// A displacement unit beyond INT_MAX: MPI_ERR_DISP from the int call.
namespace {
int DispUnit(MPI_Aint disp_unit) {
  return disp_unit > INT_MAX || disp_unit < INT_MIN ? -1 : static_cast<int>(disp_unit);
}
}  // namespace

#pragma weak MPI_Win_create_c = PMPI_Win_create_c
int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                      MPI_Comm comm, MPI_Win* win) {
  const CallName name("MPI_Win_create_c");
  return PMPI_Win_create(base, size, DispUnit(disp_unit), info, comm, win);
}

#pragma weak MPI_Win_allocate_c = PMPI_Win_allocate_c
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void* baseptr, MPI_Win* win) {
  const CallName name("MPI_Win_allocate_c");
  return PMPI_Win_allocate(size, DispUnit(disp_unit), info, comm, baseptr, win);
}

#pragma weak MPI_Win_allocate_shared_c = PMPI_Win_allocate_shared_c
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void* baseptr, MPI_Win* win) {
  const CallName name("MPI_Win_allocate_shared_c");
  return PMPI_Win_allocate_shared(size, DispUnit(disp_unit), info, comm, baseptr, win);
}

#pragma weak MPI_Win_shared_query_c = PMPI_Win_shared_query_c
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                            void* baseptr) {
  const CallName name("MPI_Win_shared_query_c");
  int unit = 0;
  int error = PMPI_Win_shared_query(win, rank, size, &unit, baseptr);
  if (error == MPI_SUCCESS) *disp_unit = unit;
  return error;
}

}  // extern "C"
