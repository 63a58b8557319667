#!/usr/bin/env bash
# run_runtime_bench.sh -- BDMPI runtime micro-benchmarks against their floors
# (raw POSIX mq round trip) and against Open MPI, in one invocation.
#
#   1. mq_roundtrip_bench: raw mq round trip, same core and different cores
#   2. bench_{pingpong,barrier,throughput,coll} under bdmpiexec
#   3. bench_*.ompi under mpirun
#   4. a table of ratios with their targets:
#        slave switch          <= 2 x raw mq round trip (same core)
#        8 B round trip, -nr 1 <= 4 x raw mq round trip (same core)
#        64 MiB bcast/allreduce <= 1.5 x Open MPI
#
# If bdmpiexec is missing, parts 1 and 3 still run and BDMPI is reported as
# skipped.  Logs of every run are kept in the output directory.
set -u -o pipefail

usage() {
  cat <<EOF
Usage: $0 [options]
  --bin DIR             benchmark programs          (env BENCH_BIN; default: <repo>/build/bin)
  --bdmpiexec PATH      BDMPI launcher              (env BDMPIEXEC; default: BIN/bdmpiexec)
  --bdmpiexec-args STR  extra launcher options      (env BDMPIEXEC_ARGS; default: none)
  --mpirun PATH         Open MPI launcher           (env MPIRUN; default: mpirun)
  --mpirun-args STR     mpirun options              (env MPIRUN_ARGS; default: --allow-run-as-root --oversubscribe)
  --out DIR             where logs go               (env BENCH_OUT; default: a new /tmp directory)
  --timeout SEC         limit per run               (env BENCH_TIMEOUT; default: 900)
  --quick               10% of the repetitions, short mq runs (smoke test, noisy numbers)
  --check               exit 2 if a target is missed or could not be measured
Exit status: 0 all runs succeeded, 1 a run failed, 2 (--check) a target missed or not measured.
EOF
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=${BENCH_BIN:-$script_dir/../build/bin}
BDMPIEXEC=${BDMPIEXEC:-}
BDMPIEXEC_ARGS=${BDMPIEXEC_ARGS:-}
MPIRUN=${MPIRUN:-mpirun}
MPIRUN_ARGS=${MPIRUN_ARGS:---allow-run-as-root --oversubscribe}
OUT=${BENCH_OUT:-}
TIMEOUT=${BENCH_TIMEOUT:-900}
QUICK=0
CHECK=0

while (($#)); do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --bdmpiexec) BDMPIEXEC=$2; shift 2 ;;
    --bdmpiexec-args) BDMPIEXEC_ARGS=$2; shift 2 ;;
    --mpirun) MPIRUN=$2; shift 2 ;;
    --mpirun-args) MPIRUN_ARGS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --check) CHECK=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 64 ;;
  esac
done

BIN=$(cd "$BIN" 2>/dev/null && pwd) || { echo "$0: no directory $BIN (build first, or --bin)" >&2; exit 64; }
BDMPIEXEC=${BDMPIEXEC:-$BIN/bdmpiexec}
[[ -n $OUT ]] || OUT=$(mktemp -d /tmp/bdmpi-bench.XXXXXX)
mkdir -p "$OUT"

mq_args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_min_time=0.5)
if ((QUICK)); then
  export BENCH_REPS_SCALE=0.1
  mq_args=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.1)
fi

declare -A R=()  # "<runtime>:<bench>:<param>" -> seconds per op
FAILED=()
SKIPPED=()

note() { printf '== %s\n' "$*"; }

# run LABEL PREFIX CMD... : runs CMD under the time limit, logs to OUT/LABEL.log
# and stores its "BENCH name param seconds" lines as R[PREFIX:name:param].
run() {
  local label=$1 prefix=$2; shift 2
  local log=$OUT/$label.log
  note "$label: $*"
  printf '$ %s\n' "$*" >"$log"
  timeout --kill-after=10 "$TIMEOUT" "$@" >>"$log" 2>&1
  local rc=$? found=0 tag name param value
  while read -r tag name param value; do
    [[ $tag == BENCH ]] || continue
    R[$prefix:$name:$param]=$value
    found=1
  done <"$log"
  if ((rc != 0 || !found)); then
    local why="exit $rc"
    ((found)) || why+=", no BENCH lines"
    FAILED+=("$label ($why)")
    echo "   FAILED (exit $rc), last lines of $log:"
    tail -n 8 "$log" | sed 's/^/   | /'
  else
    grep '^BENCH' "$log" | sed 's/^/   /'
  fi
}

# Other work on the machine skews every number: say how busy it was.
note "host $(hostname): $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- raw mq
mq=$BIN/mq_roundtrip_bench
if [[ -x $mq ]]; then
  note "raw mq round trip: $mq ${mq_args[*]}"
  log=$OUT/mq_roundtrip.log
  if timeout --kill-after=10 "$TIMEOUT" "$mq" "${mq_args[@]}" --benchmark_format=csv >"$log" 2>"$OUT/mq_roundtrip.err"; then
    # CSV: name,iterations,real_time,cpu_time,time_unit,...  (medians only)
    while IFS=, read -r name _ real _ unit _; do
      name=${name//\"/}
      [[ $name == *_median ]] || continue
      secs=$(awk -v t="$real" -v u="$unit" 'BEGIN { s = (u == "ns") ? 1e-9 : (u == "us") ? 1e-6 : (u == "ms") ? 1e-3 : 1; printf "%.9g", t * s }')
      case $name in
        *same_core*) R[raw:mq:same_core]=$secs ;;
        *different_cores*) R[raw:mq:different_cores]=$secs ;;
      esac
    done <"$log"
    for p in same_core different_cores; do
      echo "   raw mq round trip, $p: ${R[raw:mq:$p]:-missing}"
    done
  else
    FAILED+=("mq_roundtrip_bench")
    echo "   FAILED; see $log and $OUT/mq_roundtrip.err"
  fi
else
  FAILED+=("mq_roundtrip_bench (not built: $mq)")
fi

# ---------------------------------------------------------------- BDMPI
bdmpi=1
if [[ ! -x $BDMPIEXEC ]]; then
  bdmpi=0
  SKIPPED+=("no launcher at $BDMPIEXEC")
else
  for b in pingpong barrier throughput coll; do
    [[ -x $BIN/bench_$b ]] || { bdmpi=0; SKIPPED+=("$BIN/bench_$b not built"); }
  done
fi
if ((bdmpi)); then
  # shellcheck disable=SC2086  # BDMPIEXEC_ARGS is a list of options
  {
    run bdmpi_pingpong_ns2_nr1 bdmpi_nr1 "$BDMPIEXEC" -ns 2 -nr 1 $BDMPIEXEC_ARGS "$BIN/bench_pingpong"
    run bdmpi_pingpong_ns2_nr2 bdmpi_nr2 "$BDMPIEXEC" -ns 2 -nr 2 $BDMPIEXEC_ARGS "$BIN/bench_pingpong"
    run bdmpi_barrier_ns8_nr1 bdmpi "$BDMPIEXEC" -ns 8 -nr 1 $BDMPIEXEC_ARGS "$BIN/bench_barrier"
    run bdmpi_throughput_ns2_nr1 bdmpi "$BDMPIEXEC" -ns 2 -nr 1 $BDMPIEXEC_ARGS "$BIN/bench_throughput"
    run bdmpi_coll_ns8_nr1 bdmpi "$BDMPIEXEC" -ns 8 -nr 1 $BDMPIEXEC_ARGS "$BIN/bench_coll"
  }
else
  note "BDMPI skipped: ${SKIPPED[*]}"
fi

# ---------------------------------------------------------------- Open MPI
if command -v "$MPIRUN" >/dev/null; then
  # shellcheck disable=SC2086  # MPIRUN_ARGS is a list of options
  {
    run ompi_pingpong_np2 ompi "$MPIRUN" $MPIRUN_ARGS -np 2 "$BIN/bench_pingpong.ompi"
    run ompi_barrier_np8 ompi "$MPIRUN" $MPIRUN_ARGS -np 8 "$BIN/bench_barrier.ompi"
    run ompi_throughput_np2 ompi "$MPIRUN" $MPIRUN_ARGS -np 2 "$BIN/bench_throughput.ompi"
    run ompi_coll_np8 ompi "$MPIRUN" $MPIRUN_ARGS -np 8 "$BIN/bench_coll.ompi"
  }
else
  FAILED+=("Open MPI runs (no $MPIRUN)")
fi

# ---------------------------------------------------------------- table
MISSED=0
# row TITLE KIND A B TARGET : KIND time|rate formats the values; A and B are
# keys of R (A is BDMPI's cost, B the reference) or literal numbers after '='.
val() { if [[ $1 == =* ]]; then echo "${1#=}"; else echo "${R[$1]:-}"; fi; }
row() {
  local title=$1 kind=$2 a b target=$5
  a=$(val "$3"); b=$(val "$4")
  local line
  line=$(awk -v t="$title" -v k="$kind" -v a="$a" -v b="$b" -v g="$target" '
    function f(x) {
      if (x == "") return "n/a"
      if (k == "rate") return sprintf("%.0f MB/s", x / 1e6)
      if (x < 1e-3) return sprintf("%.2f us", x * 1e6)
      if (x < 1) return sprintf("%.2f ms", x * 1e3)
      return sprintf("%.3f s", x)
    }
    BEGIN {
      r = "n/a"; s = (g == "") ? "-" : "n/a"
      if (a != "" && b != "" && b + 0 > 0) {
        ratio = (k == "rate") ? b / a : a / b   # always cost(BDMPI) / cost(ref)
        r = sprintf("%.2f", ratio)
        if (g != "") s = (ratio <= g + 0) ? "ok" : "MISS"
      }
      printf "%-46s %12s %12s %7s %7s %5s\n", t, f(a), f(b), r,
             (g == "") ? "-" : "<=" g, s
    }')
  echo "$line"
  # A target row without data (n/a) cannot be claimed as met either.
  [[ $line == *MISS || $line == *n/a ]] && MISSED=1
  return 0
}
# Derived values: per-slave switch, and bytes/s from seconds per message.
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "") printf "%.9g", a / b }'; }
switch=$(div "${R[bdmpi:barrier:8]:-}" 8)
rate() { div "$2" "${R[$1]:-}"; }

echo
echo "Results (ratio = BDMPI cost / reference cost; logs in $OUT)"
printf "%-46s %12s %12s %7s %7s %5s\n" metric BDMPI reference ratio target ok
row "slave switch (barrier -ns 8 -nr 1 / 8) / raw mq" time "=$switch" raw:mq:same_core 2
row "8 B round trip -nr 1 / raw mq same core" time bdmpi_nr1:pingpong:8 raw:mq:same_core 4
row "8 B round trip -nr 2 / raw mq other core" time bdmpi_nr2:pingpong:8 raw:mq:different_cores ""
row "bcast 64 MiB vs Open MPI -np 8" time bdmpi:bcast:67108864 ompi:bcast:67108864 1.5
row "allreduce 64 MiB vs Open MPI -np 8" time bdmpi:allreduce:67108864 ompi:allreduce:67108864 1.5
row "8 B round trip -nr 1 vs Open MPI -np 2" time bdmpi_nr1:pingpong:8 ompi:pingpong:8 ""
row "barrier (8 ranks) vs Open MPI -np 8" time bdmpi:barrier:8 ompi:barrier:8 ""
for size in 1048576 67108864; do
  mib=$((size >> 20))
  row "throughput $mib MiB vs Open MPI -np 2" rate "=$(rate bdmpi:throughput:$size $size)" "=$(rate ompi:throughput:$size $size)" ""
done
for op in bcast allreduce; do
  row "$op 8 B vs Open MPI -np 8" time bdmpi:$op:8 ompi:$op:8 ""
  row "$op 1 MiB vs Open MPI -np 8" time bdmpi:$op:1048576 ompi:$op:1048576 ""
done

echo
((${#SKIPPED[@]})) && printf 'BDMPI SKIPPED: %s\n' "${SKIPPED[@]}"
((${#FAILED[@]})) && printf 'FAILED: %s\n' "${FAILED[@]}"
((QUICK)) && echo "NOTE: --quick run: numbers are noisy"
if ((${#FAILED[@]})); then exit 1; fi
if ((CHECK && MISSED)); then exit 2; fi
exit 0
