#!/usr/bin/env bash
# leftovers.sh BDMPIEXEC LONG_BCAST PROGRAM
#
# A job is killed so that it cannot clean up: bdmpiexec and its master both
# get SIGKILL (the ranks follow their master). What it left (queues, shared
# memory, the payload segments in its memory directory, its spill directory)
# must be removed by the next bdmpiexec on the
# node, which says so; a job that is still running is not touched.
source "$(dirname "$0")/lib.sh"
require_root
bdmpiexec=$1 program=$2 quick=$3
live=${job}live
next=${job}next
trap 'on_exit; remove_job "$live"; remove_job "$next"' EXIT

start_job dead "$bdmpiexec" -ns 3 --job-id "$job" --scratch-dir "$scratch" "$program" 30
start_job live "$bdmpiexec" -ns 2 --job-id "$live" --scratch-dir "$scratch" "$program" 4
ranks_running() { (($(job_processes "$job" | wc -l) >= 5)); }
wait_for 10 ranks_running || fail "the job did not start"
sleep 0.5
master=$(pgrep -f -- "bdmprun --job-id $job ")
kill -KILL "$pid_dead" $master
{ wait "$pid_dead"; } 2>/dev/null
no_processes() { [[ -z $(job_processes "$job") ]]; }
wait_for 10 no_processes || fail "processes of the killed job outlived it"
[[ -n $(ipc_objects "$job") && -n $(scratch_dirs "$job") ]] ||
  fail "the killed job left nothing: this test cannot check the collection"
# Its 4 MiB broadcasts were in payload segments (memory files) when it died.
[[ -n $(find /dev/shm/bdmpi-"$job"-n0-payloads-* -type f 2>/dev/null) ]] ||
  fail "the killed job left no payload segments: this test cannot check their collection"

start_job next "$bdmpiexec" -ns 2 --job-id "$next" --scratch-dir "$scratch" "$quick"
finish_job next
expect_exit "the next job" 0
expect_output next "bdmpiexec: removed [0-9]+ leftover object\\(s\\) of job $job \\(node 0\\), whose processes are all gone"
expect_no_output next "of job $live"
expect_nothing_left "$job"
expect_nothing_left "$next"
finish_job live
expect_exit "the job running meanwhile" 0
expect_output live "long_bcast: [0-9]+ rounds"
expect_nothing_left "$live"
echo "PASS: $(grep -m1 'leftover' "$logs/next")"
