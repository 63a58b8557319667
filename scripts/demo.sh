#!/usr/bin/env bash
# Quick start, part 1: installs what is missing, builds BDMPI in ./build and
# runs the out-of-core demo, spherical k-means (apps/kmeans) on a generated
# 1 GiB document-term matrix:
#
#   gen_documents --out DATA --bytes 1g
#   kmeans_serial_ooc DATA --iters 3             the serial out-of-core baseline
#   bdmpiexec -ns 32 -nr 1 kmeans DATA --iters 3  the unmodified MPI program
#
# With -nr 1 one rank of 32 runs at a time and works on its 1/32 of the
# matrix (about 32 MiB plus 12 MiB of centroids and sums): the job's data
# is over 20 times the running rank's working set, and the waiting ranks' memory
# is what BDMPI may page out. It prints both programs' iterations, checks
# that their RESULT lines agree (rows moved exactly, objective within 1e-9
# relative; see apps/README.md), prints the time per iteration of each and
# their ratio, ends with PASSED or FAILED, and removes the data.
#
# The BDMPI run also writes its run report (report.txt, report.json), its
# timeline (trace.json, for Perfetto) and a picture of it (timeline.png,
# bdmpi-trace-plot) into build/demo/, and says where.
#
# Options: --bytes SIZE (default 1g), --iters N (default 3), --ns N (ranks,
# default 32), --dir DIR (where the data goes; default $TMPDIR or /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

bytes=1g iters=3 ns=32 dir=${TMPDIR:-/tmp}
while (($#)); do
  case "$1" in
    --bytes) bytes=${2?}; shift 2 ;;
    --iters) iters=${2?}; shift 2 ;;
    --ns) ns=${2?}; shift 2 ;;
    --dir) dir=${2?}; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

bdmpi_setup

bin=$BDMPI_BUILD_DIR/bin
results=$BDMPI_BUILD_DIR/demo
mkdir -p "$results"
work=$(mktemp -d "$dir/bdmpi-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
data=$work/documents.bin

run() {
  echo "+ $*"
  "$@"
}
# Mean of the ITER seconds in a saved output.
per_iteration() {
  awk '$1 == "ITER" { s += $4; n++ } END { if (n) printf "%.2f", s / n }' "$1"
}

start=$(date +%s)
run "$bin/gen_documents" --out "$data" --bytes "$bytes"
status=PASSED
run apps/compare_result.sh --app kmeans --save-output "$work/serial.out" -- \
  "$bin/kmeans_serial_ooc" "$data" --iters "$iters" || status=FAILED
run apps/compare_result.sh --app kmeans --tol 1e-9 \
  --ref-output "$work/serial.out" --same '^kmeans: iteration [0-9]+ moved [0-9]+' -- \
  "$bin/bdmpiexec" -ns "$ns" -nr 1 --scratch-dir "$work" --report \
  --report=json "$results/report.json" --trace "$results/trace.json" \
  "$bin/kmeans" "$data" --iters "$iters" 2> >(tee "$results/report.txt" >&2) |
  tee "$work/bdmpi.out" || status=FAILED
if ! "$bin/bdmpi-trace-plot" "$results/trace.json" -o "$results/timeline.png"; then
  echo "demo: no picture (python3-matplotlib missing? scripts/install-deps.sh installs it)"
fi

serial=$(per_iteration "$work/serial.out")
bdmpi=$(per_iteration "$work/bdmpi.out")
echo
ratio=$(awk -v a="$bdmpi" -v b="$serial" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
echo "seconds per iteration: bdmpiexec -ns $ns -nr 1 kmeans $bdmpi," \
  "kmeans_serial_ooc $serial (ratio ${ratio:-n/a})"
echo "run report: $results/report.txt (JSON: $results/report.json)"
echo "timeline: $results/trace.json (open in https://ui.perfetto.dev), picture: $results/timeline.png"
echo "demo took $(($(date +%s) - start)) s; removing $work"
echo "k-means out-of-core demo: $status"
[[ $status == PASSED ]]
