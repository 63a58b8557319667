#!/bin/bash
# A Slurm batch script that runs an MPI program out of core with BDMPI.
#
#   sbatch -N 4 examples/slurm/bdmpi_job.sh [PROGRAM [ARGS...]]
#
# `mpiexec -n RANKS` is BDMPI's own (bdmpiexec under the standard name):
# inside the allocation it starts one master per node with `srun --mpi=pmix`
# (one task per node; the node count is the allocation's) and each master
# starts RANKS / nodes slaves (the first RANKS % nodes nodes one more), of
# which -nr run at a time. The rack
# of each node comes from SLURM_TOPOLOGY_ADDR when Slurm's topology/tree
# plugin is on.
#
# Do not start the program itself with `srun ./prog`: srun would start each
# task as a BDMPI job of its own, and libbdmpi refuses that at MPI_Init.
#
#SBATCH --job-name=bdmpi
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:10:00
#SBATCH --output=bdmpi-%j.out
set -euo pipefail

# Where BDMPI and the program live; the same path must exist on every node.
# BDMPI's bin directory first in PATH (or `module load bdmpi`) makes
# `mpiexec` BDMPI's.
MPIEXEC=${MPIEXEC:-mpiexec}
RANKS=${RANKS:-$((8 * ${SLURM_JOB_NUM_NODES:-1}))}
RUNNING_PER_NODE=${RUNNING_PER_NODE:-1}
# Spill files go to node-local disk; Slurm's per-job TMPDIR if it has one.
SCRATCH=${BDMPI_SCRATCH_DIR:-${TMPDIR:-/tmp}}

if [[ $# -eq 0 ]]; then
  echo "usage: sbatch -N NODES $0 PROGRAM [ARGS...]" >&2
  exit 2
fi

echo "bdmpi job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NUM_NODES:-1} node(s): ${SLURM_JOB_NODELIST:-$(hostname)}"
exec "$MPIEXEC" -n "$RANKS" -nr "$RUNNING_PER_NODE" --scratch-dir "$SCRATCH" "$@"
