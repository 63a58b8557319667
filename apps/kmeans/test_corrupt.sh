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
dir=$(mktemp -d "${TMPDIR:-/tmp}/kmeans_corrupt.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "test_corrupt: FAIL: $*"; failures=$((failures + 1)); }

rows=2000
"$bin/gen_documents" --out "$dir/good" --rows $rows --cols 1000 --seed 5 || exit 1
# damaged NAME OFFSET BYTES: a copy of the good file with BYTES (printf
# escapes) written at OFFSET.
damaged() {
  cp "$dir/good" "$dir/$1"
  # shellcheck disable=SC2059 # $3 is the bytes, written as printf escapes
  printf "$3" | dd of="$dir/$1" bs=1 seek="$2" conv=notrunc status=none
}
"$bin/gen_documents" --out "$dir/small" --rows 10 --cols 1000 >/dev/null || exit 1
cp "$dir/good" "$dir/truncated" && truncate -s -8 "$dir/truncated"
damaged magic 0 'BDMPIAPQ'
damaged kind 12 '\002\000\000\000'
damaged version 8 '\011\000\000\000'
damaged rowptr $((64 + 8 * 5)) '\377\377\377\377\000\000\000\000'
damaged column $((64 + 8 * (rows + 1) + 8 * 3)) '\377\377\377\377'

declare -A expect=(
  [missing]='cannot open: No such file'
  [truncated]='bytes, but its header describes .* \(truncated or corrupt\)'
  [magic]='not a BDMPI application data file'
  [kind]='holds graph data, expected documents'
  [version]='format version 9, this program reads version 1'
  [rowptr]='corrupt row pointer 5'
  [column]='corrupt entry 3: column 4294967295 of 1000'
)

# rejects WHAT REGEX CMD...: CMD must exit non-zero with REGEX on stderr.
rejects() {
  local what=$1 re=$2 rc
  shift 2
  "$@" >"$dir/out" 2>"$dir/err"
  rc=$?
  echo "+ $* -> exit $rc: $(head -c 300 "$dir/err")"
  ((rc != 0)) || fail "$what: '$*' exited 0"
  grep -Eq -- "$re" "$dir/err" || fail "$what: stderr does not match /$re/"
}

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
mpi_rejects() {
  local what=$1 re=$2
  shift 2
  "$run_job" --expect-exit nonzero --expect-stderr "$re" --timeout 60 "$@" \
    >"$dir/job" 2>&1 || { cat "$dir/job"; fail "$what: $*"; }
  tail -n 1 "$dir/job"
}
mpi_rejects truncated "${expect[truncated]}" --launcher mpirun --np 3 \
  -- "$bin/kmeans.ompi" "$dir/truncated"
mpi_rejects kind "${expect[kind]}" --launcher bdmpiexec \
  --bdmpiexec "$bin/bdmpiexec" --ns 4 --nr 1 -- "$bin/kmeans" "$dir/kind"
mpi_rejects column "${expect[column]}" --launcher bdmpiexec \
  --bdmpiexec "$bin/bdmpiexec" --ns 4 --nr 1 -- "$bin/kmeans_ooc" "$dir/column"
mpi_rejects options 'unknown option .--bogus.' --launcher bdmpiexec \
  --bdmpiexec "$bin/bdmpiexec" --ns 4 --nr 1 -- "$bin/kmeans" "$dir/good" --bogus 1

if ((failures)); then echo "test_corrupt: FAIL ($failures)"; exit 1; fi
echo "test_corrupt: PASS"
