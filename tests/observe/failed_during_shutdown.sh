#!/usr/bin/env bash
# failed_during_shutdown.sh BDMPIEXEC CHECK_OBSERVE PROGRAM [ARGS...]
#
# A job that fails after its masters' shutdown barrier: every rank of the 2
# nodes has finished, the barrier has completed (so node 1 has sent its
# figures), and node 0's network thread is held there by a test hook
# (BDMPI_TEST_PAUSE_AFTER_SHUTDOWN_MS) when node 0's master gets SIGTERM.
# Its event loop then takes the figures after the failure while its
# network thread comes to them late. Node 0 must still have node 1's
# figures in the report (none missing), and the job must end within a
# bound with the signal's status, leaving nothing. (While both threads of
# node 0 received the figures, the event loop took them from under the
# network thread, which then waited for them for ever.)
set -uo pipefail
here=$(dirname "$0")
source "$here/../multinode/left_nothing.sh"
source "$here/../multinode/fail_running_job.sh"
source "$here/../multinode/job_masters.sh"
bdmpiexec=$1 check_observe=$2
shift 2
job=latefail$$
scratch=$(mktemp -d)
out=$(mktemp -d)
log=$out/log
trap 'rm -rf "$scratch" "$out"' EXIT
launcher=

# The limit is only a backstop (the check below bounds the end): at a
# load of 33 the masters took 9 s to start and the ranks 18 s to end, so
# a limit of 20 s ended the job before the test's SIGTERM; the waits below
# are counted in seconds, as their looks take long under such a load.
SLOW_START_MS=0 BDMPI_TEST_PAUSE_AFTER_SHUTDOWN_MS=4000@0 timeout -k 5 60 "$bdmpiexec" -nn 2 \
  -ns 1 -nr 1 --job-id "$job" --scratch-dir "$scratch" --report \
  --report=json "$out/report.json" "$@" >"$log" 2>&1 &
launcher=$!

node0=$(master_of_node "$job" 0 "$launcher") node1=$(master_of_node "$job" 1 "$launcher")
[[ -n $node0 && -n $node1 ]] || fail "the masters did not start"
# The ranks are their masters' children: once both have none, the masters
# are in (or through) the shutdown barrier.
ranks_gone=
deadline=$((SECONDS + 40))
while ((SECONDS < deadline)); do
  sleep 0.1
  [[ -n $(pgrep -P "$node0") || -n $(pgrep -P "$node1") ]] && continue
  ranks_gone=1
  break
done
[[ -n $ranks_gone ]] || fail "the ranks did not end"
sleep 0.5
kill -0 "$node1" 2>/dev/null || fail "node 1's master ended before the failure (no pause?)"
signalled=$EPOCHREALTIME
kill -TERM "$node0"
wait "$launcher"
status=$?
launcher=
elapsed=$(awk -v a="$signalled" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

((status == 143)) || fail "the job exited $status, not 143 (node 0's master got SIGTERM)"
# The held network thread lets go after 4 s; then at most the masters'
# 2 s wait for each other.
awk -v e="$elapsed" 'BEGIN { exit !(e < 10) }' ||
  fail "the job took ${elapsed} s to end after SIGTERM"
grep -Eq "node 0: master received signal Terminated" "$log" ||
  fail "no message naming the signal"
grep -Eq "^bdmpi report: .*PARTIAL: the job failed" "$log" || fail "the report is not marked partial"
grep -q "no figures from" "$log" && fail "the report names a node as missing"
python3 "$check_observe" --report "$out/report.json" --nranks 2 --nnodes 2 --partial \
  --missing-nodes none || fail "the JSON report"
expect_nothing_left "$job" "$scratch"
echo "PASS: SIGTERM after the shutdown barrier: the job ended ${elapsed} s later with exit" \
  "$status and every node's figures"
