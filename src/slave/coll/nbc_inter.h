// Collectives on intercommunicators (MPI-3.1 5.2.2) as one-round schedules
// (nbc.h), serving their blocking, nonblocking and persistent forms. The
// messages travel on the collective twin of the hidden communicator of both
// groups (intercomm.h), which carries nothing else. Rooted ones: the root
// passes MPI_ROOT, the rest of its group MPI_PROC_NULL, the other group the
// root's rank in the remote group. Results come from the remote group:
// an allreduce gives each group the reduction of the other's data. The
// algorithms are direct: a rank sends its data to every remote rank that
// needs it (n_a * n_b messages for the all-to-all kinds), and reductions
// fold the remote group's contributions in rank order.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "slave/coll/coll_p2p.h"
#include "slave/coll/nbc.h"
#include "slave/coll/nbc_blocks.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

CollectivePlan InterBarrierPlan(const CommInfo& comm);
CollectivePlan InterBcastPlan(void* buffer, int count, MPI_Datatype datatype, int root,
                              const CommInfo& comm);
// `blocks`: the root's, one for each remote rank (empty elsewhere).
CollectivePlan InterGatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                               Blocks blocks, int root, const CommInfo& comm);
CollectivePlan InterScatterPlan(const void* send, Blocks blocks, void* recv, int recvcount,
                                MPI_Datatype recvtype, int root, const CommInfo& comm);
// `blocks`: one for each remote rank.
CollectivePlan InterAllgatherPlan(const void* send, int sendcount, MPI_Datatype sendtype,
                                  void* recv, Blocks blocks, const CommInfo& comm);
CollectivePlan InterAlltoallPlan(const void* send, Blocks sblocks, void* recv, Blocks rblocks,
                                 const CommInfo& comm);
CollectivePlan InterReducePlan(const void* send, void* recv, int count, MPI_Datatype datatype,
                               MPI_Op op, int root, const CommInfo& comm);
CollectivePlan InterAllreducePlan(const void* send, void* recv, int count, MPI_Datatype datatype,
                                  MPI_Op op, const CommInfo& comm);
// MPI_Reduce_scatter(_block): the reduction of the remote group's vectors
// (sum of `counts` elements, the same total in both groups) is scattered
// in blocks of `counts` (the local group's) among the local group. The
// sender does not know how the remote group splits it, so every rank sends
// its whole vector to every remote rank.
CollectivePlan InterReduceScatterPlan(const void* send, void* recv, std::vector<int> counts,
                                      MPI_Datatype datatype, MPI_Op op, const CommInfo& comm);

}  // namespace bdmpi
