#!/bin/bash
# Graph500 scale 19, 8 ranks, in a 128 MiB memory cgroup (v1) without swap,
# page cache dropped before each run: builds (or bdmpiexec options)
# interleaved round by round, each run capped at CAP seconds (default 150).
#
# Usage (as root): graph500-ab.sh OUT_DIR NAME=BUILD=APP[=OPTIONS]...
#   BUILD: a BDMPI build tree; APP: graph500 built with that build's
#   bdmpicc; OPTIONS: bdmpiexec's, split at spaces (default none).
# Writes OUT_DIR/NAME-ROUND.{out,err,report.json}; sum them up with
# ../2026-12-01-s34/graph500_summary.py OUT_DIR/NAME-ROUND...
run=$(dirname "$0")/../2026-11-30-s33/graph500-cgroup-run.sh
out=$1; shift; mkdir -p "$out"
for round in ${ROUNDS:-1 2}; do
  for spec in "$@"; do
    IFS== read -r name build app options <<<"$spec"
    echo "== round $round $name $(date +%T)"
    # shellcheck disable=SC2086 # the options are words
    APP=$app "$run" "$build" "${CAP:-150}" "$out/$name-$round" $options
  done
done
