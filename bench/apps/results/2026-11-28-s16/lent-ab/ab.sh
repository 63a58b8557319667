#!/bin/bash
# A/B of the master on PageRank: old (/tmp/ooc16-base) vs new (build), -v summaries and reports.
set -u
B=/work/wt/ooc16/build/bin
D=/var/tmp/ooc16-ab
mkdir -p $D/scratch
[[ -f $D/g.bin ]] || $B/gen_graph --out $D/g.bin --bytes $((192<<20)) --seed 1 --avg-degree 32 >/dev/null
for round in 1 2; do
for which in new old; do
  bin=$B; [[ $which == old ]] && bin=/tmp/ooc16-base/bin
  sync; echo 3 > /proc/sys/vm/drop_caches
  i0=$(awk '$1=="pgpgin"{print $2}' /proc/vmstat); o0=$(awk '$1=="pgpgout"{print $2}' /proc/vmstat)
  s=$(date +%s.%N)
  $bin/bdmpiexec -ns 16 -nr 1 --node-memory 48m --scratch-dir $D/scratch -v --report=json /work/ooc16-runs/ab/$which.$round.json $B/pagerank $D/g.bin --iters 3 > /work/ooc16-runs/ab/$which.$round.out 2> /work/ooc16-runs/ab/$which.$round.err
  rc=$?; e=$(date +%s.%N)
  i1=$(awk '$1=="pgpgin"{print $2}' /proc/vmstat); o1=$(awk '$1=="pgpgout"{print $2}' /proc/vmstat)
  echo "$which $round rc=$rc disk-MiB-in/out $(( (i1-i0)/1024 ))/$(( (o1-o0)/1024 )) wall $(echo "$e - $s" | bc) $(grep -o 'storage: [0-9]* switch-outs, [0-9]* bytes written back' /work/ooc16-runs/ab/$which.$round.err) $(grep -o '[0-9]* message bytes moved from memory to disk' /work/ooc16-runs/ab/$which.$round.err) $(grep -o '[0-9]* lent blocks copied' /work/ooc16-runs/ab/$which.$round.err) $(grep RESULT /work/ooc16-runs/ab/$which.$round.out) load $(cut -d' ' -f1 /proc/loadavg)"
done
done
rm -rf $D
