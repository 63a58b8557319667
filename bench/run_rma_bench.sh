#!/usr/bin/env bash
# run_rma_bench.sh -- one-sided latency and bandwidth (bench/mpi/rma.c)
# under BDMPI and Open MPI in one invocation, as ratios BDMPI / Open MPI:
# put and get at 8 B, 64 KiB and 1 MiB (lock epoch, flush per operation),
# accumulate of 1 MiB of doubles, an empty fence epoch, an empty
# lock/unlock epoch. Two ranks on one node, both running (-nr 2: in memory);
# with --nodes 2, one rank on each of two nodes (operations through the
# target's master; Open MPI's two ranks on this machine as well).
#
#   --bin DIR        benchmark programs (default <repo>/build/bin)
#   --nodes N        1 (default) or 2
#   --osc LIST       Open MPI's one-sided components (default: its own choice)
#   --quick          10% of the repetitions
set -u -o pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=$script_dir/../build/bin
OSC=
NODES=1
while (($#)); do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --nodes) NODES=$2; shift 2 ;;
    --osc) OSC=$2; shift 2 ;;
    --quick) export BENCH_REPS_SCALE=0.1; shift ;;
    *) echo "$0: unknown option $1" >&2; exit 64 ;;
  esac
done
out=$(mktemp -d /tmp/bdmpi-rma-bench.XXXXXX)
mpirun_args=(--oversubscribe)
((EUID == 0)) && mpirun_args+=(--allow-run-as-root)
case $NODES in
  1) layout=(-nn 1 -ns 2 -nr 2) ;;
  2) layout=(-nn 2 -ns 1 -nr 1) ;;
  *) echo "$0: --nodes is 1 or 2" >&2; exit 64 ;;
esac
"$BIN/bdmpiexec" "${layout[@]}" "$BIN/bench_rma" > "$out/bdmpi.log" 2>&1 ||
  { echo "bdmpi run failed: $out/bdmpi.log" >&2; exit 1; }
env ${OSC:+OMPI_MCA_osc=$OSC} mpirun "${mpirun_args[@]}" -np 2 "$BIN/bench_rma.ompi" \
  > "$out/ompi.log" 2>&1 || { echo "Open MPI run failed: $out/ompi.log" >&2; exit 1; }
printf '%-10s %9s %14s %14s %8s\n' bench bytes bdmpi_us ompi_us ratio
join <(awk '/^BENCH/ {print $2 ":" $3, $4}' "$out/bdmpi.log" | sort) \
     <(awk '/^BENCH/ {print $2 ":" $3, $4}' "$out/ompi.log" | sort) |
  awk '{split($1, k, ":"); printf "%-10s %9s %14.2f %14.2f %8.2f\n", k[1], k[2], $2 * 1e6, $3 * 1e6, $2 / $3}'
echo "logs: $out"
