// The slave's half of MPI_Bcast: the root stages its buffer once (packed
// when its type has gaps) and goes on (the data is buffered); every other
// rank receives it when it runs, its buffer dead while it waits
// (CallOverwriting).
#include <string>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/coll/collectives.h"
#include "slave/coll/engine.h"
#include "slave/coll/node_coll.h"
#include "slave/coll/nbc_inter.h"
#include "slave/coll/nbc_plans.h"
#include "slave/comm/cross_job.h"
#include "slave/memory/dead_pages.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void CheckRoot(const CommInfo& comm, int root) {
  if (root < 0 || root >= comm.size)
    throw Error(kErrRoot, "root " + std::to_string(root) + " is not in [0, " +
                              std::to_string(comm.size) + ")");
}

// Waits for a collective's result at the master, the whole pages of
// [buffer, buffer + bytes) dead meanwhile (memory/dead_pages.h): the result
// overwrites them, so a switch-out neither writes them back nor has them
// read back. `bytes` 0 for a buffer with gaps.
ReplyMsg CallOverwriting(const RequestMsg& request, void* buffer, std::uint64_t bytes) {
  return memory::WaitWithDead([&](memory::DeadWhileWaiting& dead) { dead.Add(buffer, bytes); },
                              [&] { return Runtime::Instance()->Call(request); });
}

void Bcast(void* buffer, int count, MPI_Datatype datatype, int root,
           MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.cross) return CrossBcast(comm, buffer, count, datatype, root);
  // On an intercommunicator the ranks that pass MPI_PROC_NULL need pass no
  // valid datatype: its plan checks what counts.
  std::uint64_t bytes = comm.inter ? 0 : WireBytes(count, datatype);
  CollEngine engine = SelectEngine(CollKind::kBcast, comm, false, bytes).engine;
  if (engine == CollEngine::kInter)
    return RunBlocking(InterBcastPlan(buffer, count, datatype, root, comm));
  if (engine == CollEngine::kSchedule)
    return RunBlocking(BcastPlan(buffer, count, datatype, root, comm_handle));
  CheckRoot(comm, root);
  if (engine == CollEngine::kNode) return NodeBcast(buffer, count, datatype, root, comm);
  if (comm.size == 1) return;
  Runtime* runtime = Runtime::Instance();
  RequestMsg request;
  request.type = MsgType::kBcast;
  request.comm = comm.id;
  request.rank = comm.rank;
  request.peer = root;
  if (comm.rank == root) {
    WireData wire = ToWire(buffer, count, datatype);
    runtime->StagePayload(wire.data, wire.bytes, request);
    runtime->PostStaged(request);
    return;
  }
  request.bytes = bytes;
  const TypeInfo& type = LookupType(datatype);
  ReplyMsg reply = CallOverwriting(request, buffer, type.Dense() ? bytes : 0);
  FetchInto(reply, buffer, count, type.Dense() ? nullptr : &type, bytes);
  if (reply.error != MPI_SUCCESS)
    throw Error(reply.error, "the root broadcasts more data than count holds");
}

}  // namespace bdmpi
