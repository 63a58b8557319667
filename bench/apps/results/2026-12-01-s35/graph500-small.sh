#!/bin/bash
# Graph500 at a small scale (SCALE, default 16), 8 ranks, out of core by
# bdmpiexec's --node-memory rather than a cgroup: a quick check that a
# scheduler change neither stalls nor slows the CSR and the BFS.
# Usage: graph500-small.sh BUILD APP OUT_PREFIX [bdmpiexec options...]
build=$1; app=$2; out=$3; shift 3
d=$(mktemp -d /var/tmp/g5s.XXXXXX); cd $d
s=$(date +%s.%N)
timeout ${CAP:-60} $build/bin/bdmpiexec -ns 8 --scratch-dir $d --report=json $out.report.json "$@" $app ${SCALE:-16} 16 > $out.out 2> $out.err
rc=$?; e=$(date +%s.%N)
echo "rc=$rc wall=$(echo "$e - $s" | bc) $(grep -E '^construction_time' $out.err) BFS0: $(grep -E 'Time for BFS 0 ' $out.err)"
cd /; rm -rf $d
