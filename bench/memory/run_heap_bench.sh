#!/usr/bin/env bash
# run_heap_bench.sh -- data in small malloc blocks under a memory cgroup
# without swap: the blocksweep program (each rank allocates its share in
# blocks of 4 KiB, 64 KiB or 4 MiB, fills them, sweeps over them, frees
# them) with this tree's libbdmpi (small blocks from the storage-backed
# heap) and with a base build's (main: blocks below --storage-threshold
# stay in glibc's heap, never paged), all in one invocation; then the
# heap_free_bench micro-benchmark (freeing 100,000 small blocks, heap
# against glibc).
#
# Usage (as root):
#   bench/memory/run_heap_bench.sh [--build DIR] [--base DIR] [--limit SIZE]
#       [--ranks N] [--factor F] [--iters K] [--repeat R] [--scratch DIR]
#       [--out DIR] [--modes LIST]
#
#   --build DIR    this tree's build (default <repo>/build)
#   --base DIR     the base build to compare with (default /work/main/build;
#                  "none" to skip)
#   --limit SIZE   memory cgroup limit, memory and memory+swap (default 256m)
#   --ranks N      ranks, bdmpiexec -n N -nr 1 (default 4)
#   --factor F     data = F x limit in all (default 3)
#   --iters K      sweeps (default 3)
#   --repeat R     runs of each mode, interleaved (default 1)
#   --modes LIST   from heap-4k,heap-64k,heap-4m,heap-4m-t64m,base-4m,base-64k,
#                  base-64k-t64k (default heap-4k,heap-64k,heap-4m,base-4m,base-64k);
#                  *-t64k runs with --storage-threshold 64k, *-t64m with 64m
#                  (4 MiB blocks from jemalloc instead of blocks of their own)
#   --no-micro     skip heap_free_bench
#   --cap SECS     wall-clock cap per run (default 300)
#   --out DIR      table.md, runs.csv, free_bench.txt, logs/ (default
#                  ./heap-bench-<date>)
#
# Every run's RESULT must equal the reference, blocksweep.ompi under mpirun
# outside the cgroup (the checksum does not depend on the block size): a
# wrong result, or a run that fails (an OOM kill: the base's 64 KiB runs are
# expected to), is reported in the table; the exit status is 1 when one of
# this tree's runs failed or was wrong. The cgroup and scratch
# directory are removed at the end, also when interrupted.
set -u -o pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)
build=$repo/build base=/work/main/build limit_text=256m ranks=4 factor=3 iters=3
repeat=1 cap=300 out="" scratch_parent=/var/tmp micro=1
modes_text=heap-4k,heap-64k,heap-4m,base-4m,base-64k
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --limit) limit_text=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --modes) modes_text=$2; shift 2 ;;
    --cap) cap=$2; shift 2 ;;
    --no-micro) micro=0; shift ;;
    --scratch) scratch_parent=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "run_heap_bench: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
say() { printf '[heap-bench %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { echo "run_heap_bench: $*" >&2; exit 2; }
to_bytes() {
  local v=${1%[kKmMgG]} s=${1: -1}
  case $s in k | K) echo $((v << 10)) ;; m | M) echo $((v << 20)) ;;
    g | G) echo $((v << 30)) ;; *) echo "$1" ;; esac
}
limit=$(to_bytes "$limit_text")
[[ $limit =~ ^[0-9]+$ ]] && ((limit >= 64 << 20)) || die "--limit: at least 64m, not '$limit_text'"
[[ $ranks =~ ^[1-9][0-9]*$ ]] || die "--ranks takes a count"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat takes a count"
mib_per_rank=$(awk -v l="$limit" -v f="$factor" -v n="$ranks" \
  'BEGIN { printf "%d", l * f / n / 1048576 }')
((mib_per_rank > 0)) || die "--factor: no data"
IFS=, read -r -a modes <<<"$modes_text"
for m in "${modes[@]}"; do
  case $m in heap-4k | heap-64k | heap-4m | heap-4m-t64m | base-4m | base-64k | base-64k-t64k) ;;
    *) die "--modes: unknown mode '$m'" ;;
  esac
  if [[ $m == base-* && $base == none ]]; then die "--modes $m needs --base"; fi
done
(($(id -u) == 0)) || die "must run as root (memory cgroup, drop_caches)"
cg_root=/sys/fs/cgroup/memory
[[ -f $cg_root/memory.limit_in_bytes ]] || die "no cgroup v1 memory controller at $cg_root"
for f in "$build/bin/bdmpiexec" "$build/bin/blocksweep"; do
  [[ -x $f ]] || die "$f not built (cmake --build $build --target bdmpiexec bdmprun blocksweep)"
done
if [[ $base != none ]]; then
  [[ -x $base/bin/bdmpiexec && -f $base/lib/libbdmpi.so.0 ]] ||
    die "$base is not a build with bin/bdmpiexec and lib/libbdmpi.so.0"
fi
[[ -n $out ]] || out=$PWD/heap-bench-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out/logs" || die "cannot create $out"

cg=$cg_root/bdmpi-heap-bench-$$
scratch=$(mktemp -d "$scratch_parent/heap-bench.XXXXXX") || die "cannot create a scratch dir"
cleanup() {
  if [[ -d $cg ]]; then
    while read -r pid; do kill -KILL "$pid" 2>/dev/null; done <"$cg/cgroup.procs"
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      [[ -s $cg/cgroup.procs ]] || break
      sleep 0.5
    done
    rmdir "$cg" 2>/dev/null || say "warning: could not remove $cg"
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$cg" || die "cannot create $cg"
echo "$limit" >"$cg/memory.limit_in_bytes"
# No swap: memory+swap at the same limit where the kernel accounts swap.
if [[ -f $cg/memory.memsw.limit_in_bytes ]]; then
  echo "$limit" >"$cg/memory.memsw.limit_in_bytes"
else
  echo 0 >"$cg/memory.swappiness"
fi

say "$ranks ranks x $mib_per_rank MiB under a $limit_text cgroup (data = ${factor}x), $iters sweeps"
echo "mode,run,status,wall_s,alloc_s,sweeps_s,free_s,result" >"$out/runs.csv"

# run <mode> <run#>: one job inside the cgroup; appends to runs.csv.
run() {
  local mode=$1 n=$2 exe=$build/bin/bdmpiexec libpath="" block extra=()
  case $mode in
    *-4k) block=4096 ;; *-64k | *-64k-t64k) block=65536 ;; *-4m | *-4m-t64m) block=4194304 ;;
  esac
  if [[ $mode == base-* ]]; then
    exe=$base/bin/bdmpiexec
    libpath=$base/lib
  fi
  [[ $mode == *-t64k ]] && extra=(--storage-threshold 64k)
  [[ $mode == *-t64m ]] && extra=(--storage-threshold 64m)
  sync
  echo 3 >/proc/sys/vm/drop_caches
  local log=$out/logs/$mode.$n.log start end status
  start=$(date +%s.%N)
  (
    echo $BASHPID >"$cg/cgroup.procs"
    exec env ${libpath:+LD_LIBRARY_PATH=$libpath} timeout -s KILL "$cap" \
      "$exe" -n "$ranks" -nr 1 --scratch-dir "$scratch" "${extra[@]}" -v \
      "$build/bin/blocksweep" --mib "$mib_per_rank" --block "$block" --iters "$iters"
  ) >"$log" 2>&1
  status=$?
  end=$(date +%s.%N)
  local wall result times
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  result=$(awk '/^RESULT/ { print $2 }' "$log")
  times=$(awk '/^TIMES/ { printf "%s,%s,%s", $3, $5, $7 }' "$log")
  [[ -n $times ]] || times=",,"
  echo "$mode,$n,$status,$wall,$times,$result" >>"$out/runs.csv"
  say "$mode #$n: status $status, ${wall}s ${result:+(RESULT $result)}"
}

# The reference result.
reference=""
if [[ -x $build/bin/blocksweep.ompi ]] && command -v mpirun >/dev/null; then
  mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$build/bin/blocksweep.ompi" \
    --mib "$mib_per_rank" --block 4194304 --iters "$iters" >"$out/logs/reference.log" 2>&1
  reference=$(awk '/^RESULT/ { print $2 }' "$out/logs/reference.log")
fi
say "reference RESULT (mpirun): ${reference:-none (blocksweep.ompi or mpirun missing)}"

for ((n = 1; n <= repeat; ++n)); do
  for mode in "${modes[@]}"; do run "$mode" "$n"; done
done

# The micro-benchmark (no cgroup needed).
if ((micro)) && [[ -x $build/bin/heap_free_bench ]]; then
  say "heap_free_bench"
  TMPDIR=$scratch "$build/bin/heap_free_bench" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true >"$out/free_bench.txt" 2>&1 ||
    say "warning: heap_free_bench failed (see $out/free_bench.txt)"
fi

# Table: mean wall seconds per mode, ratios to heap-4m and base-4m.
awk -F, -v iters="$iters" -v out="$out" -v reference="$reference" '
  NR == 1 { next }
  {
    key = $1; runs[key]++
    if ($3 == 0 && reference != "" && $8 != reference) {
      failed[key] = failed[key] " #" $2 "(wrong RESULT " $8 ")"
    } else if ($3 == 0) {
      ok[key]++; wall[key] += $4; sweeps[key] += $6; freet[key] += $7
    } else {
      failed[key] = failed[key] " #" $2 "(status " $3 ")"
    }
    if ($3 == 0) res[$8] = 1
    order[key] = order[key] ? order[key] : NR
  }
  END {
    nres = 0; for (r in res) nres++
    printf "| mode | runs ok | wall s | sweeps s | free s | wall / heap-4m | wall / base-4m |\n"
    printf "|---|---|---|---|---|---|---|\n"
    h = ok["heap-4m"] ? wall["heap-4m"] / ok["heap-4m"] : 0
    b = ok["base-4m"] ? wall["base-4m"] / ok["base-4m"] : 0
    n = split("heap-4k heap-64k heap-4m heap-4m-t64m base-4m base-64k base-64k-t64k", names, " ")
    for (i = 1; i <= n; i++) {
      k = names[i]; if (!runs[k]) continue
      if (!ok[k]) { printf "| %s | 0/%d | failed:%s | | | | |\n", k, runs[k], failed[k]; continue }
      if (failed[k] != "") note = note sprintf("\n%s:%s", k, failed[k])
      w = wall[k] / ok[k]
      printf "| %s | %d/%d | %.2f | %.2f | %.3f | %s | %s |\n", k, ok[k], runs[k], w,
             sweeps[k] / ok[k], freet[k] / ok[k], h ? sprintf("%.2f", w / h) : "-",
             b ? sprintf("%.2f", w / b) : "-"
    }
    printf "\nreference RESULT (mpirun): %s; runs that ended with status 0: %s%s\n",
           reference == "" ? "none" : reference,
           nres == 1 ? "one RESULT" : "RESULTs DIFFER", note
  }' "$out/runs.csv" >"$out/table.md"
{
  echo "blocksweep: $ranks ranks x $mib_per_rank MiB, $iters sweeps, cgroup $limit_text (no swap), bdmpiexec -nr 1"
  echo "build: $build ($(git -C "$repo" rev-parse --short HEAD 2>/dev/null)); base: $base"
  echo
  cat "$out/table.md"
} >"$out/table.tmp" && mv "$out/table.tmp" "$out/table.md"
cat "$out/table.md"
[[ -f $out/free_bench.txt ]] && grep -E "BM_Free.*_mean|BM_AllocFree.*_mean" "$out/free_bench.txt"

# Exit status: this tree's runs must all succeed and agree.
bad=$(awk -F, -v r="$reference" 'NR > 1 && $1 ~ /^heap-/ && ($3 != 0 || (r != "" && $8 != r))' \
  "$out/runs.csv" | wc -l)
((bad == 0)) || exit 1
exit 0
