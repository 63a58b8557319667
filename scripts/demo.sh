#!/usr/bin/env bash
# Quick start, part 1: installs what is missing, builds BDMPI in ./build and
# runs the out-of-core demo, spherical k-means (apps/kmeans) on a generated
# 768 MiB document-term matrix, under a memory limit of 256 MiB:
#
#   gen_documents --out DATA --bytes 768m
#   kmeans_serial_ooc DATA --iters 3          the serial out-of-core baseline
#   bdmpiexec -ns 16 kmeans DATA --iters 3    the unmodified MPI program
#   mpirun -np 16 kmeans.ompi DATA --iters 3  the same program under Open MPI,
#                                             relying on swap
#
# The data is three times the memory the programs may use, so BDMPI must
# switch ranks out: its default -nr auto runs as many ranks at once as the
# node has cores while their data fits, and writes the waiting ranks' data
# back. As root the three programs run in a memory cgroup of --limit (cgroup
# v1 or v2), the page cache dropped before each (which affects the whole
# machine), and mpirun gets a swap file of its own when the machine has no
# swap (twice the data plus the limit, in --dir); mpirun is capped at
# --mpirun-cap seconds. Without root there is no cgroup: BDMPI runs with
# --node-memory LIMIT, the serial program needs no limit (it reads its data
# in chunks), and mpirun is left out (nothing would limit it). Whatever the
# script set up (cgroup, swap file, data) is removed when it ends, also on
# error or interruption.
#
# It prints each program's iterations, checks that their RESULT lines agree
# (rows moved exactly, objective within 1e-9 relative; see apps/README.md),
# prints the seconds per iteration of each with the ratios, and ends with
# PASSED or FAILED. The BDMPI run also writes its run report (report.txt,
# report.json: how many ranks ran at once, what was switched out), its
# timeline (trace.json, for Perfetto) and a picture of it (timeline.png,
# bdmpi-trace-plot) into build/demo/, and says where.
#
# Options: --bytes SIZE (default 768m), --limit SIZE (default 256m),
# --iters N (default 3), --ns N (ranks, default 16), --no-mpirun,
# --mpirun-cap SECS (default 60), --dir DIR (where the data goes; default
# $TMPDIR or /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

bytes=768m limit=256m iters=3 ns=16 dir=${TMPDIR:-/tmp} want_mpirun=1 mpirun_cap=60
while (($#)); do
  case "$1" in
    --bytes) bytes=${2?}; shift 2 ;;
    --limit) limit=${2?}; shift 2 ;;
    --iters) iters=${2?}; shift 2 ;;
    --ns) ns=${2?}; shift 2 ;;
    --dir) dir=${2?}; shift 2 ;;
    --no-mpirun) want_mpirun=0; shift ;;
    --mpirun-cap) mpirun_cap=${2?}; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# "256m" -> bytes, as bdmpiexec reads sizes.
to_bytes() {
  [[ $1 =~ ^([0-9]+)([kKmMgG]?)$ ]] || { echo "demo.sh: not a size: '$1' (e.g. 256m)" >&2; exit 2; }
  local n=${BASH_REMATCH[1]}
  case ${BASH_REMATCH[2],,} in
    k) echo $((n << 10)) ;; m) echo $((n << 20)) ;; g) echo $((n << 30)) ;; *) echo "$n" ;;
  esac
}
limit_bytes=$(to_bytes "$limit")
# The data and the ranks' scratch files go to --dir: on tmpfs they would be
# memory, and switching a rank out would free nothing.
if [[ $(df --output=fstype "$dir" 2>/dev/null | tail -1) == tmpfs ]]; then
  echo "demo.sh: --dir $dir is a tmpfs, i.e. memory: give a directory on a disk" >&2
  exit 2
fi
data_bytes=$(to_bytes "$bytes")

bdmpi_setup

bin=$BDMPI_BUILD_DIR/bin
results=$BDMPI_BUILD_DIR/demo
mkdir -p "$results"
work=$(mktemp -d "$dir/bdmpi-demo.XXXXXX")
data=$work/documents.bin
cgroup="" swapfile="" swap_on=0

# Everything the script set up goes, whatever ends it.
cleanup() {
  local status=$? pid
  trap - EXIT INT TERM
  set +e
  if [[ -n $cgroup && -d $cgroup ]]; then
    for _ in $(seq 50); do
      for pid in $(cat "$cgroup/cgroup.procs" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
      rmdir "$cgroup" 2>/dev/null && break
      sleep 0.1
    done
    [[ -d $cgroup ]] && echo "demo: could not remove the cgroup $cgroup" >&2
  fi
  ((swap_on)) && { swapoff "$swapfile" || echo "demo: swapoff $swapfile failed" >&2; }
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'echo "demo: interrupted"; exit 130' INT
trap 'echo "demo: terminated"; exit 143' TERM

# A memory cgroup where root can make one: the node the programs run on
# has --limit of memory.
make_cgroup() {
  ((EUID == 0)) || return 1
  local v1
  v1=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
  if [[ -n $v1 && -d /sys/fs/cgroup/memory ]]; then
    cgroup=/sys/fs/cgroup/memory${v1%/}/bdmpi-demo-$$
    mkdir "$cgroup" 2>/dev/null && echo "$limit_bytes" >"$cgroup/memory.limit_in_bytes" && return 0
  elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    cgroup=/sys/fs/cgroup/bdmpi-demo-$$
    mkdir "$cgroup" 2>/dev/null && echo "$limit_bytes" >"$cgroup/memory.max" && return 0
  fi
  [[ -n $cgroup && -d $cgroup ]] && rmdir "$cgroup"
  cgroup=""
  return 1
}
limited=() bdmpi_limit=()
if make_cgroup; then
  # shellcheck disable=SC2016 # $0 and $@ belong to the inner shell
  limited=(bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cgroup")
  echo "demo: a memory cgroup of $limit ($cgroup) holds every run"
else
  bdmpi_limit=(--node-memory "$limit")
  echo "demo: no memory cgroup (needs root): BDMPI gets --node-memory $limit, mpirun is left out"
  want_mpirun=0
fi
mpirun_bin=$(command -v mpirun || true)
if ((want_mpirun)) && [[ -z $mpirun_bin || ! -x $bin/kmeans.ompi ]]; then
  echo "demo: no mpirun or kmeans.ompi: mpirun is left out"
  want_mpirun=0
fi
if ((want_mpirun)) && [[ -z $(swapon --show --noheadings 2>/dev/null) ]]; then
  swapfile=$work/swapfile
  swap_size=$((2 * data_bytes + limit_bytes))
  if fallocate -l "$swap_size" "$swapfile" && chmod 600 "$swapfile" &&
    mkswap "$swapfile" >/dev/null && swapon "$swapfile"; then
    swap_on=1
    echo "demo: a swap file of $((swap_size >> 20)) MiB for mpirun ($swapfile)"
  else
    echo "demo: could not make a swap file in $work: mpirun is left out"
    want_mpirun=0
  fi
fi

run() {
  echo "+ $*"
  "$@"
}
# Each run starts with a cold page cache (root only), as a program that
# reads data larger than memory would.
cold() {
  ((EUID == 0)) && { sync; echo 3 >/proc/sys/vm/drop_caches; }
  return 0
}
# Mean of the ITER seconds in a saved output.
per_iteration() {
  awk '$1 == "ITER" { s += $4; n++ } END { if (n) printf "%.2f", s / n }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else printf "n/a" }'; }

start=$(date +%s)
run "$bin/gen_documents" --out "$data" --bytes "$bytes"
status=PASSED
cold
run apps/compare_result.sh --app kmeans --save-output "$work/serial.out" -- \
  "${limited[@]}" "$bin/kmeans_serial_ooc" "$data" --iters "$iters" || status=FAILED
cold
run apps/compare_result.sh --app kmeans --tol 1e-9 \
  --ref-output "$work/serial.out" --same '^kmeans: iteration [0-9]+ moved [0-9]+' -- \
  "${limited[@]}" "$bin/bdmpiexec" -ns "$ns" "${bdmpi_limit[@]}" --scratch-dir "$work" --report \
  --report=json "$results/report.json" --trace "$results/trace.json" \
  "$bin/kmeans" "$data" --iters "$iters" 2> >(tee "$results/report.txt" >&2) |
  tee "$work/bdmpi.out" || status=FAILED
mpirun_line="" mpi=""
if ((want_mpirun)); then
  cold
  root_flag=()
  ((EUID == 0)) && root_flag=(--allow-run-as-root)
  # Capped: with swap it may take minutes. Its RESULT must agree too when
  # it finishes in time.
  if run apps/compare_result.sh --app kmeans --tol 1e-9 --ref-output "$work/serial.out" -- \
    "${limited[@]}" timeout -k 5 "$mpirun_cap" "$mpirun_bin" "${root_flag[@]}" --oversubscribe \
    --mca btl_vader_backing_directory "$work" -np "$ns" "$bin/kmeans.ompi" "$data" \
    --iters "$iters" >"$work/mpirun.out"; then
    mpi=$(per_iteration "$work/mpirun.out")
    mpirun_line="mpirun -np $ns kmeans.ompi (with swap) $mpi"
  elif [[ $(grep -c '^ITER' "$work/mpirun.out") -lt $iters ]]; then
    mpi=$(per_iteration "$work/mpirun.out")
    mpirun_line="mpirun -np $ns kmeans.ompi (with swap) did not finish in $mpirun_cap s${mpi:+ (${mpi} s per iteration done)}"
    mpi=""
  else
    status=FAILED
    mpirun_line="mpirun -np $ns kmeans.ompi: its RESULT disagrees (see above)"
    cat "$work/mpirun.out"
  fi
fi
if ! "$bin/bdmpi-trace-plot" "$results/trace.json" -o "$results/timeline.png"; then
  echo "demo: no picture (python3-matplotlib missing? scripts/install-deps.sh installs it)"
fi

serial=$(per_iteration "$work/serial.out")
bdmpi=$(per_iteration "$work/bdmpi.out")
echo
echo "seconds per iteration, $((data_bytes >> 20)) MiB of data, memory $limit:"
echo "  kmeans_serial_ooc $serial"
echo "  bdmpiexec -ns $ns kmeans $bdmpi (bdmpi / serial $(ratio "$bdmpi" "$serial"))"
if [[ -n $mpirun_line ]]; then
  echo "  $mpirun_line${mpi:+ (mpirun / bdmpi $(ratio "$mpi" "$bdmpi"))}"
fi
echo "BDMPI ran $(sed -n 's/^node 0 ranks running at once (\(.*\)): \(.*\)/\1: \2/p' "$results/report.txt" | head -1)"
echo "run report: $results/report.txt (JSON: $results/report.json)"
echo "timeline: $results/trace.json (open in https://ui.perfetto.dev), picture: $results/timeline.png"
echo "demo took $(($(date +%s) - start)) s; removing $work${cgroup:+, $cgroup}${swapfile:+ and the swap file}"
echo "k-means out-of-core demo: $status (bdmpi / serial $(ratio "$bdmpi" "$serial"))"
[[ $status == PASSED ]]
