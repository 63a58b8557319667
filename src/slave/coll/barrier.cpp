#include "common/protocol.h"
#include "slave/coll/collectives.h"
#include "slave/coll/engine.h"
#include "slave/coll/node_coll.h"
#include "slave/coll/nbc_plans.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/intercomm.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void Barrier(MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.cross) return CrossBarrier(comm);
  CollEngine engine = SelectEngine(CollKind::kBarrier, comm).engine;
  if (engine == CollEngine::kInter) return IntercommBarrier(comm_handle);
  if (engine == CollEngine::kSchedule) return RunBlocking(BarrierPlan(comm_handle));
  if (engine == CollEngine::kNode) return NodeBarrier(comm);
  if (comm.size == 1) return;
  RequestMsg request;
  request.type = MsgType::kBarrier;
  request.comm = comm.id;
  request.rank = comm.rank;
  Runtime::Instance()->Call(request);
}

}  // namespace bdmpi
