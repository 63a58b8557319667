#!/usr/bin/env bash
# check_declared.sh LIBBDMPI.so INCLUDE_DIR NOT_YET_FILE -- every function
# mpi.h declares is defined: libbdmpi exports MPI_name and PMPI_name for
# each (tests/pmpi/CMakeLists.txt registers it as pmpi.declared). A
# declared but undefined function compiles, and a configure check or a
# program using it fails only when it links.
#
# NOT_YET_FILE lists, one name a line (# comments), the MPI_ functions that
# are declared but knowingly not defined yet; the test fails for any other
# missing one, and for a listed one that is defined now (delete its line).
set -euo pipefail
lib=$1 include_dir=$2 not_yet_file=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Declarations, not the function-like macros (handle conversions).
grep -v '^#' "$include_dir/mpi.h" | grep -oE '\b(MPI|PMPI)_[A-Za-z0-9_]+\(' | tr -d '(' |
  sort -u >"$work/declared"
nm -D --defined-only "$lib" | awk '$3 ~ /^P?MPI_/ {print $3}' | sort -u >"$work/defined"
sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$not_yet_file" | sort -u >"$work/not_yet"
# A listed MPI_ name stands for its PMPI_ twin too.
sed 's/^/P/' "$work/not_yet" | cat - "$work/not_yet" | sort -u >"$work/excused"

comm -23 "$work/declared" "$work/defined" >"$work/missing"
comm -23 "$work/missing" "$work/excused" >"$work/unexcused"
comm -12 "$work/not_yet" "$work/defined" >"$work/stale"

failures=0
if [[ -s $work/unexcused ]]; then
  echo "FAIL: mpi.h declares $(wc -l <"$work/unexcused") function(s) that $(basename "$lib")" \
    "does not define (a program using them fails to link):" >&2
  sed 's/^/  /' "$work/unexcused" >&2
  failures=1
fi
if [[ -s $work/stale ]]; then
  echo "FAIL: defined now, so delete from $not_yet_file:" >&2
  sed 's/^/  /' "$work/stale" >&2
  failures=1
fi
((failures)) && exit 1
echo "check_declared: PASS ($(grep -c '^MPI_' "$work/declared") MPI_ functions declared," \
  "$(wc -l <"$work/not_yet") listed as not defined yet)"
