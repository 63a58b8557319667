#!/bin/bash
# Graph500 scale 19, 8 ranks, 128 MiB cgroup without swap, default options: main's build (A) against the budget that grows only with room (B), interleaved.
R=/work/main/bench/apps/results/2026-11-30-s33/graph500-cgroup-run.sh
out=/work/tmpres/s34/budget; mkdir -p $out
for round in ${ROUNDS:-1}; do
  echo "== round $round B $(date +%T)"; APP=/work/appbuild/s34/graph500.bdmpi $R /work/wt/s34-lead/build ${CAP:-240} $out/B-$round
  echo "== round $round A $(date +%T)"; APP=/work/appbuild/s34/graph500.main $R /work/wt/s34-oom-master/build ${CAP:-240} $out/A-$round
done
