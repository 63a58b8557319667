#!/usr/bin/env bash
# test_corrupt.sh BIN_DIR RUN_JOB -- damaged or foreign input must end every
# k-means program with a non-zero status and a message that says what is
# wrong (never a crash or a wrong result): a missing file, a truncated one,
# another magic, another kind, another version, a corrupt row pointer, a
# column out of range; plus bad options. The serial programs meet every
# case, the MPI programs (which must also end the whole job, through
# run_job.sh, which checks for leftovers) a few.
set -u
bin=$1 run_job=$2
# shellcheck source=../test_lib.sh
. "$(dirname "$0")/../test_lib.sh"

rows=2000
"$bin/gen_documents" --out "$dir/good" --rows $rows --cols 1000 --seed 5 || exit 1
"$bin/gen_documents" --out "$dir/small" --rows 10 --cols 1000 >/dev/null || exit 1
cp "$dir/good" "$dir/truncated" && truncate -s -8 "$dir/truncated"
damaged "$dir/good" magic 0 'BDMPIAPQ'
damaged "$dir/good" kind 12 '\002\000\000\000'
damaged "$dir/good" version 8 '\011\000\000\000'
damaged "$dir/good" rowptr $((64 + 8 * 5)) '\377\377\377\377\000\000\000\000'
damaged "$dir/good" column $((64 + 8 * (rows + 1) + 8 * 3)) '\377\377\377\377'

declare -A expect=(
  [missing]='cannot open: No such file'
  [truncated]='bytes, but its header describes .* \(truncated or corrupt\)'
  [magic]='not a BDMPI application data file'
  [kind]='holds graph data, expected documents'
  [version]='format version 9, this program reads version 1'
  [rowptr]='corrupt row pointer 5'
  [column]='corrupt entry 3: column 4294967295 of 1000'
)

for prog in kmeans_serial kmeans_serial_ooc; do
  for what in "${!expect[@]}"; do
    rejects "$what" "${expect[$what]}" "$bin/$prog" "$dir/$what" --iters 2
  done
  rejects options 'unknown option .--bogus.' "$bin/$prog" "$dir/good" --bogus 1
  rejects options '--k must be positive' "$bin/$prog" "$dir/good" --k 0
  rejects options '16 clusters but only 10 rows' "$bin/$prog" "$dir/small"
done

# The MPI programs: rank 0 finds a bad header or option for everyone; a
# corrupt entry is found by the rank whose rows hold it (rank 0 here).
mpi_rejects "$run_job" truncated "${expect[truncated]}" --launcher mpirun --np 3 \
  -- "$bin/kmeans.ompi" "$dir/truncated"
mpi_rejects "$run_job" kind "${expect[kind]}" --launcher bdmpiexec \
  --bdmpiexec "$bin/bdmpiexec" --ns 4 --nr 1 -- "$bin/kmeans" "$dir/kind"
mpi_rejects "$run_job" column "${expect[column]}" --launcher bdmpiexec \
  --bdmpiexec "$bin/bdmpiexec" --ns 4 --nr 1 -- "$bin/kmeans_ooc" "$dir/column"
mpi_rejects "$run_job" options 'unknown option .--bogus.' --launcher bdmpiexec \
  --bdmpiexec "$bin/bdmpiexec" --ns 4 --nr 1 -- "$bin/kmeans" "$dir/good" --bogus 1

finish test_corrupt
