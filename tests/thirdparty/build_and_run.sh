#!/usr/bin/env bash
# build_and_run.sh BIN_DIR -- builds tests/thirdparty/jacobi.c, a program
# written only against the MPI standard, with the build tree's bdmpicc (as a
# user would: no BDMPI header, no CMake target), then runs it under
# bdmpiexec on one node and on two. Fails on a build error, a non-zero exit
# or a result that differs from the serial computation.
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/bdmpicc" -O2 -o "$work/jacobi" "$here/jacobi.c" -lm
"$bin/bdmpiexec" -ns 8 -nr 1 "$work/jacobi" | tee "$work/out1"
"$bin/bdmpiexec" -nn 2 -ns 3 -nr 2 "$work/jacobi" 4099 50 | tee "$work/out2"
grep -q "jacobi: OK" "$work/out1" && grep -q "jacobi: OK" "$work/out2"
