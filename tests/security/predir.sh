#!/usr/bin/env bash
# predir.sh given|random|symlink BDMPIEXEC BDMPRUN PROGRAM
#
# Another local user (nobody) creates the job's directory in a shared
# scratch directory before the job does: for a given --job-id (given), for
# a random one read from the master's command line (random: the master is
# started through a wrapper that waits a second, so the race is won every
# time), or as a symlink to a directory of its own (symlink). The job must
# refuse at once with a message naming the directory, and leave nothing.
source "$(dirname "$0")/lib.sh"
require_root
mode=$1 bdmpiexec=$2 bdmprun=$3 program=$4

case $mode in
  given)
    as_nobody mkdir -m 0777 "$scratch/bdmpi-$job"
    start_job job "$bdmpiexec" -ns 2 --job-id "$job" --scratch-dir "$scratch" "$program"
    ;;
  symlink)
    decoy=$(as_nobody mktemp -d)
    as_nobody ln -s "$decoy" "$scratch/bdmpi-$job"
    start_job job "$bdmpiexec" -ns 2 --job-id "$job" --scratch-dir "$scratch" "$program"
    ;;
  random)
    wrapper=$logs/slow_bdmprun
    printf '#!/bin/sh\nsleep 1\nexec %q "$@"\n' "$bdmprun" >"$wrapper"
    chmod +x "$wrapper"
    BDMPI_BDMPRUN=$wrapper start_job job "$bdmpiexec" -ns 2 --scratch-dir "$scratch" "$program"
    # The id bdmpiexec chose, from the wrapper's command line (world-readable).
    find_id() {
      local pid
      pid=$(pgrep -f -- "$wrapper --job-id" | head -1)
      [[ -n $pid ]] && job=$(tr '\0' '\n' <"/proc/$pid/cmdline" | grep -A1 -x -- --job-id | tail -1)
      [[ -n $pid && -n $job ]]
    }
    wait_for 5 find_id || fail "no master of the job found"
    as_nobody mkdir -m 0777 "$scratch/bdmpi-$job" || fail "nobody could not create the directory"
    ;;
  *) echo "usage: $0 given|random|symlink BDMPIEXEC BDMPRUN PROGRAM" >&2; exit 2 ;;
esac
finish_job job
expect_exit "the job" nonzero
expect_within "the job" 10
case $mode in
  symlink) expect_output job "refusing to use $scratch/bdmpi-$job: it is a symlink" ;;
  *) expect_output job "refusing to use $scratch/bdmpi-$job: it belongs to another user \\(uid $(id -u nobody)\\)" ;;
esac
# nobody's directory stays (it is not ours to remove); nothing of ours may.
[[ -z $(ls -A "$scratch/bdmpi-$job" 2>/dev/null) ]] || fail "the job wrote into nobody's directory"
rm -rf "${decoy:-}" "$scratch/bdmpi-$job"
expect_nothing_left "$job"
echo "PASS ($mode): refused in ${elapsed_ms} ms: $(grep -m1 refusing "$logs/job")"
