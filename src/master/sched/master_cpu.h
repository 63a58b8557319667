// The processor a master pins itself to (with --bind): the one it runs on,
// unless other masters of the same launch share this host (several nodes
// on one machine, -nn 2 in tests and benchmarks). Each would then pin
// itself, and with -nr 1 its slaves, to whatever processor it started on,
// the same one for all: both masters, their network threads and slaves
// would take turns on CPU 0 while the other processors idled (measured:
// a -nn 2 ping-pong cost 3x the -nr 1 one). So a master that knows its
// rank among the masters of its host (Open MPI's
// OMPI_COMM_WORLD_LOCAL_RANK, Slurm's SLURM_LOCALID) takes the processor
// of that rank among those it may use, round robin. One master per host
// (-nn 1, or one node per machine) stays where it is.
#pragma once

#include <sched.h>

namespace bdmpi {

// Pure, for tests: `allowed` the processors the master may use, `current`
// the one it runs on, `local_rank` its rank among its host's masters or
// -1 when unknown, `local_size` their count (-1 when unknown: a local rank
// alone is taken to mean several masters; Slurm's count of tasks per node
// may be a list).
int ChooseMasterCpu(const cpu_set_t& allowed, int current, int local_rank, int local_size);

// The processor for this master, from the environment and its affinity.
int MasterCpu();

// The masters of this host (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE, Slurm's
// SLURM_TASKS_PER_NODE when it is one number), 1 when unknown.
int LocalMasterCount();

// -nr auto (common/job_options.h): a node runs as many ranks at once as
// it has cores, shared among the masters of its host (several nodes on
// one machine), at least one and at most its ranks. `cores`: those the
// master may use.
int AutoRunningSlots(int cores, int local_masters, int nslaves);

}  // namespace bdmpi
