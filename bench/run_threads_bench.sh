#!/usr/bin/env bash
# run_threads_bench.sh -- what MPI_THREAD_MULTIPLE costs a round trip, in one
# invocation, as ratios against MPI_Init's runs of the same invocation (the
# machine's load skews every absolute figure):
#
#   init      MPI_Init (THREAD_SINGLE)
#   multiple  MPI_Init_thread(MULTIPLE), one thread: the rank's lock in every
#             call and a thread count (stat of /proc/self/task) per wait
#   idle      MPI_Init_thread(MULTIPLE) and a second thread that only waits on
#             a condition variable: every wait polls the master's twin
#             (docs/scheduling-and-memory.md, "Threads")
#
# each with bench/mpi/pingpong.c (8 B round trip, 2 ranks) under -nr 1 and
# -nr 2, and under mpirun (init and multiple). Each run is repeated --reps
# times, interleaved; the table shows the median (and the spread).
set -u -o pipefail

usage() {
  cat <<EOF2
Usage: $0 [options]
  --bin DIR        benchmark programs and bdmpiexec   (default: <repo>/build/bin)
  --reps N         repetitions of every run           (default: 5)
  --mpirun PATH    Open MPI launcher                  (default: mpirun)
  --out DIR        logs                               (default: a new /tmp directory)
  --timeout SEC    limit per run                      (default: 120)
Environment: BENCH_REPS_SCALE (default here 0.3) scales the programs' repetitions.
Exit status: 0 every run succeeded, 1 a run failed.
EOF2
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=$script_dir/../build/bin
REPS=5
MPIRUN=mpirun
OUT=
TIMEOUT=120
while (($#)); do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --mpirun) MPIRUN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 64 ;;
  esac
done
[[ -n $OUT ]] || OUT=$(mktemp -d /tmp/bdmpi-threads.XXXXXX)
mkdir -p "$OUT"
export BENCH_REPS_SCALE=${BENCH_REPS_SCALE:-0.3}
# bdmpiexec provides MPI_THREAD_SERIALIZED unless told otherwise; the
# MULTIPLE configurations must really get MULTIPLE.
export BDMPI_THREAD_LEVEL=multiple

declare -A T=()  # "<config>" -> seconds per round trip, one per repetition
FAILED=()

# measure CONFIG LEVEL IDLE CMD... : runs CMD with the program's thread
# settings, appends its BENCH figure to T.
measure() {
  local config=$1 level=$2 idle=$3; shift 3
  local log="$OUT/$config.log" value
  printf '$ BENCH_THREAD_LEVEL=%s BENCH_IDLE_THREAD=%s %s\n' "$level" "$idle" "$*" >>"$log"
  value=$(BENCH_THREAD_LEVEL=$level BENCH_IDLE_THREAD=$idle \
          timeout --kill-after=10 "$TIMEOUT" "$@" 2>>"$log" | tee -a "$log" |
          awk '$1 == "BENCH" { print $4 }')
  if [[ -z $value ]]; then
    FAILED+=("$config (see $log)")
    return
  fi
  T[$config]+="$value "
}

echo "== host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); logs in $OUT"
for ((rep = 1; rep <= REPS; ++rep)); do
  echo "== repetition $rep of $REPS"
  for nr in 1 2; do
    measure init.nr$nr "" 0 "$BIN/bdmpiexec" -ns 2 -nr $nr "$BIN/bench_pingpong"
    measure multiple.nr$nr multiple 0 "$BIN/bdmpiexec" -ns 2 -nr $nr "$BIN/bench_pingpong"
    measure idle.nr$nr multiple 1 "$BIN/bdmpiexec" -ns 2 -nr $nr "$BIN/bench_pingpong"
  done
  measure init.ompi "" 0 "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 \
    "$BIN/bench_pingpong.ompi"
  measure multiple.ompi multiple 0 "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 \
    "$BIN/bench_pingpong.ompi"
done
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# stats, median, row: medians of the repetitions, spreads, ratios.
# shellcheck source=lib/rep_stats.sh
. "$script_dir/lib/rep_stats.sh"

echo
echo "== 8 B round trip, 2 ranks: median (min-max over $REPS), ratio to MPI_Init's"
for where in nr1 nr2 ompi; do
  echo "-- $where"
  row "init" "init.$where" "init.$where"
  row "multiple" "multiple.$where" "init.$where"
  [[ $where != ompi ]] && row "multiple + idle thread" "idle.$where" "init.$where"
done

if ((${#FAILED[@]})); then
  printf 'FAILED: %s\n' "${FAILED[@]}"
  exit 1
fi
