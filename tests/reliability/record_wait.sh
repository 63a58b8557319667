#!/usr/bin/env bash
# record_wait.sh BDMPIEXEC PROGRAM
#
# Node 0's master stops answering right after the masters' shutdown
# barrier (its network thread is held there for 13 s by a test hook,
# BDMPI_TEST_PAUSE_AFTER_SHUTDOWN_MS, as if it hung or died), while node
# 1's record (--trace: larger than an eager message, so its send completes
# only when node 0 takes it) waits for node 0. Node 1 must give up after as
# long as node 0 would wait for it (10 s), say so, and finish its own part:
# its ranks' objects and liveness file gone while node 0 is still held.
# (Node 1 used to wait for the send without a deadline: for ever, had node
# 0 died.) Then the job ends with exit 0, leaving nothing.
set -uo pipefail
here=$(dirname "$0")
source "$here/../multinode/left_nothing.sh"
source "$here/../multinode/fail_running_job.sh"
source "$here/../multinode/job_masters.sh"
bdmpiexec=$1 program=$2
job=recwait$$
scratch=$(mktemp -d)
out=$(mktemp -d)
log=$out/log
trap 'rm -rf "$scratch" "$out"' EXIT
launcher=

BDMPI_TEST_PAUSE_AFTER_SHUTDOWN_MS=13000@0 timeout -k 5 40 "$bdmpiexec" -nn 2 -ns 4 \
  --job-id "$job" --scratch-dir "$scratch" --trace "$out/trace.json" "$program" >"$log" 2>&1 &
launcher=$!

node0=$(master_of_node "$job" 0) node1=$(master_of_node "$job" 1)
[[ -n $node0 && -n $node1 ]] || fail "the masters did not start"
node1_live() { ls /dev/shm/bdmpi-"$job"-n1-live-* >/dev/null 2>&1; }
ranks_running() { [[ -n $(pgrep -P "$node0") || -n $(pgrep -P "$node1") ]]; }
# A master is found before it has claimed its node (the liveness file) and
# spawned its ranks: until both, "no ranks" means "not yet", not "ended".
for _ in $(seq 300); do
  node1_live && break
  sleep 0.1
done
node1_live || fail "node 1's master did not claim its node"
for _ in $(seq 600); do
  ranks_running && break
  sleep 0.05
done
# The ranks are their masters' children: once both have none, the masters
# are in (or through) the shutdown barrier.
ranks_gone=
for _ in $(seq 200); do
  sleep 0.1
  ranks_running && continue
  ranks_gone=1
  break
done
[[ -n $ranks_gone ]] || fail "the ranks did not end"
ended=$EPOCHREALTIME
while node1_live; do
  awk -v a="$ended" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 12) }' || break
  sleep 0.1
done
node1_live && fail "node 1 still waits for node 0 12 s after the ranks ended"
kill -0 "$node0" 2>/dev/null || fail "node 0's master ended early (no pause?): this test checks nothing"
waited=$(awk -v a="$ended" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
wait "$launcher"
status=$?
launcher=
((status == 0)) || fail "the job exited $status"
grep -q "node 0 did not take this node's figures within 10 s" "$log" ||
  fail "node 1 did not say that it gave up"
expect_nothing_left "$job" "$scratch"
echo "PASS: node 1 finished ${waited} s after its ranks while node 0 was held"
