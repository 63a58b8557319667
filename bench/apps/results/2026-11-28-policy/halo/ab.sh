#!/bin/bash
# halo A/B: switch-outs and wall time, base vs new, interleaved
for rep in 1 2; do
for nm in 50m 70m; do for nr in 1 auto; do for b in base new; do
  if [ $b = base ]; then m=/tmp/ooc-base/bdmprun; else m=/work/wt/ooc/build/bin/bdmprun; fi
  s=$(date +%s.%N)
  out=$(/work/wt/ooc/build/bin/bdmpiexec -ns 8 -nr $nr --node-memory $nm --bdmprun $m -v --scratch-dir /var/tmp ./halo 16 4 2>&1)
  e=$(date +%s.%N)
  so=$(grep -o 'storage: [0-9]* switch-outs, [0-9]* bytes' <<<"$out" | awk '{print $2, $4}')
  sum=$(grep -o 'sum [0-9]*' <<<"$out")
  echo "$rep $nm nr=$nr $b $so $(echo "$e - $s" | bc) $sum"
done; done; done; done
