#!/usr/bin/env bash
# test_inputs.sh BIN_DIR RUN_JOB -- what SGD reads:
#   gen_ratings: the same seed gives the same bytes, another seed others;
#   a user's ratings do not depend on how many users follow (users come from
#   their own random streams); --bytes sizes the file to within 5% and
#   prints its size; it streams (64 MiB under a 24 MiB address-space
#   limit); the planted factors make SGD's training RMSE fall by more than
#   half (sgd_serial).
#   Damaged or foreign input, a grid the file cannot be cut into and a rank
#   count that is not a square end the programs with a non-zero status and
#   a message saying what is wrong: the serial programs meet every file
#   case, the MPI programs (through run_job.sh, which also checks for
#   leftovers) some.
set -u
bin=$1 run_job=$2
# shellcheck source=../test_lib.sh
. "$(dirname "$0")/../test_lib.sh"

check_seeds "$bin/gen_ratings" --users 2000 --items 400

# The ratings of users 0-999 (user id in the first 4 bytes of each 12-byte
# record) must be the same in a 1000- and a 2000-user file, items fixed.
run "$bin/gen_ratings" --out "$dir/d" --users 1000 --items 400 --seed 7
records() { # FILE: "user item value" per record, the users below 1000
  local b
  b=$(u64_at "$1" 40)
  od -An -tu4 -w12 -v -j $((64 + 8 * (b * b + 1))) "$1" |
    awk '$1 < 1000' | sort -n -k1,1 -k2,2
}
cmp <(records "$dir/a") <(records "$dir/d") ||
  fail "users 0-999 differ between a 1000- and a 2000-user file"

check_sizing "$bin/gen_ratings" 24576

"$bin/sgd_serial" "$dir/a" --iters 10 >"$dir/sgd.out" || fail "sgd_serial on a"
grep -E '^(RMSE 1 |RMSE 10 |RESULT)' "$dir/sgd.out"
awk '$1 == "RMSE" && $2 == 1 { first = $3 } $1 == "RESULT" { last = $3 }
     END { exit !(first > 0 && last < first / 2) }' "$dir/sgd.out" ||
  fail "the training RMSE did not fall by half"

# Damaged copies of a (B = 256 buckets: index of 65537 entries).
good=$dir/a
records_at=$((64 + 8 * (256 * 256 + 1)))
cp "$good" "$dir/truncated" && truncate -s -12 "$dir/truncated"
"$bin/gen_graph" --out "$dir/kind" --vertices 300 >/dev/null || exit 1
damaged "$good" magic 0 'BDMPIAPQ'
damaged "$good" version 8 '\011\000\000\000'
damaged "$good" index $((64 + 8 * 5)) '\377\377\377\377\000\000\000\000'
damaged "$good" record $((records_at + 12 * 3)) '\377\377\377\377'
declare -A expect=(
  [missing]='cannot open: No such file'
  [truncated]='bytes, but its header describes .* \(truncated or corrupt\)'
  [magic]='not a BDMPI application data file'
  [kind]='holds graph data, expected ratings'
  [version]='format version 9, this program reads version 1'
  [index]='corrupt ratings: the group index'
  [record]='corrupt ratings: record 3 \(user 4294967295, item'
)
for prog in sgd_serial sgd_serial_ooc; do
  for what in "${!expect[@]}"; do
    rejects "$what" "${expect[$what]}" "$bin/$prog" "$dir/$what" --iters 1
  done
  rejects grid 'a 300 x 300 grid needs at least 300 buckets per side' \
    "$bin/$prog" "$good" --grid 300
  rejects options 'unknown option: --bogus' "$bin/$prog" "$good" --bogus 1
  rejects options 'need 0 < --lr < 1' "$bin/$prog" "$good" --lr 0
done

bdmpi=(--launcher bdmpiexec --bdmpiexec "$bin/bdmpiexec" --nr 1)
mpi_rejects "$run_job" square 'must be a perfect square .*not 3' \
  "${bdmpi[@]}" --ns 3 -- "$bin/sgd" "$good"
mpi_rejects "$run_job" square 'must be a perfect square .*not 2' \
  --launcher mpirun --np 2 -- "$bin/sgd.ompi" "$good"
mpi_rejects "$run_job" truncated "${expect[truncated]}" --launcher mpirun \
  --np 4 -- "$bin/sgd_ooc.ompi" "$dir/truncated"
mpi_rejects "$run_job" kind "${expect[kind]}" "${bdmpi[@]}" --ns 4 \
  -- "$bin/sgd" "$dir/kind"
mpi_rejects "$run_job" record "${expect[record]}" "${bdmpi[@]}" --ns 4 \
  -- "$bin/sgd_ooc" "$dir/record"
mpi_rejects "$run_job" options 'unknown option: --bogus' "${bdmpi[@]}" \
  --ns 4 -- "$bin/sgd" "$good" --bogus 1

finish test_inputs
