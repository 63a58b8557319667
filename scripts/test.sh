#!/usr/bin/env bash
# Quick start, part 2: installs what is missing, builds BDMPI in ./build and
# runs every test. Extra arguments go to ctest (e.g. -R job, -L unit, -V).
#
#   scripts/test.sh --sanitize address [ctest arguments]
#
# builds with AddressSanitizer and UndefinedBehaviorSanitizer in its own
# directory (build-asan; --sanitize undefined|thread: build-ubsan,
# build-tsan) and runs the unit tests and a representative set of job
# tests, or what the ctest arguments select.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

sanitize=""
if [[ ${1:-} == --sanitize ]]; then
  sanitize=${2:?"--sanitize needs address, undefined or thread"}
  shift 2
fi

# Jobs carry unique ids, so two tests may run at once (three at a time on
# two cores made each test a quarter slower and the run no shorter);
# CTEST_PARALLEL_LEVEL or a -j among the arguments overrides this.
parallel=()
[[ -n ${CTEST_PARALLEL_LEVEL:-} ]] || parallel=(-j2)

if [[ -z $sanitize ]]; then
  bdmpi_setup
  exec ctest --test-dir "$BDMPI_BUILD_DIR" --output-on-failure "${parallel[@]}" "$@"
fi

# shellcheck source=scripts/sanitizers/sanitize.sh
source scripts/sanitizers/sanitize.sh
bdmpi_sanitize_setup "$sanitize"
bdmpi_setup
if [[ $# -gt 0 ]]; then
  exec ctest --test-dir "$BDMPI_BUILD_DIR" --output-on-failure "${parallel[@]}" "$@"
fi
ctest --test-dir "$BDMPI_BUILD_DIR" --output-on-failure "${parallel[@]}" \
  -L unit -LE heavy
ctest --test-dir "$BDMPI_BUILD_DIR" --output-on-failure "${parallel[@]}" \
  -R "$BDMPI_SANITIZE_JOBS"
