#!/usr/bin/env bash
# run_build_ab.sh -- one change's cost on the inter-node collectives: two
# builds of BDMPI (A: before, B: after) run the same small benchmarks on
# -nn 2 -ns 1 -nr 1, alternately (A B, then B A, ...), in one invocation, so
# that both see the same load on a shared machine.
#
#   bench/run_build_ab.sh A_BIN B_BIN [ROUNDS [ONLY]]
#
# ROUNDS: 5 unless given; ONLY: an extended regex of the benchmarks to run
# (e.g. 'barrier|allreduce_8'), all unless given.
#
# A_BIN, B_BIN: bin directories with bdmpiexec, bdmprun, bench_barrier,
# bench_coll and, when it is shared, libbdmpi (found first there: copy the
# programs out of a build tree that may change meanwhile). Runs: barrier, allreduce 8 B, bcast and allreduce 1 MiB and
# 4 MiB (bench/mpi). Prints each run's figures (us per call: the median
# and the fastest of its trials), then per benchmark, for A and B, the
# median over rounds of the runs' medians with their spread, the fastest
# trial of all runs, and B/A of both. On a loaded machine the times spread
# over a factor of 10 and more (whether the masters find a core); the
# fastest trials, the least disturbed, show the cost of the code itself
# better than the medians.
set -u -o pipefail
a_bin=${1:?"usage: $0 A_BIN B_BIN [ROUNDS]"} b_bin=${2:?"usage: $0 A_BIN B_BIN [ROUNDS]"}
rounds=${3:-5} only=${4:-.}
out=$(mktemp -d /tmp/build_ab.XXXXXX)
benches=(
  "barrier|bench_barrier"
  "allreduce_8|bench_coll allreduce 8"
  "bcast_1m|bench_coll bcast 1m"
  "allreduce_1m|bench_coll allreduce 1m"
  "bcast_4m|bench_coll bcast 4m"
  "allreduce_4m|bench_coll allreduce 4m"
)
# One run: prints its figure in us, or "fail".
run() {
  local bin=$1 name=$2 prog
  read -r -a prog <<<"$3"
  local log=$out/$name.$4.$5.log
  # 4 MiB runs do 3 calls per trial: 4x more.
  local scale=1
  [[ $name == *_4m ]] && scale=4
  if LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} BENCH_REPS_SCALE=$scale timeout 120 "$bin/bdmpiexec" -nn 2 -ns 1 -nr 1 \
      "$bin/${prog[0]}" "${prog[@]:1}" >"$log" 2>&1; then
    sed -n 's/^# .*median \([0-9.]*\) us, min \([0-9.]*\) us.*/\1\/\2/p' "$log" | head -1
  else
    echo fail
  fi
}
declare -A figures
for ((r = 0; r < rounds; ++r)); do
  order=(A B)
  ((r % 2)) && order=(B A)
  for entry in "${benches[@]}"; do
    name=${entry%%|*} command=${entry#*|}
    [[ $name =~ $only ]] || continue
    for build in "${order[@]}"; do
      bin=$a_bin
      [[ $build == B ]] && bin=$b_bin
      figure=$(run "$bin" "$name" "$command" "$build" "$r")
      figures[$build.$name]+="$figure "
      echo "round $r $build $name $figure us"
    done
  done
done
echo
printf '%-14s %-26s %-26s %-7s %-9s %-9s %s\n' benchmark "A median (range) us" \
  "B median (range) us" B/A "A best" "B best" B/A
for entry in "${benches[@]}"; do
  name=${entry%%|*}
  [[ $name =~ $only ]] || continue
  python3 - "$name" "${figures[A.$name]}" "${figures[B.$name]}" <<'PY'
import statistics, sys
name, a, b = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def summary(values):
    runs = [x.split("/") for x in values if x != "fail"]
    fails = len(values) - len(runs)
    if not runs: return None, None, "all failed"
    medians = [float(r[0]) for r in runs]
    fastest = min(float(r[1]) for r in runs)
    text = "%.1f (%.1f-%.1f)" % (statistics.median(medians), min(medians), max(medians))
    return statistics.median(medians), fastest, text + (" %d failed" % fails if fails else "")
ma, fa, ta = summary(a); mb, fb, tb = summary(b)
ratio = lambda x, y: "%.3f" % (y / x) if x and y else "-"
print("%-14s %-26s %-26s %-7s %-9.1f %-9.1f %s" % (name, ta, tb, ratio(ma, mb), fa or 0, fb or 0,
                                                  ratio(fa, fb)))
PY
done
echo "logs: $out"
