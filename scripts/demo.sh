#!/usr/bin/env bash
# Quick start, part 1: installs what is missing, builds BDMPI in ./build and
# runs the out-of-core demo: 32 ranks of 64 MiB each (2 GiB in all), only one
# of them running at a time. Extra arguments go to the demo (-m MIB_PER_RANK,
# -i ITERATIONS, -x RING_KIB).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

bdmpi_setup

bin=$BDMPI_BUILD_DIR/bin
echo "+ $bin/bdmpiexec -ns 32 -nr 1 $bin/ooc_demo $*"
exec "$bin/bdmpiexec" -ns 32 -nr 1 "$bin/ooc_demo" "$@"
