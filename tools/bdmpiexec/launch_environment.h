// The environment bdmpiexec starts the masters (or mpirun/srun) with, and
// the check that it is not itself started by one of them
// (common/launch_guard.h).
#pragma once

namespace bdmpi {

// Throws Error(kErrArg) when this bdmpiexec runs inside a BDMPI launch
// (BDMPI_IN_LAUNCH is set): started by bdmprun, mpirun, orted or srun of
// another bdmpiexec, it would start that launch again, and so on without
// end. Called first thing, before the options are read.
void RefuseNestedLaunch();

// Marks this process's environment as a launch's (BDMPI_IN_LAUNCH), drops
// a singleton start's mark, and moves LD_PRELOAD (after -x and --env are
// set) to BDMPI_RANKS_LD_PRELOAD: a preload for the ranks must not reach
// mpirun, orted, srun or bdmprun. The masters hand it to the ranks.
void PrepareLaunchEnvironment();

}  // namespace bdmpi
