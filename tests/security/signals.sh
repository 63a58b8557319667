#!/usr/bin/env bash
# signals.sh INT|TERM|group BDMPIEXEC LONG_BCAST
#
# A job on 2 masters (mpirun) gets SIGINT or SIGTERM through bdmpiexec
# alone, or SIGINT sent to its whole process group as Ctrl-C and `timeout`
# do (group). bdmpiexec must exit 128+signal saying "interrupted by SIG...",
# within 10 s, and return only once every process of the job is gone;
# nothing may be left, Open MPI's shared memory of the masters included.
source "$(dirname "$0")/lib.sh"
require_root
mode=$1 bdmpiexec=$2 program=$3

# Its own process group (setsid execs it directly: a background job of a
# script is no group leader), so that the group can be signalled alone.
start_job job setsid "$bdmpiexec" -nn 2 -ns 2 --job-id "$job" --scratch-dir "$scratch" "$program" 30
ranks_running() { (($(job_processes "$job" | wc -l) >= 7)); }
wait_for 15 ranks_running || fail "the job did not start"
sleep 1
note_launcher_segments "$job"
((${#launcher_segments[@]})) || fail "the masters map no Open MPI shared memory"
case $mode in
  INT | TERM) kill -"$mode" "$pid_job"; signal=$mode ;;
  group) kill -INT -- -"$pid_job"; signal=INT ;;
  *) echo "usage: $0 INT|TERM|group BDMPIEXEC LONG_BCAST" >&2; exit 2 ;;
esac
signalled_ms=$(now_ms)
wait "$pid_job"
rc=$?
elapsed_ms=$(($(now_ms) - signalled_ms))
# At once, with no grace: bdmpiexec must not return before the job's end.
left=$(job_processes "$job")
[[ -z $left ]] || fail "processes outlived bdmpiexec: $(ps -o pid=,args= -p "$(paste -sd, <<<"$left")")"
expected=$((128 + $(kill -l "$signal")))
expect_exit bdmpiexec "$expected"
expect_output job "bdmpiexec: interrupted by SIG$signal"
expect_within "ending the job" 10
expect_nothing_left "$job"
echo "PASS ($mode): exit $rc after ${elapsed_ms} ms"
