#!/usr/bin/env bash
# run_observe_overhead.sh -- what --report and --trace cost (the target:
# at most 2%), in one invocation: each workload runs without observability,
# with --report and with --trace, in turn (off, report, trace, off, ...),
# so that the machine's drift hits every mode alike.
#
#   bench/run_observe_overhead.sh [--bin DIR] [--reps N] [--ranks N] [--out DIR]
#
#   --bin DIR    the build's bin directory (default <repo>/build/bin)
#   --reps N     runs of each workload and mode (default 5)
#   --ranks N    ranks of the barrier benchmark (default 16, -nr 1)
#   --out DIR    keep the logs there (default: a temporary directory, removed)
#
# Workloads:
#   barrier   bench_barrier with N ranks, -nr 1: the message-heavy case
#             (every barrier switches every rank; the figure is seconds per
#             barrier as the program prints it)
#   kmeans    apps/kmeans on a 24 MB generated input, 8 ranks, -nr 1,
#             --node-memory 8m (ranks write their memory back), 3
#             iterations (the figure is the wall time)
# For each workload and mode it prints the median and the spread
# ((max - min) / median) of the runs, and the ratio of each mode's median
# to the median without observability, for two figures: the workload's own
# (wall time), and the CPU time (user + system) of the whole job, master
# and ranks. On a machine shared with other work the wall figures are
# noisy; the CPU time is what recording costs and is steadier.
# Then, when the build has it, bench/observe_cost_bench: the master's
# own CPU time per 16-rank barrier in-process (no kernel, no ranks), the
# steadiest figure of what recording costs per state change.
# Exit status: 0, or 1 when a run failed.
set -u -o pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$script_dir/../build/bin reps=5 ranks=16 out=""
while (($#)); do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "$0: unknown option $1" >&2; exit 64 ;;
  esac
done
for program in bdmpiexec bench_barrier kmeans gen_documents; do
  [[ -x $bin/$program ]] || { echo "$0: $bin/$program is missing (build first, or --bin)" >&2; exit 64; }
done
if [[ -z $out ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out/scratch"
"$bin/gen_documents" --out "$out/documents.bin" --bytes 24m --seed 5 >/dev/null ||
  { echo "$0: gen_documents failed" >&2; exit 1; }

modes=(off report trace)
mode_args() {
  case $1 in
    off) ;;
    report) echo "--report --report=json $out/report.json" ;;
    trace) echo "--trace $out/trace.json" ;;
  esac
}

# One run; prints its figure and the job's CPU seconds.
run() {
  local workload=$1 mode=$2 log=$out/$1.$2.$3.log start figure cpu
  local TIMEFORMAT='%3U %3S'
  cpu=$( { time run_once "$workload" "$mode" "$log" 2>/dev/null; } 2>&1 >/dev/null) || return 1
  figure=$(<"$log.figure")
  [[ -n $figure ]] || return 1
  echo "$figure $(awk -v u="${cpu% *}" -v s="${cpu#* }" 'BEGIN { printf "%.3f", u + s }')"
}

# The workload itself; leaves its figure in LOG.figure.
run_once() {
  local workload=$1 mode=$2 log=$3 start figure
  # shellcheck disable=SC2046 # the mode's options are words
  case $workload in
    barrier)
      BENCH_REPS_SCALE=${BENCH_REPS_SCALE:-1} "$bin/bdmpiexec" -ns "$ranks" -nr 1 \
        $(mode_args "$mode") "$bin/bench_barrier" >"$log" 2>&1 || return 1
      figure=$(awk '$1 == "BENCH" && $2 == "barrier" { print $4 }' "$log") ;;
    kmeans)
      start=$EPOCHREALTIME
      "$bin/bdmpiexec" -ns 8 -nr 1 --node-memory 8m --scratch-dir "$out/scratch" \
        $(mode_args "$mode") "$bin/kmeans" "$out/documents.bin" --iters 3 >"$log" 2>&1 ||
        return 1
      figure=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }') ;;
  esac
  echo "$figure" >"$log.figure"
}

status=0
declare -A figures=() cpus=()
for workload in barrier kmeans; do
  for ((k = 1; k <= reps; ++k)); do
    for mode in "${modes[@]}"; do
      if result=$(run "$workload" "$mode" "$k"); then
        figures[$workload.$mode]+="${result% *} "
        cpus[$workload.$mode]+="${result#* } "
      else
        echo "$0: $workload with $mode failed; see $out/$workload.$mode.$k.log" >&2
        tail -3 "$out/$workload.$mode.$k.log" >&2
        status=1
      fi
    done
  done
done

# median, spread and best (minimum) of the runs
stats() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '
  { v[NR] = $1 }
  END { if (NR == 0) { print "n/a n/a n/a"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.6g %.1f%% %.6g\n", m, 100 * (v[NR] - v[1]) / m, v[1] }'; }
echo "Observability overhead: $reps runs per mode, alternating; figure = median, spread = (max - min) / median,"
echo "best = the fastest run (what the machine's noise added least to: on a shared machine the steadier ratio)."
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "n/a" }'; }
echo "| workload | mode | median s | spread | ratio to off | best s | best ratio to off | CPU s (median) | CPU spread | CPU ratio to off |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for workload in barrier kmeans; do
  read -r off_median _ off_best < <(stats <<<"${figures[$workload.off]:-}")
  read -r off_cpu _ _ < <(stats <<<"${cpus[$workload.off]:-}")
  for mode in "${modes[@]}"; do
    read -r median spread best < <(stats <<<"${figures[$workload.$mode]:-}")
    read -r cpu cpu_spread _ < <(stats <<<"${cpus[$workload.$mode]:-}")
    echo "| $workload | $mode | $median | $spread | $(ratio "$median" "$off_median") | $best | $(ratio "$best" "$off_best") | $cpu | $cpu_spread | $(ratio "$cpu" "$off_cpu") |"
  done
done
if [[ -x $bin/observe_cost_bench ]]; then
  echo
  "$bin/observe_cost_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
fi
echo
echo "Runs (figure, CPU s):"
for workload in barrier kmeans; do
  for mode in "${modes[@]}"; do
    echo "  $workload $mode: ${figures[$workload.$mode]:-} / ${cpus[$workload.$mode]:-}"
  done
done
exit "$status"
