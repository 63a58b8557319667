// The slave's half of MPI_Reduce and MPI_Allreduce: each rank stages its
// contribution, the master reduces (src/master/reduce.cpp), and the ranks
// that need the result wait for it.
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/handles.h"
#include "common/protocol.h"
#include "common/reduce.h"
#include "slave/collectives.h"
#include "slave/errors.h"
#include "slave/objects.h"
#include "slave/runtime.h"

namespace bdmpi {

void CheckRoot(const CommInfo& comm, int root);  // bcast.cpp

namespace {

OpId CheckOp(MPI_Op op, MPI_Datatype datatype) {
  DatatypeId type = ReductionBase(datatype);
  int index = HandleIndex(op);
  OpId id = static_cast<OpId>(index);
  // MPI_REPLACE and MPI_NO_OP exist for one-sided accumulate only.
  if (!HandleIs(op, HandleKind::kOp) || index == 0 ||
      index >= static_cast<int>(OpId::kPredefinedEnd) || id == OpId::kReplace ||
      id == OpId::kNoOp)
    throw Error(kErrOp, "invalid reduction operation");
  if (!ReductionDefined(id, type))
    throw Error(kErrOp, std::string("the operation is not defined on ") +
                            FindPredefinedDatatype(type)->name);
  return id;
}

// Common part: validate, handle one rank alone, stage the contribution.
// Returns false when there is nothing more to do.
bool Contribute(MsgType type, const void* send, void* recv, int count,
                MPI_Datatype datatype, MPI_Op op, int root,
                const CommInfo& comm, RequestMsg& request) {
  std::uint64_t bytes = BufferBytes(count, datatype);
  OpId op_id = CheckOp(op, datatype);
  bool gets_result = type == MsgType::kAllreduce || comm.rank == root;
  if (send == MPI_IN_PLACE) {
    if (!gets_result)
      throw Error(kErrBuffer, "MPI_IN_PLACE is only valid at the root");
    send = recv;
  }
  if (comm.size == 1) {
    if (send != recv && bytes > 0) std::memmove(recv, send, bytes);
    return false;
  }
  request.type = type;
  request.comm = comm.id;
  request.rank = comm.rank;
  request.peer = root;
  request.datatype = static_cast<std::uint16_t>(ReductionBase(datatype));
  request.op = static_cast<std::uint16_t>(op_id);
  Runtime::Instance()->StagePayload(send, bytes, request);
  return true;
}

void AwaitResult(RequestMsg& request, void* recv) {
  Runtime* runtime = Runtime::Instance();
  std::uint64_t bytes = request.bytes;
  ReplyMsg reply = runtime->Call(request);
  runtime->FetchPayload(reply, recv, bytes);
}

}  // namespace

void Reduce(const void* send, void* recv, int count, MPI_Datatype datatype,
            MPI_Op op, int root, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  CheckRoot(comm, root);
  RequestMsg request;
  if (!Contribute(MsgType::kReduce, send, recv, count, datatype, op, root, comm,
                  request))
    return;
  if (comm.rank == root) {
    AwaitResult(request, recv);
  } else {
    Runtime::Instance()->PostStaged(request);
  }
}

void Allreduce(const void* send, void* recv, int count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  RequestMsg request;
  if (!Contribute(MsgType::kAllreduce, send, recv, count, datatype, op, 0, comm,
                  request))
    return;
  AwaitResult(request, recv);
}

}  // namespace bdmpi
