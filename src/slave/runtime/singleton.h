// A program linked with libbdmpi and started directly (./prog args, not
// under bdmpiexec) becomes a job of one rank, as with Open MPI's and
// MPICH's singleton MPI_Init.
#pragma once

namespace bdmpi {

// Throws when this process is not one libbdmpi may act in: a process of a
// BDMPI launch (bdmprun, mpirun, orted, srun: BDMPI_IN_LAUNCH is set, see
// common/launch_guard.h), bdmprun or bdmpiexec themselves, or a program
// that has another MPI library (Open MPI's libmpi: bdmprun, or a program
// of another MPI that a preload reached). Called first by MPI_Init.
void RefuseOutsideRank();

// Returns when this process is a rank that bdmpiexec started. Otherwise
// replaces the process with `bdmpiexec -nn 1 -ns 1 -nr 1 <this program and
// its arguments>` and never returns; throws when bdmpiexec cannot be run,
// and, instead of starting a job, when the process descends from a rank
// (BDMPI_MASTER_PID is set) or from a singleton start whose launcher was not
// bdmpiexec (BDMPI_SINGLETON_START is still set).
void BecomeSingletonJobUnlessLaunched();

}  // namespace bdmpi
