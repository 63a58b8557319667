#!/usr/bin/env bash
# ThreadSanitizer over a rank's threads at MPI_THREAD_MULTIPLE: builds
# libbdmpi, bdmprun, bdmpiexec and the job programs that call MPI from
# several threads with -DBDMPI_SANITIZE=thread in a directory of their own
# (build-tsan, or BDMPI_TSAN_BUILD_DIR), runs their job tests ROUNDS times
# (default 1) and fails when a test fails or any process of them wrote a
# ThreadSanitizer report. Not part of CI, which cannot afford a second
# build: run it after changing src/slave/runtime/threads.* or anything a
# rank's threads share.
#
#   scripts/tsan.sh [ROUNDS] [ctest arguments]
#
# The tests (BDMPI_TSAN_JOBS below): threads_multiple (threads sending,
# receiving, probing and in collectives on their own communicators; one
# rank, more ranks than running slots, two nodes), grequest_threads
# (generalized requests completed by another thread), thread_level. Each
# process writes its reports to <build>/tsan-reports/tsan.<pid>, which the
# script prints and counts. The master is built with the sanitizer too;
# Open MPI (the masters' network thread on two nodes) is not instrumented,
# so what it does is invisible to the sanitizer, not reported.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
# shellcheck source=scripts/sanitizers/sanitize.sh
source scripts/sanitizers/sanitize.sh

rounds=1
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
  rounds=$1
  shift
fi
BDMPI_SANITIZE_BUILD_DIR=${BDMPI_TSAN_BUILD_DIR:-${BDMPI_SANITIZE_BUILD_DIR:-build-tsan}}
bdmpi_sanitize_setup thread

BDMPI_TSAN_JOBS='^job\.(threads_multiple|grequest_threads|thread_level)\.bdmpi\.'
targets=(bdmpi bdmprun bdmpiexec job_threads_multiple job_grequest job_thread_level)

extra=()
read -r -a extra <<<"${BDMPI_CMAKE_ARGS:-}"
cmake -S . -B "$BDMPI_BUILD_DIR" -DCMAKE_BUILD_TYPE="$BDMPI_BUILD_TYPE" "${extra[@]}"
cmake --build "$BDMPI_BUILD_DIR" -j"$(nproc)" --target "${targets[@]}"
bdmpi_prepare_machine

reports=$(realpath "$BDMPI_BUILD_DIR")/tsan-reports
rm -rf "$reports"
mkdir -p "$reports"
# Every process (master, ranks, bdmpiexec) writes its reports to a file of
# its own; a report also ends that process (halt_on_error), so its test
# fails as well.
export TSAN_OPTIONS="${TSAN_OPTIONS}:log_path=$reports/tsan:exitcode=66"

status=0
for ((round = 1; round <= rounds; ++round)); do
  echo "tsan.sh: round $round of $rounds"
  ctest --test-dir "$BDMPI_BUILD_DIR" --output-on-failure -R "$BDMPI_TSAN_JOBS" "$@" ||
    status=1
done
# Reports come after the ctest runs: lists the files found.
mapfile -t found < <(find "$reports" -type f -name 'tsan*' | sort)
if ((${#found[@]} > 0)); then
  for file in "${found[@]}"; do
    echo "==== $file"
    cat "$file"
  done
  echo "tsan.sh: FAIL: ${#found[@]} process(es) wrote ThreadSanitizer reports ($reports)" >&2
  exit 1
fi
if ((status != 0)); then
  echo "tsan.sh: FAIL: a test failed (no ThreadSanitizer report)" >&2
  exit 1
fi
echo "tsan.sh: PASS: $rounds round(s), no ThreadSanitizer report"
