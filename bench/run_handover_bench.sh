#!/usr/bin/env bash
# run_handover_bench.sh -- the cost of handing the processor from one slave to
# another, in one invocation, as ratios against runs of the same
# invocation (the machine's load skews every absolute figure):
#
#   pingpong  8 B round trip, 2 ranks:   -nr 1, -nr 2, -nn 2 (-ns 1 -nr 1), mpirun
#   fanin     a round of 12 B messages through rank 0, 8 ranks (bench/mpi/fanin.c):
#                                        -nr 1, -nr 2, -nr 8, -nn 2 (-ns 4 -nr 1), mpirun
#
# Each run is repeated --reps times; the table shows the median over the
# repetitions (and their spread). Targets: pingpong -nr 2 <= 2 x
# -nr 1; fanin -nr 2 and -nn 2 close to -nr 1 (shown, not checked).
# With --base-bin DIR, the BDMPI runs are repeated with the programs of
# another build (e.g. of main) in the same invocation, for before/after.
set -u -o pipefail

usage() {
  cat <<EOF
Usage: $0 [options]
  --bin DIR        benchmark programs and bdmpiexec   (default: <repo>/build/bin)
  --base-bin DIR   a second build to compare against  (default: none)
  --reps N         repetitions of every run           (default: 3)
  --mpirun PATH    Open MPI launcher                  (default: mpirun)
  --out DIR        logs                               (default: a new /tmp directory)
  --timeout SEC    limit per run                      (default: 120)
Environment: BENCH_REPS_SCALE (default here 0.3) scales the programs' repetitions.
Exit status: 0 every run succeeded, 1 a run failed.
EOF
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=$script_dir/../build/bin
BASE_BIN=
REPS=3
MPIRUN=mpirun
OUT=
TIMEOUT=120
while (($#)); do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --base-bin) BASE_BIN=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --mpirun) MPIRUN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 64 ;;
  esac
done
[[ -n $OUT ]] || OUT=$(mktemp -d /tmp/bdmpi-handover.XXXXXX)
mkdir -p "$OUT"
export BENCH_REPS_SCALE=${BENCH_REPS_SCALE:-0.3}

declare -A T=()  # "<build>:<config>" -> seconds per op, one per repetition
FAILED=()

# measure BUILD CONFIG CMD... : runs CMD, appends its BENCH figure to T.
measure() {
  local build=$1 config=$2; shift 2
  local log="$OUT/$build.$config.log"
  printf '$ %s\n' "$*" >>"$log"
  local value
  value=$(timeout --kill-after=10 "$TIMEOUT" "$@" 2>>"$log" | tee -a "$log" |
          awk '$1 == "BENCH" { print $4 }')
  if [[ -z $value ]]; then
    FAILED+=("$build $config (see $log)")
    return
  fi
  T[$build:$config]+="$value "
}

bdmpi_runs() {
  local build=$1 bin=$2 exec=$2/bdmpiexec
  measure "$build" pingpong.nr1 "$exec" -ns 2 -nr 1 "$bin/bench_pingpong"
  measure "$build" pingpong.nr2 "$exec" -ns 2 -nr 2 "$bin/bench_pingpong"
  measure "$build" pingpong.nn2 "$exec" -nn 2 -ns 1 -nr 1 "$bin/bench_pingpong"
  measure "$build" fanin.nr1 "$exec" -ns 8 -nr 1 "$bin/bench_fanin"
  measure "$build" fanin.nr2 "$exec" -ns 8 -nr 2 "$bin/bench_fanin"
  measure "$build" fanin.nr8 "$exec" -ns 8 -nr 8 "$bin/bench_fanin"
  measure "$build" fanin.nn2 "$exec" -nn 2 -ns 4 -nr 1 "$bin/bench_fanin"
}

echo "== host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); logs in $OUT"
for ((rep = 1; rep <= REPS; ++rep)); do
  echo "== repetition $rep of $REPS"
  # Interleaved, so that a burst of load hits every configuration alike.
  bdmpi_runs new "$BIN"
  [[ -n $BASE_BIN ]] && bdmpi_runs base "$BASE_BIN"
  measure ompi pingpong "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$BIN/bench_pingpong.ompi"
  measure ompi fanin "$MPIRUN" --allow-run-as-root --oversubscribe -np 8 "$BIN/bench_fanin.ompi"
done
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# stats, median, row: medians of the repetitions, spreads, ratios.
# shellcheck source=lib/rep_stats.sh
. "$script_dir/lib/rep_stats.sh"

for build in new ${BASE_BIN:+base}; do
  echo
  echo "== $build build ($([[ $build == new ]] && echo "$BIN" || echo "$BASE_BIN")): median per op (min-max over $REPS), ratio"
  echo "-- 8 B round trip, 2 ranks; ratio to -nr 1 (target: -nr 2 <= 2)"
  row "pingpong -nr 1" "$build:pingpong.nr1" "$build:pingpong.nr1"
  row "pingpong -nr 2" "$build:pingpong.nr2" "$build:pingpong.nr1"
  row "pingpong -nn 2 -ns 1" "$build:pingpong.nn2" "$build:pingpong.nr1"
  row "pingpong mpirun" "ompi:pingpong" "$build:pingpong.nr1"
  echo "-- fanin round, 8 ranks; ratio to -nr 1"
  row "fanin -nr 1" "$build:fanin.nr1" "$build:fanin.nr1"
  row "fanin -nr 2" "$build:fanin.nr2" "$build:fanin.nr1"
  row "fanin -nr 8" "$build:fanin.nr8" "$build:fanin.nr1"
  row "fanin -nn 2 -ns 4" "$build:fanin.nn2" "$build:fanin.nr1"
  row "fanin mpirun" "ompi:fanin" "$build:fanin.nr1"
done
if [[ -n $BASE_BIN ]]; then
  echo
  echo "-- new / base, same invocation"
  for config in pingpong.nr1 pingpong.nr2 pingpong.nn2 fanin.nr1 fanin.nr2 fanin.nr8 fanin.nn2; do
    row "$config" "new:$config" "base:$config"
  done
fi

if ((${#FAILED[@]})); then
  printf 'FAILED: %s\n' "${FAILED[@]}"
  exit 1
fi
