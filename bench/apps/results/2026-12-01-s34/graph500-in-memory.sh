#!/bin/bash
# Graph500 scale 19 in memory (no cgroup): Open MPI against bdmpiexec default and -nr 1, capped.
cap=${CAP:-150}; out=/work/tmpres/s34/inmem; mkdir -p $out
B=/work/wt/s34-lead/build/bin; A=/work/appbuild/s34
for r in ${ROUNDS:-1}; do
  sync; echo 3 > /proc/sys/vm/drop_caches
  timeout $cap mpirun --allow-run-as-root --oversubscribe -np 8 $A/graph500.ompi 19 16 > $out/ompi-$r.out 2> $out/ompi-$r.err
  for nr in 2 1; do
    sync; echo 3 > /proc/sys/vm/drop_caches
    s=$(mktemp -d /var/tmp/g500.XXXX)
    timeout $cap $B/bdmpiexec -ns 8 -nr $nr --scratch-dir $s --report=json $out/bdmpi-nr$nr-$r.json $A/graph500.bdmpi 19 16 > $out/bdmpi-nr$nr-$r.out 2> $out/bdmpi-nr$nr-$r.err
    rm -rf $s
  done
done
