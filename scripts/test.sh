#!/usr/bin/env bash
# Quick start, part 2: installs what is missing, builds BDMPI in ./build and
# runs every test. Extra arguments go to ctest (e.g. -R job, -L unit, -V).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

bdmpi_setup

# Jobs carry unique ids, so two tests may run at once; CTEST_PARALLEL_LEVEL
# or a -j among the arguments overrides this.
parallel=()
[[ -n ${CTEST_PARALLEL_LEVEL:-} ]] || parallel=(-j2)
exec ctest --test-dir "$BDMPI_BUILD_DIR" --output-on-failure "${parallel[@]}" "$@"
