#!/usr/bin/env bash
# segments_retired.sh BDMPIEXEC PROGRAM
#
# Runs PROGRAM (programs/finish_early.c) on 2 ranks that run together
# (-nr 2): both use payload segments (large messages, and reductions for
# which the master maps them), then rank 1 finishes while rank 0 lingers
# outside MPI, having read rank 1's last message (1 MiB) from its segment.
# While the job still runs, rank 1's segments must be gone: no
# file left in the node's memory directory and no mapping of one in the
# master, which would keep a deleted file's memory. Then the usual end
# checks: exit 0, nothing of the job left.
set -uo pipefail
source "$(dirname "$0")/../multinode/left_nothing.sh"
source "$(dirname "$0")/../multinode/fail_running_job.sh"
bdmpiexec=$1 program=$2
job=segret$$
scratch=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$scratch" "$log"' EXIT
launcher=
memory_dir=  # /dev/shm/bdmpi-<id>-n0-payloads-<random tag>, once the master made it
# Segment files of slave 1: file ids (1 << 40) | (1 << 39) + index (common/payload_segments.h).
rank1_segments() { ls "$memory_dir" 2>/dev/null | grep -c '^000001800000000[0-9a-f]$'; }

start=$(date +%s)
timeout -k 10 30 "$bdmpiexec" -ns 2 -nr 2 --job-id "$job" --scratch-dir "$scratch" \
  "$program" --linger 3 >"$log" 2>&1 &
launcher=$!
for _ in $(seq 100); do
  grep -q lingering "$log" && break
  sleep 0.1
done
grep -q lingering "$log" || fail "rank 0 never got to lingering"
master=$(pgrep -f "bdmprun --job-id $job" | head -1)
[[ -n $master ]] || fail "no master of the job while rank 0 lingers"
memory_dir=$(ls -d /dev/shm/bdmpi-"$job"-n0-payloads-* 2>/dev/null | head -1)
[[ -d $memory_dir ]] || fail "no memory directory of the job while rank 0 lingers"
# Rank 1 exits right after it told rank 0: give the master a moment.
left=
for _ in $(seq 20); do
  sleep 0.1
  files=$(rank1_segments)
  mapped=$(grep -c "$memory_dir/000001800000000" "/proc/$master/maps" 2>/dev/null)
  left="$files file(s), $mapped mapping(s)"
  ((files == 0 && mapped == 0)) && break
done
((files == 0 && mapped == 0)) ||
  fail "rank 1 has finished but its payload segments are still there: $left"
wait "$launcher"
status=$?
elapsed=$(($(date +%s) - start))
((status == 0)) || fail "the job exited $status after ${elapsed} s"
sleep 0.2
expect_nothing_left "$job" "$scratch"
echo "PASS: rank 1's payload segments went when it finished; the job ended in ${elapsed} s"
