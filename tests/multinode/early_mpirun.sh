#!/usr/bin/env bash
# early_mpirun.sh ARGS...: a launcher that returns before the job's masters
# are gone, as an mpirun or srun may after a failure. Starts Open MPI's
# mpirun ($REAL_MPIRUN) with ARGS in the background and returns 0 half a
# second later; bdmpiexec uses it through BDMPI_MPIRUN.
"${REAL_MPIRUN:?}" "$@" &
sleep 0.5
