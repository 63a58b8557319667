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
. "$(dirname "$0")/../test_lib.sh"

n=5000
run "$bin/gen_graph" --out "$dir/a" --vertices $n --seed 7
run "$bin/gen_graph" --out "$dir/b" --vertices $n --seed 7
run "$bin/gen_graph" --out "$dir/c" --vertices $n --seed 8
cmp "$dir/a" "$dir/b" || fail "seed 7 twice gave different files"
cmp -s "$dir/a" "$dir/c" && fail "seeds 7 and 8 gave the same file"

out=$("$bin/gen_graph" --out "$dir/e" --bytes 8m --seed 2) || fail "--bytes 8m"
echo "$out"
size=$(stat -c %s "$dir/e")
((size > 8 * 1048576 * 95 / 100 && size < 8 * 1048576 * 105 / 100)) ||
  fail "--bytes 8m wrote $size bytes"
[[ $out == *" $size bytes"* ]] || fail "it printed another size than $size"

echo "+ (ulimit -v 24576; gen_graph --out $dir/f --bytes 64m)"
(ulimit -v 24576 && "$bin/gen_graph" --out "$dir/f" --bytes 64m) ||
  fail "64 MiB under a 24 MiB address-space limit failed"
rm -f "$dir/f"

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
