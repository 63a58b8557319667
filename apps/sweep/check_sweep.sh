#!/usr/bin/env bash
# check_sweep.sh -- run a sweep program (as a job or serially) and check its
# result against sweep_serial, which computes the same value without MPI.
#
# Usage: check_sweep.sh SWEEP_SERIAL RANKS BYTES_PER_RANK ITERS COMMAND...
#   COMMAND is e.g. RUN_JOB [run_job options...] -- SWEEP, or
#   SWEEP_SERIAL_OOC --ranks RANKS [--chunk SIZE].
#
# RANKS must be the total rank count (np, or nn*ns). The command runs as
# `COMMAND... --bytes-per-rank BYTES_PER_RANK --iters ITERS --expect VALUE`
# (so a wrong result fails the program itself) and its output must also hold
# ITERS `ITER sweep` lines and the `RESULT sweep VALUE` line.
set -u
(($# >= 5)) || { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 2; }
serial=$1 ranks=$2 bytes=$3 iters=$4
shift 4

expect=$("$serial" --ranks "$ranks" --bytes-per-rank "$bytes" --iters "$iters" |
  awk '$1 == "RESULT" && $2 == "sweep" { print $3 }')
[[ $expect =~ ^[0-9]+$ ]] || { echo "check_sweep: sweep_serial gave no result"; exit 1; }
echo "check_sweep: expecting RESULT sweep $expect"

out=$("$@" --bytes-per-rank "$bytes" --iters "$iters" --expect "$expect")
rc=$?
printf '%s\n' "$out"
((rc == 0)) || exit 1
n_iter=$(grep -c '^ITER sweep ' <<<"$out")
if ((n_iter != iters)); then
  echo "check_sweep: FAIL: $n_iter ITER lines, expected $iters"
  exit 1
fi
if ! grep -qx "RESULT sweep $expect" <<<"$out"; then
  echo "check_sweep: FAIL: no 'RESULT sweep $expect' line"
  exit 1
fi
echo "check_sweep: PASS"
