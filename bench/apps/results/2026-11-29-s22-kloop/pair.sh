#!/bin/bash
# pair.sh OUT ROUNDS A B: runs A and B at once, on cores 0 and 1 (swapped each round); km_assign samples
out=$1; rounds=$2; A=$3; B=$4
# BIN: a build's bin directory; BASE_BIN: another's (the base case); DOCS:
# the input (gen_documents --bytes 64m).
bin=${BIN:?set BIN to the bin directory of a build}; D=${DOCS:?set DOCS to the input file}
mkdir -p $out
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmd_for() {
  case $1 in
    serial) echo "$bin/kmeans_serial $D --iters 10" ;;
    bdmpi) echo "$bin/bdmpiexec -ns 1 $bin/kmeans $D --iters 10" ;;
    base) echo "$BASE_BIN/bdmpiexec -ns 1 $BASE_BIN/kmeans $D --iters 10" ;;
    off) echo "$bin/bdmpiexec -ns 1 --storage-alloc off $bin/kmeans $D --iters 10" ;;
    thr64) echo "$bin/bdmpiexec -ns 1 --storage-threshold 64m $bin/kmeans $D --iters 10" ;;
    ompi) echo "mpirun -np 1 --bind-to none $bin/kmeans.ompi $D --iters 10" ;;
  esac
}
samples() { perf report -i $1 --stdio --sort sym -n 2>/dev/null | grep -E "km_assign" | awk '{print $2}'; }
for r in $(seq $rounds); do
  ca=$((r % 2)); cb=$((1 - ca))
  taskset -c $ca perf record -q -e cpu-clock -F 2000 -o $out/A.$r.data -- $(cmd_for $A) > $out/A.$r.out 2>&1 &
  pa=$!
  taskset -c $cb perf record -q -e cpu-clock -F 2000 -o $out/B.$r.data -- $(cmd_for $B) > $out/B.$r.out 2>&1 &
  pb=$!
  wait $pa $pb
  sa=$(samples $out/A.$r.data); sb=$(samples $out/B.$r.data)
  echo "$r $A@$ca $sa $B@$cb $sb ratio $(echo "scale=3; $sb/$sa" | bc)"
done
