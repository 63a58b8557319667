#!/bin/bash
# A Slurm batch script that runs an MPI program out of core with BDMPI.
#
#   sbatch -N 4 examples/slurm/bdmpi_job.sh [PROGRAM [ARGS...]]
#
# Inside the allocation bdmpiexec starts one master per node with
# `srun --mpi=pmix` (one task per node; -nn defaults to the node count) and
# each master starts -ns slaves, of which -nr run at a time. The rack of each
# node comes from SLURM_TOPOLOGY_ADDR when Slurm's topology/tree plugin is on.
#
#SBATCH --job-name=bdmpi
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:10:00
#SBATCH --output=bdmpi-%j.out
set -euo pipefail

# Where BDMPI and the program live; the same path must exist on every node.
BDMPIEXEC=${BDMPIEXEC:-bdmpiexec}
SLAVES_PER_NODE=${SLAVES_PER_NODE:-8}
RUNNING_PER_NODE=${RUNNING_PER_NODE:-1}
# Spill files go to node-local disk; Slurm's per-job TMPDIR if it has one.
SCRATCH=${BDMPI_SCRATCH_DIR:-${TMPDIR:-/tmp}}

if [[ $# -eq 0 ]]; then
  echo "usage: sbatch -N NODES $0 PROGRAM [ARGS...]" >&2
  exit 2
fi

echo "bdmpi job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NUM_NODES:-1} node(s): ${SLURM_JOB_NODELIST:-$(hostname)}"
exec "$BDMPIEXEC" -ns "$SLAVES_PER_NODE" -nr "$RUNNING_PER_NODE" \
  --scratch-dir "$SCRATCH" "$@"
