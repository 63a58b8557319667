#!/usr/bin/env bash
# libbdmpi.so exports its C interface and nothing else: MPI_*, PMPI_*,
# BDMPI_*, the common blocks behind MPI_F_STATUS(ES)_IGNORE, accept and
# accept4 (a blocking accept yields the rank's running slot) and (unless
# built with a sanitizer) the interposed malloc family.
# A C++ symbol of the runtime in a user program's namespace could clash with
# or be interposed by the program's own symbols.
#
#   exports_test.sh LIBBDMPI_SO MALLOC_INTERPOSED(0|1)
set -euo pipefail
lib=$1
interposed=$2
allocation="malloc calloc realloc free posix_memalign aligned_alloc memalign valloc pvalloc malloc_usable_size"
sockets="accept accept4"

symbols=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
status=0

# Fortran's MPI_STATUS(ES)_IGNORE common blocks: C's MPI_F_STATUS(ES)_IGNORE.
unexpected=$(grep -Ev '^(MPI_|PMPI_|BDMPI_|mpi_fortran_status(es)?_ignore_$)' <<<"$symbols" |
  grep -Fxv -f <(tr ' ' '\n' <<<"$allocation $sockets") || true)
if [[ -n $unexpected ]]; then
  echo "FAIL: $lib exports $(wc -l <<<"$unexpected") symbol(s) outside its interface:"
  head -20 <<<"$unexpected" | sed 's/^/  /'
  status=1
fi

expected="MPI_Init MPI_Finalize MPI_Send MPI_Recv MPI_Bcast BDMPI_Release BDMPI_Alloc_storage $sockets"
if [[ $interposed == 1 ]]; then
  expected+=" $allocation"
fi
for name in $expected; do
  if ! grep -Fxq "$name" <<<"$symbols"; then
    echo "FAIL: $lib does not export $name"
    status=1
  fi
done
if [[ $interposed == 0 ]] && grep -Fxq malloc <<<"$symbols"; then
  echo "FAIL: $lib interposes malloc in a sanitizer build"
  status=1
fi

if [[ $status == 0 ]]; then
  echo "ok: $lib exports $(wc -l <<<"$symbols") symbols, all in its interface"
fi
exit $status
