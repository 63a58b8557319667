#!/usr/bin/env bash
# test_inputs.sh BIN_DIR RUN_JOB -- what PageRank reads:
#   gen_graph: the same seed gives the same bytes, another seed others;
#   --bytes sizes the file to within 5% and prints its size; it streams (64
#   MiB under a 24 MiB address-space limit); the out-degrees are skewed
#   (R-MAT: the largest is many times the mean); pagerank_serial accepts it.
#   Damaged or foreign input ends every program with a non-zero status and a
#   message saying what is wrong: the serial programs meet every case, the
#   MPI programs (through run_job.sh, which also checks for leftovers) some.
set -u
bin=$1 run_job=$2
# shellcheck source=../test_lib.sh
. "$(dirname "$0")/../test_lib.sh"

n=5000
check_seeds "$bin/gen_graph" --vertices $n
check_sizing "$bin/gen_graph" 24576

# Out-degrees from the row pointers: max / mean.
skew=$(od -An -tu8 -w8 -j 64 -N $((8 * (n + 1))) -v "$dir/a" |
  awk 'NR > 1 { d = $1 - prev; if (d > max) max = d } { prev = $1 }
       END { printf "%d", max / (prev / (NR - 1)) }')
echo "largest out-degree / mean: $skew"
((skew >= 10)) || fail "out-degrees not skewed (max/mean $skew)"

for f in a e; do
  "$bin/pagerank_serial" "$dir/$f" --iters 2 >/dev/null ||
    fail "pagerank_serial rejects $f"
done

# Damaged copies of a.
good=$dir/a
m=$(u64_at "$good" 24)
cp "$good" "$dir/truncated" && truncate -s -4 "$dir/truncated"
"$bin/gen_ratings" --out "$dir/kind" --users 300 >/dev/null || exit 1
damaged "$good" magic 0 'BDMPIAPQ'
damaged "$good" version 8 '\011\000\000\000'
damaged "$good" rowptr $((64 + 8 * 5)) '\000\000\000\000\000\000\000\000'
damaged "$good" target $((64 + 8 * (n + 1) + 4 * 3)) '\377\377\377\377'
declare -A expect=(
  [missing]='cannot open: No such file'
  [truncated]='bytes, but its header describes .* \(truncated or corrupt\)'
  [magic]='not a BDMPI application data file'
  [kind]='holds ratings data, expected graph'
  [version]='format version 9, this program reads version 1'
  [rowptr]='corrupt graph: row pointer'
  [target]="corrupt graph: edge 3 points to vertex 4294967295 of $n"
)
echo "(the good file has $m edges)"
for prog in pagerank_serial pagerank_serial_ooc; do
  for what in "${!expect[@]}"; do
    rejects "$what" "${expect[$what]}" "$bin/$prog" "$dir/$what" --iters 2
  done
  rejects options 'unknown option: --bogus' "$bin/$prog" "$good" --bogus 1
  rejects options '--iters: bad value' "$bin/$prog" "$good" --iters 0
done
rejects options 'need --tol >= 0 and --chunk >= 4k' \
  "$bin/pagerank_serial_ooc" "$good" --chunk 1k

bdmpi=(--launcher bdmpiexec --bdmpiexec "$bin/bdmpiexec" --ns 4 --nr 1)
mpi_rejects "$run_job" truncated "${expect[truncated]}" --launcher mpirun \
  --np 3 -- "$bin/pagerank.ompi" "$dir/truncated"
mpi_rejects "$run_job" kind "${expect[kind]}" "${bdmpi[@]}" \
  -- "$bin/pagerank" "$dir/kind"
mpi_rejects "$run_job" rowptr "${expect[rowptr]}" "${bdmpi[@]}" \
  -- "$bin/pagerank" "$dir/rowptr"
mpi_rejects "$run_job" target "${expect[target]}" "${bdmpi[@]}" \
  -- "$bin/pagerank_ooc" "$dir/target"
mpi_rejects "$run_job" options 'unknown option: --bogus' "${bdmpi[@]}" \
  -- "$bin/pagerank" "$good" --bogus 1

finish test_inputs
