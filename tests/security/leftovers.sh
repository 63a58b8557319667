#!/usr/bin/env bash
# leftovers.sh BDMPIEXEC LONG_BCAST PROGRAM
#
# A job is killed so that it cannot clean up: bdmpiexec and its master both
# get SIGKILL (the ranks follow their master). What it left (queues, shared
# memory, the payload segments in its memory directory, its spill directory)
# must be removed by the next bdmpiexec on the
# node, which says so; a job that is still running is not touched.
#
# Every bdmpiexec collects the dead jobs of its user as it starts, so the
# jobs here run as user nobody: a job of root started meanwhile (another
# test, another user of the host) would take the leftovers first. Should a
# bdmpiexec of nobody's still get there first (this test run twice at
# once), the leftovers are gone before the next job starts: the kill is
# tried again with a new job, up to 3 times.
source "$(dirname "$0")/lib.sh"
require_root
bdmpiexec=$1 program=$2 quick=$3
live=${job}live
next=${job}next
dead_jobs=()
# as_nobody's command itself (not a function): $pid_dead is bdmpiexec's pid.
nobody=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
trap 'on_exit; remove_job "$live"; remove_job "$next"; for d in "${dead_jobs[@]}"; do remove_job "$d"; done' EXIT

start_job live "${nobody[@]}" "$bdmpiexec" -ns 2 --job-id "$live" --scratch-dir "$scratch" "$program" 4

# kill_job ID: starts job ID and kills its bdmpiexec and master; false when
# its leftovers were gone (collected by someone else) before the checks.
kill_job() {
  local dead=$1
  dead_jobs+=("$dead")
  start_job dead "${nobody[@]}" "$bdmpiexec" -ns 3 --job-id "$dead" --scratch-dir "$scratch" \
    "$program" 30
  ranks_running() { (($(job_processes "$dead" | wc -l) >= 5)); }
  wait_for 10 ranks_running || fail "the job did not start"
  sleep 0.5
  master=$(pgrep -f -- "bdmprun --job-id $dead ")
  # Stopped first: killed one after the other, the master may see its
  # launcher die (SIGTERM, its parent-death signal), or bdmpiexec its
  # master, and start the orderly clean-up before its own SIGKILL.
  kill -STOP "$pid_dead" $master
  kill -KILL "$pid_dead" $master
  { wait "$pid_dead"; } 2>/dev/null
  no_processes() { [[ -z $(job_processes "$dead") ]]; }
  wait_for 10 no_processes || fail "processes of the killed job outlived it"
  [[ -n $(ipc_objects "$dead" all) && -n $(scratch_dirs "$dead" all) ]] || return 1
  # Its 4 MiB broadcasts were in payload segments (memory files) when it died.
  [[ -n $(find /dev/shm/bdmpi-"$dead"-n0-payloads-* -type f 2>/dev/null) ]] ||
    fail "the killed job left no payload segments: this test cannot check their collection"
}

collected=
for attempt in 1 2 3; do
  dead=$job
  ((attempt == 1)) || dead=${job}r$attempt
  if ! kill_job "$dead"; then
    echo "attempt $attempt: job $dead's leftovers were collected by another bdmpiexec first"
    continue
  fi
  start_job next "${nobody[@]}" "$bdmpiexec" -ns 2 --job-id "$next" --scratch-dir "$scratch" "$quick"
  finish_job next
  expect_exit "the next job" 0
  expect_no_output next "of job $live"
  expect_nothing_left "$dead" all
  expect_nothing_left "$next" all
  if grep -Eq "bdmpiexec: removed [0-9]+ leftover object\\(s\\) of job $dead \\(node 0\\), whose processes are all gone" \
    "$logs/next"; then
    collected=1
    break
  fi
  echo "attempt $attempt: the next job did not name job $dead (collected by another bdmpiexec first?):"
  cat "$logs/next"
done
[[ -n $collected ]] || fail "no attempt left the next bdmpiexec the killed job's leftovers to collect"
finish_job live
expect_exit "the job running meanwhile" 0
expect_output live "long_bcast: [0-9]+ rounds"
expect_nothing_left "$live" all
echo "PASS: $(grep -m1 'leftover' "$logs/next")"
