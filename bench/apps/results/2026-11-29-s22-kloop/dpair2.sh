#!/bin/bash
# dpair2.sh ROUNDS LAYOUT_A "cfgA" LAYOUT_B "cfgB": two layouts of drv (drv.c, built
# against apps/kmeans) at once, one per core, swapped each round; run where
# drv and docs64.bin (gen_documents --bytes 64m) are.
rounds=$1; LA=$2; A=$3; LB=$4; B=$5
for r in $(seq $rounds); do
  ca=$((r % 2)); cb=$((1 - ca)); ta=$(mktemp); tb=$(mktemp)
  (LAYOUT=$LA taskset -c $ca ./drv docs64.bin 6 $A | awk '{print $NF}' > $ta) & pa=$!
  (LAYOUT=$LB taskset -c $cb ./drv docs64.bin 6 $B | awk '{print $NF}' > $tb) & pb=$!
  wait $pa $pb
  echo "$r A[$LA $A] $(cat $ta) B[$LB $B] $(cat $tb) ratio $(echo "scale=3; $(cat $tb)/$(cat $ta)" | bc)"
  rm -f $ta $tb
done
