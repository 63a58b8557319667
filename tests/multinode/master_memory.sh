#!/usr/bin/env bash
# master_memory.sh BDMPIEXEC PROGRAM [ARGS...]
#
# Runs PROGRAM on 2 masters with a small memory budget and the masters'
# info log on, and checks that each master's peak RSS stayed small while the
# program moved large messages between the nodes: large payloads must travel
# in chunks from spill file to spill file, never whole through master memory.
set -euo pipefail
bdmpiexec=$1
shift
limit_kib=${MASTER_RSS_LIMIT_KIB:-65536}  # the program moves 64 MiB messages
scratch=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$scratch" "$log"' EXIT

BDMPI_LOG=info BDMPI_LOG_CATEGORIES=disk \
  timeout -k 10 180 "$bdmpiexec" -nn 2 -ns 2 -nr 1 --mem-budget 8m \
  --scratch-dir "$scratch" "$@" 2>"$log"
grep "peak RSS" "$log"
peaks=$(sed -n 's/.*peak RSS \([0-9]*\) KiB.*/\1/p' "$log")
[[ $(wc -w <<<"$peaks") -eq 2 ]] || { echo "FAIL: expected a peak RSS line from each of 2 masters"; cat "$log"; exit 1; }
for kib in $peaks; do
  if ((kib > limit_kib)); then
    echo "FAIL: a master's peak RSS was $kib KiB (limit $limit_kib KiB)"
    exit 1
  fi
done
echo "PASS: master peak RSS $(tr '\n' ' ' <<<"$peaks")KiB, limit $limit_kib KiB"
