#!/usr/bin/env bash
# peer_fails.sh stop|kill BDMPIEXEC PROGRAM [ARGS...]
#
# Runs PROGRAM (a long series of broadcasts) on 3 masters and, a second in,
# stops (SIGSTOP: a hung master) or kills (SIGKILL: a dead one) the master of
# node 2. The job must end by itself within a bound, with a non-zero exit, a
# message naming the failed node (stop: the peer timeout's message), and
# nothing of the job left: no process, no /dev/shm or /dev/mqueue object, an
# empty scratch dir.
set -uo pipefail
source "$(dirname "$0")/left_nothing.sh"
source "$(dirname "$0")/job_masters.sh"
mode=$1 bdmpiexec=$2
shift 2
job=peerfail$$
scratch=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$scratch" "$log"' EXIT
export BDMPI_PEER_TIMEOUT=3
fail() { echo "FAIL: $*"; echo "--- job output:"; cat "$log"; exit 1; }

start=$(date +%s)
timeout -k 10 90 "$bdmpiexec" -nn 3 -ns 2 -nr 1 --job-id "$job" \
  --scratch-dir "$scratch" "$@" >"$log" 2>&1 &
launcher=$!

victim=$(master_of_node "$job" 2)
[[ -n $victim ]] || fail "no master of node 2 found"
sleep 1
case $mode in
  stop) kill -STOP "$victim"; done_to=stopped ;;
  kill) kill -KILL "$victim"; done_to=killed ;;
  *) echo "usage: $0 stop|kill BDMPIEXEC PROGRAM" >&2; exit 2 ;;
esac
wait "$launcher"
status=$?
elapsed=$(($(date +%s) - start))
kill -KILL "$victim" 2>/dev/null  # should be gone already; never leave it stopped

((status != 0)) || fail "the job exited 0 after its node 2 master was $done_to"
((status != 124 && status != 137 || elapsed < 85)) || fail "the job did not end by itself (timeout)"
if [[ $mode == stop ]]; then
  grep -q "node 2 (host .*) has sent nothing for 3 s" "$log" ||
    fail "no message naming the silent node 2"
fi
expect_nothing_left "$job" "$scratch"
echo "PASS: node 2's master $done_to; the job ended in ${elapsed} s with exit $status:"
grep -m 3 -i "node 2\|bdmpi" "$log" | sed 's/^/  /'
