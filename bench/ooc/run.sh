#!/usr/bin/env bash
# bench/ooc/run.sh -- the out-of-core benchmark: the paper's
# applications and the memory-sweeping program on data about F times a
# memory limit, run every way we can, in one memory cgroup, with swap.
#
# Usage (as root):
#   bench/ooc/run.sh [--limit SIZE] [--data-factor F] [--apps LIST]
#                    [--ranks N] [--iters N] [--cap SECS] [--build DIR]
#                    [--modes LIST] [--out DIR] [--work DIR] [--keep-data]
#                    [--no-build] [--repeat N] [--base-build DIR]
#
#   --limit SIZE      memory cgroup limit (default 2g; k/m/g suffixes)
#   --data-factor F   data of each application ~ F x limit (default 4)
#   --apps LIST       comma-separated, from kmeans,pagerank,sgd,sweep
#                     (default all four; those whose programs are not built
#                     are skipped with the reason)
#   --modes LIST      comma-separated subset of serial-ooc,bdmpi-ooc,bdmpi,
#                     bdmpi-swap,mpirun (default all; see below) and of
#                     bdmpi-lazy,bdmpi-eager,bdmpi-ahead (not by default)
#   --ranks N         MPI ranks (default 16); sgd needs a perfect square and
#                     runs with the largest square <= N otherwise
#   --running LIST    ranks running at once per node in the BDMPI modes (bdmpiexec -nr),
#                     comma-separated counts or auto (default 1, the paper's setting;
#                     2 uses both cores of a 2-core node; auto, bdmpiexec's default,
#                     one per core while their data fits). With several, every BDMPI
#                     mode runs once per value, as MODE-nrVALUE, and the table gives
#                     each against MODE-nr1 (or the first value)
#   --iters N         iterations of every run (default 5)
#   --cap SECS        wall-clock cap per run (default 600); a capped run is
#                     reported as "> cap" with the iterations it completed
#   --repeat N        run every mode N times, round after round (mode by
#                     mode, each round starting one mode further on), so that
#                     a noisy machine weighs on all alike; the ratios take
#                     each mode's mean (default 1)
#   --extra 'OPTIONS' adds the mode bdmpi-x: the bdmpi mode with these
#                     bdmpiexec options (say '--no-bind' or '--prefetch ahead')
#   --base-build DIR  another build tree (e.g. an earlier commit's): adds the
#                     mode bdmpi-base, the bdmpi mode with that tree's
#                     bdmpiexec and programs, and the ratio bdmpi / bdmpi-base
#   --build DIR       build tree with bin/ (default: <repo>/build); the
#                     programs are (re)built there first unless --no-build
#   --out DIR         results: table.md, runs.csv, iters.csv, plot.png, logs/
#                     (default ./ooc-bench-<date>)
#   --work DIR        where data, swap file and scratch go (default /var/tmp)
#   --keep-data       keep the generated data files (in WORK)
#   --pagerank-degree D   average degree of the generated graph (default 32)
#
# What runs, per application, each inside the cgroup, caches dropped first:
#   serial-ooc   <app>_serial_ooc: one process, data from disk in chunks
#   bdmpi-ooc    bdmpiexec -ns N -nr 1 <app>_ooc (explicit -ooc discipline)
#   bdmpi        bdmpiexec -ns N -nr 1 <app> (unmodified; runtime-managed
#                memory when bdmpiexec has --storage-alloc, default on)
#   bdmpi-swap   the same with --storage-alloc off (relies on swap; only when
#                bdmpiexec has the option)
#   mpirun       mpirun --oversubscribe -np N <app>.ompi (relies on swap)
#   bdmpi-lazy, bdmpi-eager, bdmpi-ahead   bdmpi with --prefetch lazy,
#                eager or ahead (how a switched-out rank gets its data back)
# and once: dd writing and reading the same number of bytes with direct I/O
# (the I/O bound). Every run's RESULT must agree with the others (exactly for
# sweep, within a relative tolerance for the others); a disagreement is
# printed loudly and makes the exit status 1.
#
# Afterwards (also on error or interruption): swapoff and remove the swap
# file, kill what is left in the cgroup and remove it, remove data and
# scratch (data stays with --keep-data), then check that nothing is left.
#
# Exit status: 0 all runs agreed, 1 a result disagreed or a run failed,
# 2 usage or setup error.

set -u -o pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)

say() { printf '[ooc-bench %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf 'ooc-bench: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }

# parse_size, mib, the cgroup, the swap file, run_in_cg and the dd bound.
# shellcheck source=../lib/ooc_env.sh
. "$repo/bench/lib/ooc_env.sh"

# ---------------------------------------------------------------- options
limit_text=2g
factor=4
apps_text=kmeans,pagerank,sgd,sweep
modes_text=serial-ooc,bdmpi-ooc,bdmpi,bdmpi-swap,mpirun
ranks=16
running=1
iters=5
cap=600
build=$repo/build
out=""
work_parent=/var/tmp
keep_data=0
do_build=1
pr_degree=32
repeat=1
base_build=""
extra_opts=""
while (($#)); do
  case $1 in
    --limit) limit_text=${2?--limit needs a value}; shift 2 ;;
    --data-factor) factor=${2?--data-factor needs a value}; shift 2 ;;
    --apps) apps_text=${2?--apps needs a value}; shift 2 ;;
    --modes) modes_text=${2?--modes needs a value}; shift 2 ;;
    --ranks) ranks=${2?--ranks needs a value}; shift 2 ;;
    --running) running=${2?--running needs a value}; shift 2 ;;
    --iters) iters=${2?--iters needs a value}; shift 2 ;;
    --cap) cap=${2?--cap needs a value}; shift 2 ;;
    --build) build=${2?--build needs a value}; shift 2 ;;
    --out) out=${2?--out needs a value}; shift 2 ;;
    --work) work_parent=${2?--work needs a value}; shift 2 ;;
    --keep-data) keep_data=1; shift ;;
    --pagerank-degree) pr_degree=${2?--pagerank-degree needs a value}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --repeat) repeat=${2?--repeat needs a value}; shift 2 ;;
    --base-build) base_build=${2?--base-build needs a value}; shift 2 ;;
    --extra) extra_opts=${2?--extra needs a value}; shift 2 ;;
    -h | --help) usage 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
limit=$(parse_size "$limit_text" --limit) || exit 2
((limit >= 64 << 20)) || die "--limit must be at least 64m"
[[ $factor =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v f="$factor" 'BEGIN { exit !(f > 0) }' ||
  die "--data-factor takes a positive number, not '$factor'"
[[ $ranks =~ ^[1-9][0-9]*$ ]] || die "--ranks takes a positive count, not '$ranks'"
[[ $iters =~ ^[1-9][0-9]*$ ]] || die "--iters takes a positive count, not '$iters'"
[[ $cap =~ ^[1-9][0-9]*$ ]] || die "--cap takes seconds, not '$cap'"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat takes a positive count, not '$repeat'"
modes_asked=$modes_text
if [[ -n $base_build ]]; then
  [[ -x $base_build/bin/bdmpiexec ]] || die "--base-build: $base_build/bin/bdmpiexec not found"
  base_build=$(cd "$base_build" && pwd)
  [[ ,$modes_text, == *,bdmpi,* ]] || die "--base-build compares the bdmpi mode: add bdmpi to --modes"
  modes_text+=,bdmpi-base
elif [[ ,$modes_text, == *,bdmpi-base,* ]]; then
  die "--modes bdmpi-base needs --base-build DIR"
fi
[[ -n $extra_opts ]] && modes_text+=,bdmpi-x
running_text=$running
IFS=, read -r -a running_list <<<"$running"
for r in "${running_list[@]}"; do
  [[ $r == auto || $r =~ ^[1-9][0-9]*$ ]] || die "--running takes counts or auto, not '$r'"
done
((${#running_list[@]})) || die "--running is empty"
# The label of BDMPI mode `m` at --running value `r` (MODE-nrR when there
# are several values); other modes keep theirs.
at() { # mode running
  if [[ $1 == bdmpi* ]] && ((${#running_list[@]} > 1)); then echo "$1-nr$2"; else echo "$1"; fi
}
[[ $pr_degree =~ ^[1-9][0-9]*$ ]] || die "--pagerank-degree takes a positive count, not '$pr_degree'"
IFS=, read -r -a apps <<<"$apps_text"
for a in "${apps[@]}"; do
  case $a in kmeans | pagerank | sgd | sweep) ;; *) die "--apps: unknown application '$a' (kmeans,pagerank,sgd,sweep)" ;; esac
done
((${#apps[@]})) || die "--apps is empty"
IFS=, read -r -a modes_wanted <<<"$modes_text"
for m in "${modes_wanted[@]}"; do
  case $m in serial-ooc | bdmpi-ooc | bdmpi | bdmpi-swap | mpirun | bdmpi-lazy | bdmpi-eager | bdmpi-ahead | bdmpi-base | bdmpi-x) ;;
    *) die "--modes: unknown mode '$m' (serial-ooc,bdmpi-ooc,bdmpi,bdmpi-swap,mpirun,bdmpi-lazy,bdmpi-eager,bdmpi-ahead)" ;;
  esac
done
((${#modes_wanted[@]})) || die "--modes is empty"
[[ -n $out ]] || out=$PWD/ooc-bench-$(date -u +%Y%m%d-%H%M%S)
# Data per application, a multiple of 1 MiB.
data_bytes=$(awk -v l="$limit" -v f="$factor" 'BEGIN { printf "%.0f", int(l * f / 1048576) * 1048576 }')

# ---------------------------------------------------------------- checks
ooc_check_host
ooc_need_gnuplot
mpirun_bin=$(command -v mpirun || true)

# ---------------------------------------------------------------- programs
bin=$build/bin
# Programs each application needs per mode ("" = no such mode).
prog_for() { # app mode
  local app=$1 mode=$2
  case $mode in
    gen)
      case $app in
        kmeans) echo gen_documents ;; pagerank) echo gen_graph ;;
        sgd) echo gen_ratings ;; sweep) echo "" ;;
      esac ;;
    serial-ooc) echo "${app}_serial_ooc" ;;
    bdmpi-ooc) echo "${app}_ooc" ;;
    bdmpi | bdmpi-swap | bdmpi-lazy | bdmpi-eager | bdmpi-ahead | bdmpi-base | bdmpi-x) echo "$app" ;;
    mpirun) echo "$app.ompi" ;;
  esac
}
# The base build's programs run the bdmpi-base mode; all others are ours.
bin_for() { [[ $1 == bdmpi-base ]] && echo "$base_build/bin" || echo "$bin"; }
modes_all=(serial-ooc bdmpi-ooc bdmpi bdmpi-swap mpirun bdmpi-lazy bdmpi-eager bdmpi-ahead bdmpi-base bdmpi-x)
prefetch_modes=(bdmpi-lazy bdmpi-eager bdmpi-ahead)

if ((do_build)) && [[ -f $build/CMakeCache.txt ]]; then
  # Every program involved, so that none is stale (cmake skips what is
  # up to date).
  want=(bdmpiexec bdmprun)
  for a in "${apps[@]}"; do
    for m in gen "${modes_all[@]}"; do
      p=$(prog_for "$a" "$m")
      [[ -n $p ]] && want+=("$p")
    done
  done
  # Only targets this tree knows (an application may not have landed yet).
  known=$(cmake --build "$build" --target help 2>/dev/null | awk '{ print $2 }')
  targets=()
  for t in $(printf '%s\n' "${want[@]}" | sort -u); do
    grep -qx -- "$t" <<<"$known" && targets+=("$t")
  done
  if ((${#targets[@]})); then
    say "building ${targets[*]} in $build"
    cmake --build "$build" -j2 --target "${targets[@]}" >/dev/null ||
      die "building ${targets[*]} in $build failed (run: cmake --build $build --target ${targets[*]})"
  fi
elif ((do_build)); then
  say "warning: $build is not a configured build tree; using what is in $bin"
fi
[[ -x $bin/bdmpiexec ]] || die "$bin/bdmpiexec not found: build first (cmake -S $repo -B $build && cmake --build $build) or pass --build DIR"

storage_alloc=0
# (Not "| grep -q": with pipefail, grep leaving early fails the pipeline.)
[[ $("$bin/bdmpiexec" --help 2>&1) == *--storage-alloc* ]] && storage_alloc=1

ranks_for() { # app -> rank count it runs with
  if [[ $1 == sgd ]]; then
    local s
    s=$(awk -v n="$ranks" 'BEGIN { s = int(sqrt(n)); while ((s + 1) * (s + 1) <= n) s++; while (s * s > n) s--; print s * s }')
    echo "$s"
  else
    echo "$ranks"
  fi
}

# Which (app, mode) pairs run; the others are listed with the reason.
declare -A runs_mode=() skipped=()
run_apps=()
for a in "${apps[@]}"; do
  g=$(prog_for "$a" gen)
  if [[ -n $g && ! -x $bin/$g ]]; then
    skipped[$a]="generator $g not built"
    continue
  fi
  [[ -x $bin/$a || -x $bin/$a.ompi || -x $bin/${a}_ooc || -x $bin/${a}_serial_ooc ]] || {
    skipped[$a]="no program of $a built (not on this branch yet?)"
    continue
  }
  list=()
  for m in "${modes_all[@]}"; do
    p=$(prog_for "$a" "$m")
    if [[ ",$modes_text," != *",$m,"* ]]; then
      continue  # not asked for
    elif [[ $m == bdmpi-swap || " ${prefetch_modes[*]} " == *" $m "* ]] && ((!storage_alloc)); then
      skipped[$a.$m]="bdmpiexec has no --storage-alloc (runtime-managed memory not in this build): 'bdmpi' already relies on swap"
    elif [[ $m == mpirun && -z $mpirun_bin ]]; then
      skipped[$a.$m]="mpirun not found"
    elif [[ ! -x $(bin_for "$m")/$p ]]; then
      skipped[$a.$m]="$p not built"
    else
      list+=("$m")
    fi
  done
  runs_mode[$a]="${list[*]}"
  run_apps+=("$a")
  sq=$(ranks_for "$a")
  ((sq != ranks)) && say "note: $a needs a square rank count: runs with $sq ranks, not $ranks"
done
for k in "${!skipped[@]}"; do say "skipped $k: ${skipped[$k]}"; done
# The running ranks (-nr) should fit with room to spare.
share=$((data_bytes / ranks))
for r in "${running_list[@]}"; do
  [[ $r == auto ]] && continue  # fewer run when they do not fit
  ((share * 2 * r > limit)) &&
    say "warning: $r rank(s)' share of the data ($(mib $((share * r))) MiB) is more than half the limit ($(mib "$limit") MiB): the running ranks will not fit; use more --ranks or fewer --running"
done
((${#run_apps[@]})) || die "nothing to run (see the skipped list above)"

# The serial baselines read their data in chunks of this size: 64 MiB, or
# an eighth of the limit when that is less.
chunk=$((limit / 8 < (64 << 20) ? limit / 8 : (64 << 20)))

# ---------------------------------------------------------------- disk room
# A swap file of twice the data + the limit (the ranks of a program hold
# more than its input: PageRank's 16 ranks under mpirun were OOM-killed with
# 1.25 x data + limit), and at a time one application's input plus as much
# scratch (storage-backed memory, -ooc files, the serial baseline's file, or
# dd's file), plus 1 GiB to spare.
swap_bytes=$(((2 * data_bytes + limit + (1 << 20) - 1) >> 20 << 20))
need=$((swap_bytes + 2 * data_bytes + (1 << 30)))
mkdir -p "$work_parent" || die "cannot create --work $work_parent"
avail=$(df -B1 --output=avail "$work_parent" | tail -1 | tr -d ' ')
if ((avail < need)); then
  die "not enough disk in $work_parent: need $(mib $need) MiB (swap $(mib $swap_bytes) MiB + 2 x data $(mib $data_bytes) MiB + 1 GiB), have $(mib "$avail") MiB. Use a smaller --limit or --data-factor, or --work on a bigger disk."
fi

# ---------------------------------------------------------------- setup
mkdir -p "$out/logs" || die "cannot create --out $out"
work="" cg=$cg_root/bdmpi-bench-$$
job_prefix=oocb$$r

ipc_leftovers() {
  find /dev/shm /dev/mqueue -maxdepth 1 -name "*bdmpi-$job_prefix*" 2>/dev/null
}

cleanup() {
  local rc=$? left=()
  trap - EXIT INT TERM
  set +e
  ooc_teardown
  left=("${ooc_left[@]}")
  ipc_leftovers | xargs -r rm -rf
  if [[ -n $work && -d $work ]]; then
    if ((keep_data)) && [[ -d $work/data ]] && [[ -n $(ls -A "$work/data") ]]; then
      find "$work" -mindepth 1 -maxdepth 1 ! -name data -exec rm -rf {} +
      say "kept the data in $work/data"
    else
      rm -rf "$work"
    fi
  fi
  # Verify.
  [[ -n $(ipc_leftovers) ]] && left+=("IPC objects: $(ipc_leftovers | tr '\n' ' ')")
  if ((${#left[@]})); then
    printf 'ooc-bench: CLEANUP INCOMPLETE: %s\n' "${left[@]}" >&2
    ((rc == 0)) && rc=1
  else
    say "cleanup: swap file, cgroup, scratch$( ((keep_data)) || echo ' and data') removed; nothing of the benchmark is left"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM
work=$(mktemp -d "$work_parent/bdmpi-ooc-bench.XXXXXX") || die "mktemp in $work_parent failed"
swapfile=$work/swapfile

mkdir -p "$work/data" "$work/scratch" "$work/ooc" "$work/tmp"
say "work dir $work; data per application $(mib "$data_bytes") MiB; limit $(mib "$limit") MiB; swap $(mib "$swap_bytes") MiB"
ooc_make_swap "$swapfile" "$swap_bytes"
ooc_make_cgroup "$limit"
say "cgroup $cg: memory.limit_in_bytes = $limit_real"

# Records, one line per run: app mode status iters first mean_rest per_iter
# bound wall peak swapin swapout result ranks
records=$out/runs.tsv
iters_csv=$out/iters.csv
: >"$records"
: >"$out/io.tsv" # app label disk-read-MiB disk-written-MiB (/proc/vmstat, whole machine)
echo "app,mode,iteration,seconds" >"$iters_csv"
failed_runs=0

# record APP MODE: parses the last run's log into $records and $iters_csv.
record() {
  local app=$1 mode=$2 tag=$1.$2 status result
  local o=$out/logs/$tag.out
  # ITER lines of this app: time per iteration; arrival stamps for a capped
  # run's in-progress iteration.
  local stats
  stats=$(awk -v app="$app" -v start="$run_start" -v end="$run_end" '
    $2 == "ITER" && $3 == app { n++; t[n] = $5; last = $1 }
    END {
      if (n == 0) { printf "0 - - - %.3f", end - start; exit }
      rest = 0; for (i = 2; i <= n; i++) rest += t[i]
      mr = (n > 1) ? sprintf("%.3f", rest / (n - 1)) : "-"
      per = (n > 1) ? rest / (n - 1) : t[1]
      printf "%d %.3f %s %.3f %.3f", n, t[1], mr, per, end - last
    }' "$o")
  local n first mean_rest per since_last
  read -r n first mean_rest per since_last <<<"$stats"
  awk -v app="$app" -v mode="$mode" '$2 == "ITER" && $3 == app { printf "%s,%s,%d,%s\n", app, mode, $4, $5 }' "$o" >>"$iters_csv"
  result=$(awk -v app="$app" '$2 == "RESULT" && $3 == app { r = $4 } END { print r }' "$o")
  [[ -n $result ]] || result=-
  local bound=exact
  if ((run_rc == 124 || run_rc == 137)) && awk -v w="$run_wall" -v c="$cap" 'BEGIN { exit !(w >= c) }'; then
    status=capped
    # The iteration in progress took at least since_last: the true
    # per-iteration time is at least the larger of the two. A run capped
    # after its last iteration (in a final evaluation, or while its swapped
    # out ranks exit) has exact iteration times.
    if ((n >= iters)); then
      bound=exact
    elif ((n > 0)); then
      per=$(awk -v p="$per" -v s="$since_last" 'BEGIN { printf "%.3f", (s > p ? s : p) }')
      bound=lower
    else
      per=-
      bound=none
    fi
  elif ((run_rc != 0)); then
    status="failed(rc=$run_rc$( ((run_oom > 0)) && echo ",oom-kill"))"
    failed_runs=$((failed_runs + 1))
    say "RUN FAILED: $tag exited with $run_rc; see $out/logs/$tag.err"
    tail -5 "$out/logs/$tag.err" >&2
  else
    status=ok
    if ((n == 0)); then
      status="failed(no ITER lines)"
    elif [[ $result == - ]]; then
      status="failed(no RESULT line)"
    fi
    [[ $status == ok ]] || failed_runs=$((failed_runs + 1))
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$mode" "$status" \
    "$n" "$first" "$mean_rest" "$per" "$bound" "$run_wall" "$run_peak" "$run_swapin" \
    "$run_swapout" "$result" "$run_ranks" >>"$records"
}

# bdmpiexec's files for this run go to our scratch dir; checked afterwards.
run_count=0
bdmpi_cmd() { # options... -- program args: prints nothing, sets cmd array
  run_count=$((run_count + 1))
  job_id=$job_prefix$run_count
  cmd=("$run_bin/bdmpiexec" -ns "$run_ranks" -nr "$running" --scratch-dir "$work/scratch" --job-id "$job_id" "$@")
}
check_bdmpi_leftovers() {
  local tag=$1 left
  left=$( { find "$work/scratch" -mindepth 1 -maxdepth 1; ipc_leftovers; } 2>/dev/null)
  if [[ -n $left ]]; then
    say "warning: $tag left files behind (removed): $(tr '\n' ' ' <<<"$left")"
    rm -rf "$work"/scratch/* 2>/dev/null
    ipc_leftovers | xargs -r rm -rf
  fi
}

# ---------------------------------------------------------------- dd bound
# dd writes and reads the bytes of one application's data twice: with direct
# I/O, and through the page cache (write + fsync; read after dropping the
# cache), in the cgroup like the runs. Buffered I/O can beat direct I/O
# (read-ahead, write-behind), so the bound is the faster of the two.
run_ranks=1
ooc_dd_bound "$work/dd.bin" "$data_bytes"

# ---------------------------------------------------------------- the runs
for app in "${run_apps[@]}"; do
  run_ranks=$(ranks_for "$app")
  file=$work/data/$app.bin
  gen=$(prog_for "$app" gen)
  if [[ -n $gen ]]; then
    say "$app: generating $(mib "$data_bytes") MiB with $gen"
    t0=$EPOCHREALTIME
    gen_extra=()
    # PageRank's serial baseline keeps 16 bytes per vertex in memory; at
    # the generator's default degree (16: 72 bytes of file per vertex) that
    # is 0.9 x the limit for data of 4 x the limit, and the baseline would
    # swap. Degree 32 (the paper's graphs have 20-40) makes it about half.
    [[ $app == pagerank ]] && gen_extra=(--avg-degree "$pr_degree")
    if ! "$bin/$gen" --out "$file" --bytes "$data_bytes" --seed 1 "${gen_extra[@]}" >"$out/logs/$app.gen.out" 2>"$out/logs/$app.gen.err"; then
      say "SKIPPED $app: $gen failed: $(tail -3 "$out/logs/$app.gen.err")"
      skipped[$app]="$gen failed"
      rm -f "$file"
      failed_runs=$((failed_runs + 1))
      continue
    fi
    say "$app: $(mib "$(stat -c %s "$file")") MiB generated in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')s"
    app_args=("$file" --iters "$iters")
  else
    bpr=$((data_bytes / run_ranks))
    app_args=(--bytes-per-rank "$bpr" --iters "$iters")
  fi
  # A BDMPI mode runs once per --running value, as MODE-nrVALUE when
  # there are several.
  expanded=()
  for mode in ${runs_mode[$app]}; do
    if [[ $mode == bdmpi* ]]; then
      for r in "${running_list[@]}"; do expanded+=("$(at "$mode" "$r")"); done
    else
      expanded+=("$mode")
    fi
  done
  # Round after round; a repeated run's label is LABEL#ROUND. Each round
  # starts one mode further on, so that no mode always runs in the same
  # place: PageRank's BDMPI run right after the serial one was the slower
  # of two builds in the first round of three invocations, whichever build
  # it was.
  rounds=()
  for ((round = 1; round <= repeat; round++)); do
    for ((i = 0; i < ${#expanded[@]}; i++)); do
      label=${expanded[(i + round - 1) % ${#expanded[@]}]}
      ((round > 1)) && label+="#$round"
      rounds+=("$label")
    done
  done
  for label in "${rounds[@]}"; do
    base_label=${label%#*}
    mode=${base_label%-nr*}
    running=${running_list[0]}
    [[ $base_label == *-nr* ]] && running=${base_label##*-nr}
    run_bin=$(bin_for "$mode")
    p=$run_bin/$(prog_for "$app" "$mode")
    # Every BDMPI run's report (where_time.py reads it; a base build older
    # than the JSON report gets none).
    report=()
    [[ $("$run_bin/bdmpiexec" --help 2>&1) == *--report=json* ]] &&
      report=("--report=json" "$out/logs/$app.$label.report.json")
    case $mode in
      serial-ooc)
        # The serial baselines of sweep and sgd compute what N ranks do
        # (sgd: the same G x G diagonal schedule, bit for bit).
        # Their chunk (default 64m) must leave room in small limits.
        case $app in
          sweep) cmd=("$p" --ranks "$run_ranks" "${app_args[@]}" --ooc-dir "$work/ooc") ;;
          sgd) cmd=("$p" "${app_args[@]}" --grid "$(awk -v n="$run_ranks" 'BEGIN { print int(sqrt(n) + 0.5) }')") ;;
          *) cmd=("$p" "${app_args[@]}") ;;
        esac
        cmd+=(--chunk "$chunk") ;;
      bdmpi-ooc) bdmpi_cmd "${report[@]}" "$p" "${app_args[@]}" --ooc-dir "$work/ooc" ;;
      bdmpi | bdmpi-base) bdmpi_cmd "${report[@]}" "$p" "${app_args[@]}" ;;
      bdmpi-swap) bdmpi_cmd "${report[@]}" --storage-alloc off "$p" "${app_args[@]}" ;;
      bdmpi-x)
        # shellcheck disable=SC2086 # the options are words
        bdmpi_cmd "${report[@]}" $extra_opts "$p" "${app_args[@]}" ;;
      bdmpi-lazy | bdmpi-eager | bdmpi-ahead) bdmpi_cmd "${report[@]}" --prefetch "${mode#bdmpi-}" "$p" "${app_args[@]}" ;;
      mpirun)
        # Open MPI's shared-memory segments go to our work dir, so that a
        # capped (killed) run cannot leave them in /dev/shm.
        cmd=("$mpirun_bin" --oversubscribe --mca btl_vader_backing_directory "$work/tmp"
             -np "$run_ranks" "$p" "${app_args[@]}")
        (($(id -u) == 0)) && cmd=("$mpirun_bin" --allow-run-as-root "${cmd[@]:1}") ;;
    esac
    say "$app/$label: ${cmd[*]}"
    # The CPU time of the run's processes (bash's `times`, not in a
    # pipeline's subshell: its last line is the children's user and system
    # time) for where_time.py.
    # shellcheck disable=SC2016 # for the inner shell
    cmd=(bash -c '"$@"; rc=$?; times >&2; exit $rc' run "${cmd[@]}")
    run_in_cg "$app.$label" "${cmd[@]}"
    record "$app" "$label"
    printf '%s\t%s\t%s\t%s\n' "$app" "$label" "$run_diskin" "$run_diskout" >>"$out/io.tsv"
    [[ $mode == bdmpi* ]] && check_bdmpi_leftovers "$app.$label"
    rm -rf "$work"/ooc/* "$work"/tmp/* 2>/dev/null
    say "$app/$label: $(tail -1 "$records" | cut -f3,4,7 | tr '\t' ' ') (status, iterations, s/iteration) in ${run_wall}s"
  done
  ((keep_data)) || rm -f "$file"
done

# ---------------------------------------------------------------- report
# Relative tolerance of each application's RESULT, as its tests state
# (apps/README.md): sweep is exact; k-means' objective and PageRank's
# checksum are sums taken in another order; SGD is bit-identical to its
# serial schedule, the tolerance only covers the printed digits.
tolerance() {
  case $1 in
    sweep) echo 0 ;; kmeans) echo 1e-9 ;; pagerank) echo 1e-10 ;; sgd) echo 1e-12 ;;
    *) echo 1e-9 ;;
  esac
}

table=$out/table.md
{
  echo "# Out-of-core benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "Command: \`bench/ooc/run.sh --limit $limit_text --data-factor $factor --apps $apps_text --modes $modes_asked --ranks $ranks --running $running_text --iters $iters --cap $cap --repeat $repeat${base_build:+ --base-build $base_build}\`"
  echo
  echo "Memory cgroup limit $(mib "$limit_real") MiB; data per application $(mib "$data_bytes") MiB; swap file $(mib "$swap_bytes") MiB; $(nproc) cores; runtime-managed memory (--storage-alloc): $( ((storage_alloc)) && echo available || echo 'not in this build')."
  echo
  echo "I/O bound (dd, $dd_mb MiB, in the cgroup): $dd_line."
  echo
  echo "| app | mode | ranks | status | iters | first iter (s) | mean later iters (s) | per iter (s) | wall (s) | peak mem (MiB) | swap in / out (MiB) | RESULT |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk -F'\t' -v cap="$cap" '{
      per = $7
      if ($3 == "capped") {
        st = "> cap (" cap " s)"
        if ($8 == "lower") per = "> " per
        else if ($8 == "exact") st = st " after its last iteration"
      }
      else st = $3
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |\n", $1, $2, $14, st, $4, $5, $6, per, $9, $10, $11, $12, $13
    }' "$records"
  echo
} >"$table"

# Ratios of per-iteration times (mean of the iterations after the first, or
# the first when only one ran). A capped run's time is a lower bound.
# A mode's time is the mean over its rounds (labels MODE and MODE#k); it is
# a lower bound when one of them was capped, n/a when one failed.
ratio() { # app numerator-mode denominator-mode
  awk -F'\t' -v app="$1" -v a="$2" -v b="$3" '
    function of(label, m) { return label == m || index(label, m "#") == 1 }
    $1 == app && of($2, a) { if ($7 == "-") ma = 1; else { ta += $7; na++ }; la = la || ($8 == "lower"); fa = fa || ($3 ~ /^failed/) }
    $1 == app && of($2, b) { if ($7 == "-") mb = 1; else { tb += $7; nb++ }; lb = lb || ($8 == "lower"); fb = fb || ($3 ~ /^failed/) }
    END {
      if (!na || !nb || ma || mb || tb + 0 == 0) { print "n/a"; exit }
      if (fa || fb) { print "n/a"; exit }
      ta /= na; tb /= nb
      r = sprintf("%.2f", ta / tb)
      if (la && lb) print "? (both capped)"
      else if (la) print "> " r
      else if (lb) print "< " r
      else print r
    }' "$records"
}
# The ratio within each round (MODE in the first, MODE#k in round k), both
# runs of the round finished: interleaved rounds share the machine's load.
round_ratios() { # app numerator-mode denominator-mode
  awk -F'\t' -v app="$1" -v a="$2" -v b="$3" '
    function round(label, m) {
      if (label == m) return 1
      if (index(label, m "#") == 1) return substr(label, length(m) + 2) + 0
      return 0
    }
    $1 != app || $3 != "ok" || $7 == "-" { next }
    (k = round($2, a)) { ta[k] = $7 }
    (k = round($2, b)) { tb[k] = $7 }
    END {
      for (k = 1; k in ta || k in tb; k++)
        if (k in ta && k in tb && tb[k] + 0 > 0) { out = out (n++ ? ", " : "") sprintf("%.2f", ta[k] / tb[k]) }
      print (n ? out : "n/a")
    }' "$records"
}
per_iter() { # mean over the mode's finished rounds
  awk -F'\t' -v app="$1" -v m="$2" '($2 == m || index($2, m "#") == 1) && $1 == app && $3 == "ok" { t += $7; n++ }
    END { if (n) printf "%.3f\n", t / n }' "$records"
}
dd_ratio() { # app mode bound-seconds
  local t
  t=$(per_iter "$1" "$2")
  [[ -n $t ]] && awk -v t="$t" -v d="$3" 'BEGIN { printf "%.2f", t / d }' || echo n/a
}
dd_wr=$(awk -v a="$dd_write" -v b="$dd_read" 'BEGIN { printf "%.3f", a + b }')
{
  echo "Ratios of time per iteration (mean after the first; \"> x\" when the numerator run hit the cap, \"< x\" when the denominator did; a BDMPI mode at each --running value; \"each round\": the ratio within each round of interleaved runs):"
  echo
  echo "| app | -nr | bdmpi / serial-ooc | each round | bdmpi-ooc / serial-ooc | mpirun / bdmpi | bdmpi-swap / bdmpi | bdmpi / bdmpi-ooc | bdmpi / dd (write+read) | bdmpi / dd read |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for app in "${run_apps[@]}"; do
    [[ -n ${skipped[$app]:-} ]] && continue
    for r in "${running_list[@]}"; do
      b=$(at bdmpi "$r")
      echo "| $app | $r | $(ratio "$app" "$b" serial-ooc) | $(round_ratios "$app" "$b" serial-ooc) | $(ratio "$app" "$(at bdmpi-ooc "$r")" serial-ooc) | $(ratio "$app" mpirun "$b") | $(ratio "$app" "$(at bdmpi-swap "$r")" "$b") | $(ratio "$app" "$b" "$(at bdmpi-ooc "$r")") | $(dd_ratio "$app" "$b" "$dd_wr") | $(dd_ratio "$app" "$b" "$dd_read") |"
    done
  done
  echo
  if [[ -n $base_build ]]; then
    echo "This build against the base build ($base_build), the bdmpi mode of each, rounds interleaved (below 1 this build is faster):"
    echo
    echo "| app | -nr | bdmpi / bdmpi-base | each round | bdmpi (s/iteration, each round) | bdmpi-base (s/iteration, each round) |"
    echo "|---|---|---|---|---|---|"
    for app in "${run_apps[@]}"; do
      [[ -n ${skipped[$app]:-} ]] && continue
      each() { awk -F'\t' -v app="$app" -v m="$1" '$1 == app && ($2 == m || index($2, m "#") == 1) { printf "%s%s", (n++ ? ", " : ""), $7 }' "$records"; }
      for r in "${running_list[@]}"; do
        echo "| $app | $r | $(ratio "$app" "$(at bdmpi "$r")" "$(at bdmpi-base "$r")") | $(round_ratios "$app" "$(at bdmpi "$r")" "$(at bdmpi-base "$r")") | $(each "$(at bdmpi "$r")") | $(each "$(at bdmpi-base "$r")") |"
      done
    done
    echo
  fi
  # The switch-in modes, each against the same baselines.
  if [[ ",$modes_text," == *,bdmpi-[lea]* ]]; then
    echo "Switch-in (--prefetch) modes against the baselines of this run:"
    echo
    echo "| app | mode | -nr | mpirun / mode | mode / serial-ooc | mode / bdmpi-ooc | mode / dd (write+read) | mode / dd read |"
    echo "|---|---|---|---|---|---|---|---|"
    for app in "${run_apps[@]}"; do
      [[ -n ${skipped[$app]:-} ]] && continue
      for m in "${prefetch_modes[@]}"; do
        [[ " ${runs_mode[$app]} " == *" $m "* ]] || continue
        for r in "${running_list[@]}"; do
          l=$(at "$m" "$r")
          echo "| $app | $m | $r | $(ratio "$app" mpirun "$l") | $(ratio "$app" "$l" serial-ooc) | $(ratio "$app" "$l" "$(at bdmpi-ooc "$r")") | $(dd_ratio "$app" "$l" "$dd_wr") | $(dd_ratio "$app" "$l" "$dd_read") |"
        done
      done
    done
    echo
  fi
  # Runs of one BDMPI mode with each --running value, against the first.
  if ((${#running_list[@]} > 1)); then
    echo "Ranks running at once (bdmpiexec -nr), each against -nr ${running_list[0]} of the same mode:"
    echo
    echo "| app | mode | $(printf -- '-nr %s / -nr '"${running_list[0]}"' | ' "${running_list[@]:1}")"
    echo "|---|---|$(printf -- '---|%.0s' "${running_list[@]:1}")"
    for app in "${run_apps[@]}"; do
      [[ -n ${skipped[$app]:-} ]] && continue
      for m in ${runs_mode[$app]}; do
        [[ $m == bdmpi* ]] || continue
        row="| $app | $m |"
        for r in "${running_list[@]:1}"; do row+=" $(ratio "$app" "$(at "$m" "$r")" "$(at "$m" "${running_list[0]}")") |"; done
        echo "$row"
      done
    done
    echo
  fi
} >>"$table"

# Every mode (label) that ran, in order: the columns of the results table.
mapfile -t result_modes < <(cut -f2 "$records" | awk '!seen[$0]++')

# Results side by side, checked against the first run that finished.
disagree=0
{
  echo "Results (each run's RESULT against the first finished run of the app; tolerance: sweep exact, else relative):"
  echo
  echo "| app | tolerance | reference | $(IFS='|'; echo "${result_modes[*]}" | sed 's/|/ | /g') | agree |"
  echo "|---|---|---|$(printf -- '---|%.0s' "${result_modes[@]}")---|"
  for app in "${run_apps[@]}"; do
    [[ -n ${skipped[$app]:-} ]] && continue
    tol=$(tolerance "$app")
    ref=$(awk -F'\t' -v app="$app" '$1 == app && $13 != "-" { print $13; exit }' "$records")
    row="| $app | $tol | ${ref:--} |"
    verdict=yes
    for m in "${result_modes[@]}"; do
      r=$(awk -F'\t' -v app="$app" -v m="$m" '$1 == app && $2 == m { print $13 }' "$records")
      [[ -z $r ]] && { row+=" (not run) |"; continue; }
      if [[ $r == - ]]; then row+=" - |"; continue; fi
      if [[ $tol == 0 ]]; then
        same=$([[ $r == "$ref" ]] && echo 1 || echo 0)
      else
        same=$(awk -v a="$r" -v b="$ref" -v t="$tol" 'BEGIN {
          d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); n = (b < 0 ? -b : b); if (n > m) m = n
          print (d <= t * m || d == 0) ? 1 : 0 }')
      fi
      if ((same)); then row+=" $r |"; else row+=" **$r** |"; verdict="**NO**"; fi
    done
    row+=" $verdict |"
    echo "$row"
    [[ $verdict == yes ]] || disagree=1
  done
  echo
  if ((${#skipped[@]})); then
    echo "Skipped:"
    echo
    for k in $(printf '%s\n' "${!skipped[@]}" | sort); do echo "* $k: ${skipped[$k]}"; done
    echo
  fi
} >>"$table"

# CSV of the runs.
{
  echo "app,mode,ranks,status,iterations,first_s,mean_later_s,per_iteration_s,bound,wall_s,peak_mib,swapin_mib,swapout_mib,result"
  awk -F'\t' -v OFS=, '{ print $1, $2, $14, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$records"
  for k in write.direct write.buffered read.direct read.buffered; do
    echo "dd,$k,1,ok,1,${dd_t[$k]},-,${dd_t[$k]},exact,${dd_t[$k]},-,-,-,-"
  done
} >"$out/runs.csv"

# Plot: per-iteration time by app (one panel each) and mode (one line each).
if command -v gnuplot >/dev/null; then
  pd=$out/plotdata
  mkdir -p "$pd"
  napps=0
  plot_cmds=""
  for app in "${run_apps[@]}"; do
    [[ -n ${skipped[$app]:-} ]] && continue
    lines=()
    mi=0
    for m in "${result_modes[@]}"; do
      mi=$((mi % 8 + 1))  # a mode keeps its colour in every panel
      awk -F, -v app="$app" -v m="$m" '$1 == app && $2 == m { print $3, $4 }' "$iters_csv" >"$pd/$app.$m.dat"
      st=$(awk -F'\t' -v app="$app" -v m="$m" '$1 == app && $2 == m { print $3 }' "$records")
      [[ $st == capped ]] && st="$m (capped at $cap s)" || st=$m
      [[ -s $pd/$app.$m.dat ]] && lines+=("'$pd/$app.$m.dat' using 1:2 with linespoints linestyle $mi title '$st'")
    done
    ((${#lines[@]})) || continue
    napps=$((napps + 1))
    plot_cmds+="set title '$app ($(ranks_for "$app") ranks)'"$'\n'
    plot_cmds+="plot $(IFS=,; echo "${lines[*]}"), $dd_wr with lines dashtype 2 lc rgb 'gray' title 'dd write+read'"$'\n'
  done
  if ((napps)); then
    cols=$((napps < 2 ? 1 : 2))
    rows=$(((napps + cols - 1) / cols))
    cat >"$pd/plot.gp" <<EOF
set terminal pngcairo size $((640 * cols)),$((480 * rows)) font ',10'
set output '$out/plot.png'
set multiplot layout $rows,$cols title 'Out-of-core benchmark: limit $(mib "$limit_real") MiB, data $(mib "$data_bytes") MiB per app'
set logscale y
set xlabel 'iteration'
set xtics 1
set style line 1 lc rgb '#1b9e77' pt 1 lw 1.5
set style line 2 lc rgb '#d95f02' pt 2 lw 1.5
set style line 3 lc rgb '#7570b3' pt 7 lw 1.5
set style line 4 lc rgb '#e7298a' pt 5 lw 1.5
set style line 5 lc rgb '#444444' pt 9 lw 1.5
set style line 6 lc rgb '#66a61e' pt 4 lw 1.5
set style line 7 lc rgb '#e6ab02' pt 6 lw 1.5
set style line 8 lc rgb '#a6761d' pt 8 lw 1.5
set ylabel 'seconds per iteration'
set key below font ',9'
set grid
$plot_cmds
unset multiplot
EOF
    gnuplot "$pd/plot.gp" 2>"$out/logs/gnuplot.err" && say "plot: $out/plot.png" ||
      say "warning: gnuplot failed: $(head -3 "$out/logs/gnuplot.err")"
  fi
fi

cat "$table"
if ((disagree)); then
  printf '\n!!!!!!!! RESULTS DISAGREE between runs of the same application: see the bold entries above !!!!!!!!\n\n' >&2
fi
say "results in $out (table.md, runs.csv, iters.csv, plot.png, logs/)"
((disagree || failed_runs)) && exit 1
exit 0
