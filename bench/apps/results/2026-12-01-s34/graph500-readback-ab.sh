#!/bin/bash
# Graph500 scale 19, 8 ranks, 128 MiB cgroup without swap, 240 s each: read-back advice variants, interleaved.
R=/work/main/bench/apps/results/2026-11-30-s33/graph500-cgroup-run.sh
out=/work/tmpres/s34/readback; mkdir -p $out
for round in ${ROUNDS:-1}; do
  for v in ${VARIANTS:-sh rs}; do
    echo "== round $round variant $v $(date +%T)"
    BDMPI_EXP_READBACK=$v APP=/work/appbuild/s34/graph500.exp $R /work/wt/s34-exp/build ${CAP:-240} $out/$v-$round
  done
done
