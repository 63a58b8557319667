#!/bin/bash
# Two builds interleaved, two rounds, 240 s each, with graph500-cgroup-run.sh
# (this directory): the runs graph500-240s-*.txt, A = main's build after the
# sending turn and the message budget's cap, B = A with the poller promotion.
# Usage (as root): APP=<graph500 built with A's bdmpicc> \
#   graph500-promotion-ab.sh BUILD_A BUILD_B OUT_DIR
run=$(dirname "$0")/graph500-cgroup-run.sh
for rep in 1 2; do
  for side in A B; do
    build=$1; [[ $side == B ]] && build=$2
    echo "== $side round $rep $(date +%T)"
    "$run" "$build" 240 "$3/ab-$side-$rep"
  done
done
