#!/usr/bin/env bash
# spill_swap.sh file|dir BDMPIEXEC SPILL_WAIT
#
# While a 1 MiB message waits in a spill file for its receiver (spill_wait),
# user nobody must be unable to enter the job's directories. Then (as the
# job's own user, root: nobody else can) the file is replaced by another with
# other bytes (file), or the spill directory is moved away and a copy with
# other bytes put in its place (dir). The receiver must not get the bytes: the job ends with a message
# naming the replaced file or directory, within 10 s, leaving nothing.
source "$(dirname "$0")/lib.sh"
require_root
mode=$1 bdmpiexec=$2 program=$3
go=$logs/go

# --memory-payloads off: the message must wait in a spill file, not in memory.
start_job job "$bdmpiexec" -ns 2 -nr 2 --memory-payloads off --job-id "$job" --scratch-dir "$scratch" \
  "$program" "$go"
# The master's private directory: bdmpi-<id>-n<node>-<random tag>.
spill_file() {
  spill=$(find "$scratch" -maxdepth 1 -name "bdmpi-$job-n0-*" -type d | head -1)
  file=$(find "$spill" -maxdepth 1 -type f -name '[0-9a-f]*' 2>/dev/null | head -1)
  [[ -n $file ]]
}
wait_for 10 spill_file || fail "no spill file appeared in $scratch/bdmpi-$job-n0-*"
sleep 0.5  # the master has taken the file by now
# Another user cannot even look: the job's directories are private.
! as_nobody touch "$spill/x" 2>/dev/null || fail "user nobody could create $spill/x"
! as_nobody ls "$spill" >/dev/null 2>&1 || fail "user nobody could list $spill"
case $mode in
  file)
    head -c "$(stat -c %s "$file")" /dev/zero >"$file.forged"
    mv -f "$file.forged" "$file"
    expected="the spill file $file is not the file the job wrote"
    ;;
  dir)
    mv "$spill" "$spill.moved"
    mkdir -m 0700 "$spill"
    head -c "$(stat -c %s "$spill.moved/${file##*/}")" /dev/zero >"$file"
    expected="the spill directory $spill was replaced or moved"
    ;;
  *) echo "usage: $0 file|dir BDMPIEXEC SPILL_WAIT" >&2; exit 2 ;;
esac
start_ms=$(now_ms)
touch "$go"
finish_job job
elapsed_ms=$(($(now_ms) - start_ms))
expect_no_output job "WRONG DATA|data correct"
expect_exit "the job" nonzero
expect_output job "$expected"
expect_within "the job" 10
if [[ $mode == dir ]]; then
  # The job removed what its spill directory's path names; the original,
  # moved away by the test, is the test's to remove.
  [[ ! -e $spill ]] || fail "the job left $spill"
  rm -rf "$spill.moved"
fi
expect_nothing_left "$job"
echo "PASS ($mode): ended ${elapsed_ms} ms after the receive: $(grep -m1 "spill" "$logs/job")"
