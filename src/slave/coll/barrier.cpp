#include "common/protocol.h"
#include "slave/coll/collectives.h"
#include "slave/comm/intercomm.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void Barrier(MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.inter) return IntercommBarrier(comm_handle);
  if (comm.size == 1) return;
  RequestMsg request;
  request.type = MsgType::kBarrier;
  request.comm = comm.id;
  request.rank = comm.rank;
  Runtime::Instance()->Call(request);
}

}  // namespace bdmpi
