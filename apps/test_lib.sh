# shellcheck shell=bash
# test_lib.sh -- functions shared by the applications' test scripts
# (source it; it sets nothing else). Each script counts failures with
# `fail`, ends with `finish NAME`, and keeps its files in $dir, which is
# removed on exit.

failures=0
dir=$(mktemp -d "${TMPDIR:-/tmp}/app_test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run CMD...: CMD must succeed.
run() {
  echo "+ $*"
  "$@" || fail "'$*' exited with $?"
}

# damaged SOURCE NAME OFFSET BYTES: $dir/NAME is a copy of SOURCE with BYTES
# (printf escapes) written at OFFSET.
damaged() {
  cp "$1" "$dir/$2"
  # shellcheck disable=SC2059 # the bytes are the format, on purpose
  printf "$4" | dd of="$dir/$2" bs=1 seek="$3" conv=notrunc status=none
}

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

# mpi_rejects RUN_JOB WHAT REGEX RUN_JOB_ARGS...: the job must end non-zero
# with REGEX on its stderr and leave nothing behind (run_job.sh checks).
mpi_rejects() {
  local run_job=$1 what=$2 re=$3
  shift 3
  "$run_job" --expect-exit nonzero --expect-stderr "$re" --timeout 60 "$@" \
    >"$dir/job" 2>&1 || {
    cat "$dir/job"
    fail "$what: $*"
  }
  tail -n 1 "$dir/job"
}

# u64_at FILE OFFSET: the little-endian u64 at OFFSET.
u64_at() {
  od -An -tu8 -j "$2" -N 8 "$1" | tr -d ' '
}

# check_seeds GEN ARGS...: GEN --out FILE ARGS --seed S twice with seed 7
# must give the same bytes, with seed 8 others. Leaves $dir/a (seed 7).
check_seeds() {
  local gen=$1
  shift
  run "$gen" --out "$dir/a" "$@" --seed 7
  run "$gen" --out "$dir/b" "$@" --seed 7
  run "$gen" --out "$dir/c" "$@" --seed 8
  cmp "$dir/a" "$dir/b" || fail "seed 7 twice gave different files"
  cmp -s "$dir/a" "$dir/c" && fail "seeds 7 and 8 gave the same file"
}

# check_sizing GEN KIB [MIB]: --bytes 8m must write 8 MiB to within 5% and
# print that size (leaves $dir/e), and --bytes MIB m (default 64) must work
# under a KIB address-space limit (the generator streams).
check_sizing() {
  local gen=$1 kib=$2 mib=${3:-64} out size
  out=$("$gen" --out "$dir/e" --bytes 8m --seed 2) || fail "--bytes 8m"
  echo "$out"
  size=$(stat -c %s "$dir/e")
  ((size > 8 * 1048576 * 95 / 100 && size < 8 * 1048576 * 105 / 100)) ||
    fail "--bytes 8m wrote $size bytes"
  [[ $out == *" $size bytes"* ]] || fail "it printed another size than $size"
  echo "+ (ulimit -v $kib; $gen --out $dir/f --bytes ${mib}m)"
  (ulimit -v "$kib" && "$gen" --out "$dir/f" --bytes "${mib}m") ||
    fail "$mib MiB under a $kib KiB address-space limit failed"
  rm -f "$dir/f"
}

finish() {
  if ((failures)); then
    echo "$1: FAIL ($failures)"
    exit 1
  fi
  echo "$1: PASS"
  exit 0
}
