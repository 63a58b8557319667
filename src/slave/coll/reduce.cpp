// The slave's half of MPI_Reduce and MPI_Allreduce: each rank stages its
// contribution, the master reduces (src/master/coll/reduce.cpp), and the ranks
// that need the result wait for it. User-defined operations are reduced in
// the slaves instead (ReducePlan, nbc_reduce.cpp); engine.h picks which.
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/handles.h"
#include "common/protocol.h"
#include "common/reduce.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/collectives.h"
#include "slave/coll/engine.h"
#include "slave/coll/node_coll.h"
#include "slave/coll/nbc_inter.h"
#include "slave/coll/nbc_plans.h"
#include "slave/comm/cross_job.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void CheckRoot(const CommInfo& comm, int root);  // bcast.cpp
ReplyMsg CallOverwriting(const RequestMsg& request, void* buffer, std::uint64_t bytes);

namespace {

// Common part: validate, handle one rank alone, stage the contribution.
// Returns false when there is nothing more to do.
// `wire` keeps the (packed) contribution until the request is posted.
// `everyone`: every member gets the result (MPI_Allreduce), else the root.
bool Contribute(MsgType type, bool everyone, const void* send, void* recv, int count,
                MPI_Datatype datatype, MPI_Op op, int root,
                const CommInfo& comm, RequestMsg& request, WireData& wire) {
  WireBytes(count, datatype);
  OpId op_id = CheckOp(op, datatype).predefined;
  bool gets_result = everyone || comm.rank == root;
  if (send == MPI_IN_PLACE) {
    if (!gets_result)
      throw Error(kErrBuffer, "MPI_IN_PLACE is only valid at the root");
    send = recv;
  }
  if (comm.size == 1) {
    CopyElements(send, recv, count, datatype);
    return false;
  }
  request.type = type;
  request.comm = comm.id;
  request.rank = comm.rank;
  request.peer = root;
  request.datatype = static_cast<std::uint16_t>(ReductionBase(datatype));
  request.op = static_cast<std::uint16_t>(op_id);
  wire = ToWire(send, count, datatype);
  Runtime::Instance()->StagePayload(wire.data, wire.bytes, request);
  return true;
}

bool UserDefined(int count, MPI_Datatype datatype, MPI_Op op) {
  WireBytes(count, datatype);
  return CheckOp(op, datatype).UserDefined();
}

// The contribution is staged (copied out of the buffer, in place too):
// the result overwrites `recv` whole.
void AwaitResult(RequestMsg& request, void* recv, int count, MPI_Datatype datatype) {
  std::uint64_t bytes = request.bytes;
  const TypeInfo& type = LookupType(datatype);
  ReplyMsg reply = CallOverwriting(request, recv, type.Dense() ? bytes : 0);
  FetchInto(reply, recv, count, type.Dense() ? nullptr : &type, bytes);
}

}  // namespace

void Reduce(const void* send, void* recv, int count, MPI_Datatype datatype,
            MPI_Op op, int root, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.cross) return CrossReduce(comm, send, recv, count, datatype, op, root);
  if (!comm.inter) CheckRoot(comm, root);
  bool user_op = !comm.inter && UserDefined(count, datatype, op);
  CollEngine engine = SelectEngine(CollKind::kReduce, comm, user_op).engine;
  if (engine == CollEngine::kInter)
    return RunBlocking(InterReducePlan(send, recv, count, datatype, op, root, comm));
  if (engine == CollEngine::kSchedule) {
    RunBlocking(ReducePlan(send, recv, count, datatype, op, root, comm_handle));
    return;
  }
  RequestMsg request;
  WireData wire;
  if (!Contribute(MsgType::kReduce, /*everyone=*/false, send, recv, count, datatype, op, root, comm,
                  request, wire))
    return;
  if (comm.rank == root) {
    AwaitResult(request, recv, count, datatype);
  } else {
    Runtime::Instance()->PostStaged(request);
  }
}

void Allreduce(const void* send, void* recv, int count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.cross) return CrossAllreduce(comm, send, recv, count, datatype, op);
  bool user_op = !comm.inter && UserDefined(count, datatype, op);
  CollEngine engine =
      SelectEngine(CollKind::kAllreduce, comm, user_op, comm.inter ? 0 : WireBytes(count, datatype))
          .engine;
  if (engine == CollEngine::kInter)
    return RunBlocking(InterAllreducePlan(send, recv, count, datatype, op, comm));
  if (engine == CollEngine::kSchedule) {
    RunBlocking(AllreducePlan(send, recv, count, datatype, op, comm_handle));
    return;
  }
  if (engine == CollEngine::kNode)
    return NodeAllreduce(send, recv, count, datatype, CheckOp(op, datatype), comm);
  if (engine == CollEngine::kFoldBcast) {
    // Rank 0 folds (n messages rather than AllreducePlan's n^2), then
    // broadcasts.
    if (send == MPI_IN_PLACE) send = recv;  // valid at every rank here
    RunBlocking(ReducePlan(send, recv, count, datatype, op, 0, comm_handle));
    Bcast(recv, count, datatype, 0, comm_handle);
    return;
  }
  RequestMsg request;
  WireData wire;
  if (!Contribute(MsgType::kAllreduce, /*everyone=*/true, send, recv, count, datatype, op, 0, comm,
                  request, wire))
    return;
  AwaitResult(request, recv, count, datatype);
}

}  // namespace bdmpi
