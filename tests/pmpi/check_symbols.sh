#!/usr/bin/env bash
# check_symbols.sh LIBBDMPI.so INCLUDE_DIR CC -- the profiling interface as a
# tool sees it (tests/pmpi/CMakeLists.txt registers it as pmpi.symbols):
#  * libbdmpi defines every MPI_ function as a weak symbol over a strong
#    PMPI_ twin, and no PMPI_ function without its MPI_ name;
#  * mpi.h declares a PMPI_ twin of the same type for every MPI_ function,
#    and every function libbdmpi defines.
set -euo pipefail
lib=$1 include_dir=$2 cc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# "<type letter> <name>" of each MPI_/PMPI_ function libbdmpi exports.
nm -D --defined-only "$lib" | awk '$3 ~ /^P?MPI_/ {print $2, $3}' |
  sort -k2 >"$work/lib"
[[ -s $work/lib ]] || fail "$lib exports no MPI_ function"
# One pass over the list: each PMPI_ name strong with a weak MPI_ twin,
# each MPI_ name weak with a strong PMPI_ twin.
while IFS= read -r problem; do
  fail "$problem"
done < <(awk -v lib="$lib" -v p=P -f "$(dirname "$0")/weak_strong_pairs.awk" "$work/lib")

# The function names mpi.h declares (its function-like macros, the handle
# conversions, are not functions).
header=$include_dir/mpi.h
grep -v '^#' "$header" | grep -oE '\b(MPI|PMPI)_[A-Za-z0-9_]+\(' | tr -d '(' |
  sort -u >"$work/declared"
grep '^MPI_' "$work/declared" | sed 's/^/P/' >"$work/want_pmpi"
grep '^PMPI_' "$work/declared" >"$work/have_pmpi"
if ! diff -u "$work/want_pmpi" "$work/have_pmpi" >"$work/diff"; then
  fail "mpi.h: MPI_ and PMPI_ declarations differ (- missing, + extra):"
  cat "$work/diff" >&2
fi
awk '{print $2}' "$work/lib" | sort -u | comm -23 - "$work/declared" >"$work/undeclared"
[[ ! -s $work/undeclared ]] ||
  fail "libbdmpi defines functions mpi.h does not declare: $(xargs <"$work/undeclared")"

# Redeclaring PMPI_x with MPI_x's type fails to compile if the two differ.
{
  echo '#include <mpi.h>'
  sed 's/^P\(.*\)/extern __typeof__(\1) P\1;/' "$work/have_pmpi"
} >"$work/types.c"
"$cc" -std=gnu11 -fsyntax-only -Werror -I"$include_dir" "$work/types.c" ||
  fail "mpi.h: a PMPI_ prototype differs from its MPI_ one (see above)"

if ((failures)); then
  echo "check_symbols: FAIL ($failures)" >&2
  exit 1
fi
echo "check_symbols: PASS ($(grep -c ' PMPI_' "$work/lib") PMPI_ functions in" \
  "$(basename "$lib"), $(wc -l <"$work/have_pmpi") declared in mpi.h)"
