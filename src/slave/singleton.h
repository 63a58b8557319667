// A program linked with libbdmpi and started directly (./prog args, not
// under bdmpiexec) becomes a job of one rank, as with Open MPI's and
// MPICH's singleton MPI_Init.
#pragma once

namespace bdmpi {

// Returns when this process is a rank that bdmpiexec started. Otherwise
// replaces the process with `bdmpiexec -nn 1 -ns 1 -nr 1 <this program and
// its arguments>` and never returns; throws when bdmpiexec cannot be run.
void BecomeSingletonJobUnlessLaunched();

}  // namespace bdmpi
