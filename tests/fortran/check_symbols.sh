#!/usr/bin/env bash
# check_symbols.sh LIBBDMPI_F.so -- the Fortran profiling interface as a
# tool sees it (tests/fortran/CMakeLists.txt registers it as
# fortran.symbols): libbdmpi_f defines every Fortran entry point mpi_x_ as a
# weak symbol over a strong pmpi_x_ twin, and no pmpi_x_ without its mpi_x_;
# the predefined attribute callbacks are there under their own names.
set -euo pipefail
lib=$1
list=$(mktemp)
trap 'rm -f "$list"' EXIT

# "<type letter> <name>" of each mpi_/pmpi_ entry point libbdmpi_f exports
# (gfortran's names end in _; the common blocks of MPI_BOTTOM, ... are
# data, not text; MPI_COMM_DUP_FN, ..., MPI_CONVERSION_FN_NULL(_C) are
# callbacks a program passes, not routines it calls).
nm -D --defined-only "$lib" |
  awk '$2 ~ /^[TtWw]$/ && $3 ~ /^p?mpi_[a-z0-9_]*_$/ && $3 !~ /_fn_$/ && $3 !~ /_fn_null_(c_)?$/ {print $2, $3}' |
  sort -k2 >"$list"
[[ -s $list ]] || { echo "FAIL: $lib exports no mpi_x_ entry point" >&2; exit 1; }
problems=$(awk -v lib="$lib" -v p=p -f "$(dirname "$0")/../pmpi/weak_strong_pairs.awk" "$list")
if [[ -n $problems ]]; then
  printf 'FAIL: %s\n' "$problems" >&2
  echo "check_symbols: FAIL ($(wc -l <<<"$problems"))" >&2
  exit 1
fi
for want in mpi_send_ mpi_init_ mpi_wtime_ mpi_comm_rank_ mpi_comm_create_keyval_; do
  grep -qx "W $want" "$list" || { echo "FAIL: $lib has no weak $want" >&2; exit 1; }
done
syms=$(nm -D --defined-only "$lib")
for want in mpi_comm_dup_fn_ mpi_comm_null_copy_fn_ mpi_null_delete_fn_ mpi_win_dup_fn_ \
            mpi_conversion_fn_null_ mpi_conversion_fn_null_c_; do
  grep -q " T $want\$" <<<"$syms" ||
    { echo "FAIL: $lib does not define the callback $want" >&2; exit 1; }
done
echo "check_symbols: PASS ($(grep -c ' pmpi_' "$list") pmpi_ entry points in $(basename "$lib"), each with its weak mpi_ name)"
