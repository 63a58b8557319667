#!/usr/bin/env bash
# message_figures.sh SCRIPT BIN
#
# A smoke run of bench/run_message_figures.sh: one repetition of the
# smallest useful set (8 B and 1 MiB between 2 ranks, a 1 MiB bcast and
# alltoall, the fanin and isendflood rounds on 4 ranks, a short window) with the programs already built in
# BIN. Checks that it ends with status 0 within its time, that the table has
# every figure with a ratio and a target verdict and the CSV every run, and
# that the BDMPI jobs left nothing behind. Skipped (77) without Open MPI's
# mpirun. The figures themselves are not checked: the machine's load decides
# them.
set -uo pipefail
source "$(dirname "$0")/../multinode/left_nothing.sh"
script=$1 bin=$2
command -v mpirun >/dev/null || { echo "SKIPPED: no mpirun (Open MPI)"; exit 77; }
job=figsmoke$$
scratch=$(mktemp -d)
out=$(mktemp -d)
trap 'rm -rf "$scratch" "$out"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$out/output"; exit 1; }

start=$(date +%s)
BENCH_REPS_SCALE=0.02 timeout -k 5 75 "$script" --no-build --bin "$bin" --quick \
  --sizes 8,1m --coll-sizes 1m --ranks 4 --ops bcast,alltoall --window 4 \
  --job-prefix "$job" --bdmpiexec-args "--scratch-dir $scratch" --out "$out" \
  >"$out/output" 2>&1
status=$?
elapsed=$(($(date +%s) - start))
((status == 0)) || fail "the script ended with status $status"
((elapsed <= 50)) || fail "the smoke run took ${elapsed}s"

table=$out/table.md
for row in '^\| latency \(round trip\) \| 2 \| 8 B \| -nr 1 \|' \
  '^\| latency \(round trip\) \| 2 \| 1 MiB \| -nr 2 \|.*\| (ok|MISS) ' \
  '^\| bandwidth \(per message\) \| 2 \| 1 MiB \| -nr 1 \|.*\| (ok|MISS) ' \
  '^\| bcast \| 4 \| 1 MiB \| -nr 4 \|.*\| (ok|MISS) ' \
  '^\| alltoall \| 4 \| 1 MiB \| -nr 1 \|.*\| (ok|MISS) ' \
  '^\| latency \(round trip\) \| 2 \| 8 B \| -nr 2 \|.*\| (ok|MISS) ' \
  '^\| fanin \(per round\) \| 4 \| 12 B \| -nr 4 \|.*\| (ok|MISS) ' \
  '^\| isendflood \(per round\) \| 4 \| 64 x 12 B \| -nr 4 \|.*\| (ok|MISS) ' \
  '^\| latency -nr 2 / -nr 1 \| 2 \| 8 B \|.*\| (ok|MISS) ' \
  '^\| stream -nr 2 / -nr 1 \| 2 \| 8 B \|.*\| (ok|MISS) '; do
  grep -Eq "$row" "$table" || fail "no row matching /$row/ in the table"
done
grep -q 'n/a' "$table" && fail "a figure without a value in the table"
# 3 runs (-nr 1, -nr = ranks, Open MPI) x (2 pingpong + 2 bw + 2 coll + 1 fanin
# + 1 isendflood) lines
lines=$(($(wc -l <"$out/results.csv") - 1))
((lines == 24)) || fail "results.csv has $lines measurements, expected 24"
expect_nothing_left "$job" "$scratch"
echo "PASS (${elapsed}s)"
