#!/usr/bin/env bash
# The multi-node tests on the emulated cluster (root only): installs what is
# missing (including Slurm), builds BDMPI in ./build, brings up 4 emulated
# hosts with ../shared/cluster/vcluster, runs job tests with one master per
# host (mpirun) and a Slurm batch job (sbatch + srun), and takes the cluster
# down again. VCLUSTER names another vcluster script.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

bdmpi_setup
exec tests/cluster/run_cluster_tests.sh "$BDMPI_BUILD_DIR"
