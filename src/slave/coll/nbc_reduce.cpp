// The reductions as one-round schedules (nbc.h): every rank sends its
// contribution, as wire bytes, to the ranks whose result needs it, and
// each of those folds what it receives strictly in rank order,
// x_0 op x_1 op ... (the order MPI defines for non-commutative operations),
// holding an accumulator and one incoming contribution.
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/fold.h"
#include "slave/coll/nbc_inter.h"
#include "slave/coll/nbc_plans.h"
#include "slave/comm/intercomm.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void CheckRoot(const CommInfo& comm, int root);  // bcast.cpp

namespace {

using Bytes = std::vector<std::byte>;


// Adds the steps that fold the contributions of `sources` (increasing
// ranks; this rank's own, `own`, at its place) and then writes the result.
void FoldSteps(Schedule& schedule, int tag, const std::vector<int>& sources,
               std::shared_ptr<Fold> fold, std::shared_ptr<const Bytes> own, void* recv, int count,
               std::shared_ptr<const TypeInfo> layout) {
  for (int r : sources) {
    if (r == schedule.rank()) {
      schedule.Then([fold, own] { fold->Add(*own); });
    } else {
      schedule.Recv(r, tag, fold->bytes(),
                    [fold, r](const ReplyMsg& reply) { fold->Receive(reply, r); });
    }
  }
  schedule.Then([fold, recv, count, layout] {
    if (!fold->empty()) WriteWire(fold->result(), recv, count, layout.get());
  });
}

std::vector<int> Ranks(int from, int to) {
  std::vector<int> ranks;
  for (int r = from; r < to; ++r) ranks.push_back(r);
  return ranks;
}

struct CheckedReduction {
  const CommInfo& comm;
  CheckedOp op;
};

CheckedReduction Check(int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  RequireInitialized();
  const CommInfo& info = LookupComm(comm);
  WireBytes(count, datatype);
  return CheckedReduction{info, CheckOp(op, datatype)};
}

// Reduce to `root`, or to every rank when root < 0 (allreduce).
CollectivePlan ReduceTo(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                        int root, MPI_Comm comm_handle) {
  CheckedReduction checked = Check(count, datatype, op, comm_handle);
  const CommInfo& comm = checked.comm;
  bool everyone = root < 0;
  if (!everyone) CheckRoot(comm, root);
  bool gets_result = everyone || comm.rank == root;
  if (send == MPI_IN_PLACE) {
    if (!gets_result) throw Error(kErrBuffer, "MPI_IN_PLACE is only valid at the root");
    send = recv;
  }
  int tag = everyone ? kTagAllreduce : kTagReduce;
  CheckedOp checked_op = checked.op;
  return [=]() {
    Schedule schedule(comm);
    auto own = std::make_shared<const Bytes>(WireCopy(send, count, datatype));
    for (int r = 0; r < comm.size; ++r) {
      if (r != comm.rank && (everyone || r == root))
        schedule.SendBytes(r, tag, own->data(), own->size());
    }
    if (gets_result)
      FoldSteps(schedule, tag, Ranks(0, comm.size),
                std::make_shared<Fold>(checked_op, datatype, count), own, recv, count,
                ScatteredLayout(datatype));
    return schedule;
  };
}

// Scan (inclusive) and exscan: rank r folds x_0 ... x_{r-1} (and x_r).
CollectivePlan Prefix(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm_handle, bool exclusive) {
  CheckedReduction checked = Check(count, datatype, op, comm_handle);
  const CommInfo& comm = checked.comm;
  RequireIntracomm(comm);  // MPI defines no scan across two groups
  if (send == MPI_IN_PLACE) send = recv;
  int tag = exclusive ? kTagIexscan : kTagIscan;
  CheckedOp checked_op = checked.op;
  return [=]() {
    Schedule schedule(comm);
    auto own = std::make_shared<const Bytes>(WireCopy(send, count, datatype));
    for (int r = comm.rank + 1; r < comm.size; ++r)
      schedule.SendBytes(r, tag, own->data(), own->size());
    FoldSteps(schedule, tag, Ranks(0, exclusive ? comm.rank : comm.rank + 1),
              std::make_shared<Fold>(checked_op, datatype, count), own, recv, count,
              ScatteredLayout(datatype));
    return schedule;
  };
}

CollectivePlan ReduceScatterCounts(const void* send, void* recv, std::vector<int> counts,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm_handle) {
  CheckedReduction checked = Check(0, datatype, op, comm_handle);
  const CommInfo& comm = checked.comm;
  std::int64_t total = 0;
  for (int count : counts) {
    WireBytes(count, datatype);
    total += count;
  }
  if (total > std::numeric_limits<int>::max())
    throw Error(kErrCount, "the counts add up to more than an int");
  if (send == MPI_IN_PLACE) send = recv;
  CheckedOp checked_op = checked.op;
  return [=]() {
    Schedule schedule(comm);
    std::uint64_t element = WireBytes(1, datatype);
    Bytes input = WireCopy(send, static_cast<int>(total), datatype);
    std::size_t me = static_cast<std::size_t>(comm.rank);
    std::uint64_t offset = 0, my_offset = 0;
    for (int r = 0; r < comm.size; ++r) {
      std::uint64_t bytes =
          static_cast<std::uint64_t>(counts[static_cast<std::size_t>(r)]) * element;
      if (r != comm.rank) schedule.SendBytes(r, kTagReduceScatter, input.data() + offset, bytes);
      if (r == comm.rank) my_offset = offset;
      offset += bytes;
    }
    std::uint64_t my_bytes = static_cast<std::uint64_t>(counts[me]) * element;
    auto own = std::make_shared<const Bytes>(
        input.begin() + static_cast<std::ptrdiff_t>(my_offset),
        input.begin() + static_cast<std::ptrdiff_t>(my_offset + my_bytes));
    FoldSteps(schedule, kTagReduceScatter, Ranks(0, comm.size),
              std::make_shared<Fold>(checked_op, datatype, counts[me]), own, recv, counts[me],
              ScatteredLayout(datatype));
    return schedule;
  };
}

}  // namespace

CollectivePlan ReducePlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                          int root, MPI_Comm comm) {
  RequireInitialized();
  if (LookupComm(comm).inter)
    return InterReducePlan(send, recv, count, datatype, op, root, LookupComm(comm));
  CheckRoot(LookupComm(comm), root);  // ReduceTo takes -1 for "every rank"
  return ReduceTo(send, recv, count, datatype, op, root, comm);
}

CollectivePlan AllreducePlan(const void* send, void* recv, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm) {
  RequireInitialized();
  if (LookupComm(comm).inter)
    return InterAllreducePlan(send, recv, count, datatype, op, LookupComm(comm));
  return ReduceTo(send, recv, count, datatype, op, -1, comm);
}

CollectivePlan ReduceScatterPlan(const void* send, void* recv, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  RequireInitialized();
  int n = LookupComm(comm).size;
  if (recvcounts == nullptr) throw Error(kErrCount, "no counts given");
  std::vector<int> counts(recvcounts, recvcounts + n);
  if (LookupComm(comm).inter)
    return InterReduceScatterPlan(send, recv, std::move(counts), datatype, op, LookupComm(comm));
  return ReduceScatterCounts(send, recv, std::move(counts), datatype, op, comm);
}

CollectivePlan ReduceScatterBlockPlan(const void* send, void* recv, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  RequireInitialized();
  int n = LookupComm(comm).size;
  std::vector<int> counts(static_cast<std::size_t>(n), recvcount);
  if (LookupComm(comm).inter)
    return InterReduceScatterPlan(send, recv, std::move(counts), datatype, op, LookupComm(comm));
  return ReduceScatterCounts(send, recv, std::move(counts), datatype, op, comm);
}

CollectivePlan ScanPlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm) {
  return Prefix(send, recv, count, datatype, op, comm, /*exclusive=*/false);
}

CollectivePlan ExscanPlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm) {
  return Prefix(send, recv, count, datatype, op, comm, /*exclusive=*/true);
}

void ReduceLocal(const void* in, void* inout, int count, MPI_Datatype datatype, MPI_Op op) {
  RequireInitialized();
  WireBytes(count, datatype);
  ApplyOp(CheckOp(op, datatype), datatype, in, inout, count);
}

}  // namespace bdmpi
