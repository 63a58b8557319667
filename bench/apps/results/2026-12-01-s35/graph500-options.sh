#!/bin/bash
# Graph500 scale 19, 8 ranks, in the 128 MiB cgroup without swap, one run
# per set of bdmpiexec options, each capped at CAP seconds (default 150).
# Usage (as root): graph500-options.sh BUILD APP OUT_DIR NAME 'OPTIONS' [NAME 'OPTIONS'...]
R=$(dirname "$0")/../2026-11-30-s33/graph500-cgroup-run.sh
build=$1; app=$2; out=$3; shift 3
mkdir -p $out
while [[ $# -ge 2 ]]; do
  echo "== $1 ($2) $(date +%T)"; APP=$app $R $build ${CAP:-150} $out/$1 $2 | head -3; shift 2
done
