#!/usr/bin/env bash
# same_id.sh same|different BDMPIEXEC LONG_BCAST
#
# Job A runs checked 4 MiB broadcasts until B has ended; once A's master
# holds the node (its liveness file exists) and A's ranks run, job B starts
# on the same node with the same --job-id (same) or another (different).
# same: B must fail at once saying the id is in use, without removing
# anything of A, and A must finish correctly. different: both finish
# correctly. Nothing of either is left.
source "$(dirname "$0")/lib.sh"
require_root
mode=$1 bdmpiexec=$2 program=$3
case $mode in
  same) job_b=$job ;;
  different) job_b=${job}b ;;
  *) echo "usage: $0 same|different BDMPIEXEC LONG_BCAST" >&2; exit 2 ;;
esac
trap 'on_exit; remove_job "$job_b"' EXIT

# A's liveness file: its master holds the node.
a_is_live() { [[ $(ipc_objects "$job") == *-live-* ]]; }

start_job a "$bdmpiexec" -ns 4 --job-id "$job" --scratch-dir "$scratch" "$program" 1 "$logs/stop_a"
# On a loaded machine a launch takes seconds: B must start while A runs.
wait_for 60 a_is_live || fail "job A's master did not start within 60 s"
sleep 1
start_job b "$bdmpiexec" -ns 2 --job-id "$job_b" --scratch-dir "$scratch" "$program" 1
finish_job b
touch "$logs/stop_a"
if [[ $mode == same ]]; then
  expect_exit "job B" nonzero
  expect_output b "job id $job is in use on this node by another job"
  expect_within "job B" 10
else
  expect_exit "job B" 0
  expect_output b "long_bcast: [0-9]+ rounds"
fi
finish_job a
expect_exit "job A" 0
expect_output a "long_bcast: [0-9]+ rounds"
# Only what names A: A's launcher may also collect what a dead job of
# another test left ("removed N leftover object(s) of job <other>").
expect_no_output a "No such file|leftover object\\(s\\) of job $job "
expect_nothing_left "$job"
expect_nothing_left "$job_b"
echo "PASS ($mode): A: $(grep rounds "$logs/a"); B: $(grep -m1 -E 'rounds|in use' "$logs/b")"
