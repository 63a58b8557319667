#!/usr/bin/env bash
# missing_node.sh BDMPIEXEC CHECK_OBSERVE PROGRAM [ARGS...]
#
# A failed job whose surviving master stays alive but never sends its
# figures: PROGRAM (observe_slow_start: rank 0 computes, the others wait)
# runs with --report on 3 masters; the master of node 1 is stopped
# (SIGSTOP), then rank 2 is killed. The job must still end by itself within
# a bound, with the rank's exit status, a report marked partial that names
# node 1 as missing, in the table and in the JSON (bdmpi-run-report/8),
# with the figures of nodes 0 and 2; and nothing of the job may be left,
# the stopped master included.
set -uo pipefail
here=$(dirname "$0")
source "$here/../multinode/left_nothing.sh"
source "$here/../multinode/fail_running_job.sh"
source "$here/../multinode/job_masters.sh"
bdmpiexec=$1 check_observe=$2
shift 2
job=missing$$
scratch=$(mktemp -d)
out=$(mktemp -d)
log=$out/log
stopped=
trap '[[ -n $stopped ]] && kill -KILL "$stopped" 2>/dev/null; rm -rf "$scratch" "$out"' EXIT
launcher=

start=$EPOCHREALTIME
# Rank 0 computes for longer than the job's limit, which is a backstop
# (the check below bounds the end): at a load of 33 the masters took 8 s
# to start and rank 2 17 s; the waits below are counted in seconds, as
# their looks take long under such a load.
SLOW_START_MS=120000 timeout -k 10 90 "$bdmpiexec" -nn 3 -ns 1 -nr 1 --job-id "$job" \
  --scratch-dir "$scratch" --report --report=json "$out/report.json" "$@" >"$log" 2>&1 &
launcher=$!

node1=$(master_of_node "$job" 1 "$launcher") node2=$(master_of_node "$job" 2 "$launcher")
[[ -n $node1 && -n $node2 ]] || fail "the masters of nodes 1 and 2 did not start"
# Each rank is its master's child: wait until ranks 1 and 2 exist.
rank2=
deadline=$((SECONDS + 40))
while ((SECONDS < deadline)) && kill -0 "$launcher" 2>/dev/null; do
  rank2=$(pgrep -P "$node2" | head -1)
  [[ -n $rank2 && -n $(pgrep -P "$node1") ]] && break
  sleep 0.1
done
[[ -n $rank2 ]] || fail "rank 2 did not start"
sleep 0.5
kill -STOP "$node1" && stopped=$node1
killed=$EPOCHREALTIME
kill -KILL "$rank2"
wait "$launcher"
status=$?
launcher=
elapsed=$(awk -v a="$killed" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
# The job's end must have ended the stopped master too (mpirun continues
# it with its SIGTERM), before bdmpiexec returned.
if kill -0 "$node1" 2>/dev/null && [[ $(ps -o stat= -p "$node1") != Z* ]]; then
  fail "the stopped master of node 1 (pid $node1," \
    "state $(ps -o stat= -p "$node1")) outlived the job"
fi
stopped=

((status == 137)) || fail "the job exited $status, not 137 (rank 2 killed by SIGKILL)"
awk -v e="$elapsed" 'BEGIN { exit !(e < 20) }' || fail "the job took ${elapsed} s to end after the failure"
grep -Eq "rank 2 .*killed by signal 9" "$log" || fail "no message naming rank 2 and its signal"
grep -Eq "^bdmpi report: .*PARTIAL: the job failed.*no figures from node 1" "$log" ||
  fail "the report table does not name node 1 as missing"
python3 "$check_observe" --report "$out/report.json" --nranks 3 --nnodes 3 --partial \
  --missing-nodes 1 || fail "the JSON report"
expect_nothing_left "$job" "$scratch"
echo "PASS: node 1's master stopped, rank 2 killed: the job ended ${elapsed} s later with exit" \
  "$status and a report missing node 1:"
grep -m 2 "bdmpi report\|PARTIAL" "$log" | sed 's/^/  /'
