#!/bin/bash
# One Graph500 run (scale 19, 8 ranks) under bdmpiexec in a 128 MiB memory
# cgroup (v1) without swap, page cache dropped first; used for the
# graph500-300s-*.txt runs of this directory, without bench/apps/run.sh's
# in-memory reference and mpirun runs.
#
# Usage (as root): APP=<graph500 built with that build's bdmpicc> \
#   graph500-cgroup-run.sh BUILD CAP_SECONDS OUT_PREFIX [bdmpiexec options...]
# Writes OUT_PREFIX.out, .err and .report.json; prints the exit status, the
# wall time and the construction and first BFS times. LIMIT overrides 128M.
build=$1; cap=$2; out=$3; shift 3
cg=/sys/fs/cgroup/memory/graph500-run-$$
mkdir -p "$cg"
echo "${LIMIT:-128M}" > "$cg/memory.limit_in_bytes"
echo 0 > "$cg/memory.swappiness"
sync; echo 3 > /proc/sys/vm/drop_caches
scratch=$(mktemp -d /var/tmp/graph500-run.XXXXXX)
cd "$scratch" || exit 1
start=$(date +%s.%N)
bash -c "echo \$\$ > $cg/cgroup.procs; exec timeout -s TERM $cap $build/bin/bdmpiexec -ns 8 --scratch-dir $scratch --report=json $out.report.json $* $APP 19 16" > "$out.out" 2> "$out.err"
rc=$?
end=$(date +%s.%N)
echo "rc=$rc wall=$(echo "$end - $start" | bc)"
grep -E "^(graph_generation|construction_time|Time for BFS 0 |Time for BFS 1 )" "$out.err" | head
sleep 1
rmdir "$cg"
cd / && rm -rf "$scratch"
