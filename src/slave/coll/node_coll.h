// The node engine (common/coll_engine.h; when slave/coll/engine.cpp's
// rule chooses it, or forced): barriers, broadcasts and allreduces among
// ranks of a node that run at once, as point-to-point messages on the
// communicator's collective twin, so that they take the direct path (slave/p2p/direct_path.h): a member writes its
// part straight into the receive the hub has published, and the hub writes
// the answer into each member's, without the master. Rank 0 (a broadcast's
// root) is the hub: every other member sends it its part, it folds the
// parts in rank order (the masters' order: results do not depend on the
// engine) and sends each the result; a barrier is the same with no data.
// A member that is not resident, or not running when its message comes,
// gets it through the master as any message: nobody is made to run early,
// and a rank blocked there is named in its collective (the tags below,
// common/coll_engine.h).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "slave/coll/coll_p2p.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

void NodeBarrier(const CommInfo& comm);
void NodeBcast(void* buffer, int count, MPI_Datatype datatype, int root, const CommInfo& comm);
void NodeAllreduce(const void* send, void* recv, int count, MPI_Datatype datatype,
                   const CheckedOp& op, const CommInfo& comm);

}  // namespace bdmpi
