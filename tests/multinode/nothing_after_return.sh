#!/usr/bin/env bash
# nothing_after_return.sh BDMPIEXEC MPIRUN PROGRAM
#
# When bdmpiexec returns, no process of its job is left on the node: its
# masters are held for 1.5 s after they removed their liveness files (a
# test hook, BDMPI_TEST_PAUSE_BEFORE_EXIT_MS), which bdmpiexec used to take
# for the job's end. Three launches of PROGRAM: on one node (the master is
# bdmpiexec's child), on 2 nodes through mpirun, and on 2 nodes through a
# launcher that returns at once (early_mpirun.sh). Each must end with 0,
# within a bound, and leave nothing, checked at once.
set -uo pipefail
here=$(dirname "$0")
source "$here/left_nothing.sh"
source "$here/fail_running_job.sh"
bdmpiexec=$1 mpirun=$2 program=$3
scratch=$(mktemp -d)
out=$(mktemp -d)
log=$out/log
trap 'rm -rf "$scratch" "$out"' EXIT
# shellcheck disable=SC2034  # fail's (fail_running_job.sh): no job in the background
launcher=

# run_and_check NAME NODES [ENV...]
run_and_check() {
  local name=$1 nodes=$2 job=after$$$1 start status elapsed
  shift 2
  start=$EPOCHREALTIME
  env BDMPI_TEST_PAUSE_BEFORE_EXIT_MS=1500 "$@" timeout -k 5 30 "$bdmpiexec" -nn "$nodes" \
    -ns 2 -nr 1 --job-id "$job" --scratch-dir "$scratch" "$program" >"$log" 2>&1
  status=$?
  elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  expect_nothing_left "$job" "$scratch"
  ((status == 0)) || fail "$name: the job exited $status"
  awk -v e="$elapsed" 'BEGIN { exit !(e < 15) }' || fail "$name: the job took ${elapsed} s"
  echo "PASS: $name: bdmpiexec returned after ${elapsed} s with nothing of the job left"
}

run_and_check one_node 1
run_and_check mpirun 2
run_and_check early_launcher 2 BDMPI_MPIRUN="$here/early_mpirun.sh" REAL_MPIRUN="$mpirun"
