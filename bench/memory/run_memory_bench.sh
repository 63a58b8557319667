#!/usr/bin/env bash
# run_memory_bench.sh -- storage-backed memory under a memory cgroup: the
# memsweep program (each rank rewrites its own array between barriers) with
# eager, lazy and ahead (read-ahead) switch-in, optionally against the same binary with
# --storage-alloc off relying on swap, and the dd bound for the same bytes.
#
# Usage: run_memory_bench.sh [--build DIR] [--ranks N] [--bytes-per-rank SIZE]
#          [--limit SIZE] [--iters N] [--scratch DIR] [--read-only] [--random]
#          [--modes "eager lazy ahead swap mpirun dd"] [--swap-size SIZE]
# Defaults: build dir ./build, 8 ranks x 256m under a 512m cgroup (data =
# 4x the limit), 3 iterations, scratch $TMPDIR or /tmp, modes "eager lazy dd".
# "swap" (bdmpiexec --storage-alloc off) and "mpirun" (memsweep.ompi under
# mpirun --oversubscribe, all ranks at once) create a swap file of
# --swap-size (default: the data size) in the scratch dir for that run and
# remove it after.
#
# Needs root (cgroup v1 at /sys/fs/cgroup/memory). Prints one line per
# iteration and a table: seconds per iteration (mean over the iterations
# after the first; the first includes the initial fill) and the ratios to
# eager, from mpirun (above 1: faster than mpirun) and to dd (whose time is
# one write and one read of all the data, what an iteration must move). List a mode several times to interleave repeated runs; the table
# shows the mean of its runs and each run. Every cgroup, swap file and scratch file it makes is removed, also
# when interrupted.
set -euo pipefail

build=build ranks=8 bytes=256m limit=512m iters=3 scratch=${TMPDIR:-/tmp}
modes="eager lazy dd" swap_size="" read_only=""
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --bytes-per-rank) bytes=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --swap-size) swap_size=$2; shift 2 ;;
    --read-only) read_only+=" --read-only"; shift ;;
    --random) read_only+=" --random"; shift ;;
    -h | --help) sed -n '2,/^set/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "run_memory_bench: unknown option '$1'" >&2; exit 2 ;;
  esac
done

to_bytes() {
  local v=${1%[kKmMgG]} s=${1: -1}
  case $s in k | K) echo $((v << 10)) ;; m | M) echo $((v << 20)) ;;
    g | G) echo $((v << 30)) ;; *) echo "$1" ;; esac
}
data_bytes=$(($(to_bytes "$bytes") * ranks))
bdmpiexec=$build/bin/bdmpiexec
memsweep=$build/bin/memsweep
[[ -x $bdmpiexec && -x $memsweep ]] ||
  { echo "run_memory_bench: build bdmpiexec and memsweep in $build first" >&2; exit 2; }
cgroot=/sys/fs/cgroup/memory
[[ -d $cgroot ]] || { echo "run_memory_bench: no cgroup v1 memory controller at $cgroot" >&2; exit 2; }

cg=$cgroot/bdmpi-membench-$$
work=$(mktemp -d "$scratch/bdmpi-membench.XXXXXX")
swapfile=""
cleanup() {
  if [[ -n $swapfile ]]; then swapoff "$swapfile" 2>/dev/null || true; fi
  if [[ -d $cg ]]; then
    # Tasks left (an interrupted run) go back to the root before rmdir.
    while read -r pid; do echo "$pid" >"$cgroot/cgroup.procs" 2>/dev/null || true; done <"$cg/cgroup.procs"
    rmdir "$cg" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$cg"
echo "$(to_bytes "$limit")" >"$cg/memory.limit_in_bytes"

# Runs "$@" inside the cgroup, output to $work/out.
in_cgroup() {
  bash -c 'echo $$ >"$0/cgroup.procs"; exec "$@"' "$cg" "$@" >"$work/out" 2>"$work/err"
}

declare -A mean runs
run_mode() {
  local mode=$1 opts=()
  case $mode in
    eager) opts=(--prefetch eager) ;;
    lazy) opts=(--prefetch lazy) ;;
    ahead) opts=(--prefetch ahead) ;;
    swap) opts=(--storage-alloc off) ;;
  esac
  local launch=("$bdmpiexec" -ns "$ranks" -nr 1 --scratch-dir "$work" "${opts[@]}" "$memsweep")
  [[ $mode == mpirun ]] &&
    launch=(mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$memsweep.ompi")
  sync
  local start end
  start=$(date +%s.%N)
  if ! in_cgroup "${launch[@]}" --bytes-per-rank "$bytes" --iters "$iters" $read_only; then
    echo "run_memory_bench: $mode run failed:" >&2
    cat "$work/err" >&2
    runs[$mode]+="fail "
    return
  fi
  end=$(date +%s.%N)
  sed "s/^/  $mode: /" "$work/out"
  runs[$mode]+="$(awk -v iters="$iters" '/^ITER/ { if ($3 > 0 || iters == 1) { s += $4; n++ } }
                END { printf "%.3f", n ? s / n : 0 }' "$work/out") "
  printf '  %s: whole run %.1f s\n' "$mode" "$(echo "$end - $start" | bc)"
}

run_dd() {
  # What an iteration must move at least: every rank's data written once
  # and read once, with large sequential I/O, in the same cgroup.
  local file=$work/dd.data count=$((data_bytes >> 26)) t0 t1 t2
  ((count > 0)) || count=1
  sync
  t0=$(date +%s.%N)
  in_cgroup dd if=/dev/zero of="$file" bs=64M count="$count" conv=fdatasync
  t1=$(date +%s.%N)
  in_cgroup dd if="$file" of=/dev/null bs=64M iflag=direct
  t2=$(date +%s.%N)
  rm -f "$file"
  runs[dd]+="$(echo "$t2 - $t0" | bc) "
  printf '  dd: write %.2f s + read %.2f s\n' "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
}

echo "memsweep: $ranks ranks x $bytes (data $((data_bytes >> 20)) MiB) under a $limit memory cgroup, -nr 1, $iters iterations ${read_only:+(read-only)}"
for mode in $modes; do
  case $mode in
    eager | lazy | ahead) run_mode "$mode" ;;
    swap | mpirun)
      swapfile=$work/swapfile
      fallocate -l "${swap_size:-$data_bytes}" "$swapfile"
      chmod 600 "$swapfile"
      mkswap "$swapfile" >/dev/null
      swapon "$swapfile"
      run_mode "$mode"
      swapoff "$swapfile"
      rm -f "$swapfile"
      swapfile=""
      ;;
    dd) run_dd ;;
    *) echo "run_memory_bench: unknown mode '$mode'" >&2; exit 2 ;;
  esac
done

# A mode listed several times (e.g. --modes "eager lazy eager lazy", to
# interleave runs on a busy machine) gets the mean of its runs.
for mode in "${!runs[@]}"; do
  mean[$mode]=$(tr ' ' '\n' <<<"${runs[$mode]}" | awk '/fail/ { f = 1 } /^[0-9.]+$/ { s += $1; n++ }
    END { if (f || !n) print "fail"; else printf "%.3f", s / n }')
done
echo
printf '%-8s %12s %10s %12s %10s  %s\n' mode "s/iter" "vs eager" "mpirun/mode" "vs dd" "runs"
ratio() { # numerator denominator
  if [[ ${1:-fail} != fail && ${2:-fail} != fail ]]; then echo "scale=2; $1 / $2" | bc; else echo -; fi
}
for mode in $(tr ' ' '\n' <<<"$modes" | awk '!seen[$0]++'); do
  printf '%-8s %12s %10s %12s %10s  %s\n' "$mode" "${mean[$mode]}" \
    "$(ratio "${mean[$mode]}" "${mean[eager]:-}")" "$(ratio "${mean[mpirun]:-}" "${mean[$mode]}")" \
    "$(ratio "${mean[$mode]}" "${mean[dd]:-}")" "${runs[$mode]}"
done
