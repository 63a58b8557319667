#!/usr/bin/env bash
# bench/apps/run.sh -- proxy applications that synchronise often (halo
# exchanges every step, an allreduce every solver iteration), unmodified,
# built against BDMPI and against Open MPI from the same source, run in
# memory and out of core: bdmpiexec (default options and --best ones)
# against mpirun --oversubscribe with swap, in one memory cgroup.
#
# Usage (as root):
#   bench/apps/run.sh [--src DIR] [--app-src APP=DIR]... [--apps LIST]
#                     [--limit SIZE] [--factor F] [--sizes LIST] [--modes LIST]
#                     [--best 'OPTIONS'] [--repeat N] [--cap SECS]
#                     [--build DIR] [--best-build DIR] [--app-build DIR]
#                     [--out DIR] [--work DIR]
#   bench/apps/run.sh --in-memory [--ranks LIST] [--apps LIST] [--repeat N]
#                     [--cap SECS] [--build DIR] [--base-build DIR] [--out DIR]
#
#   --src DIR         where the fetched sources are, one directory per
#                     application named LULESH, CoMD, miniFE, hpcg, graph500
#                     (default /work/thirdparty/apps)
#   --app-src APP=DIR the source of one application elsewhere
#   --apps LIST       comma-separated, from lulesh,comd,minife,hpcg,graph500
#                     (default lulesh,comd,minife,hpcg)
#   --limit SIZE      memory cgroup limit (default 256m; k/m/g suffixes)
#   --factor F        the out-of-core size's ranks together need about F x the
#                     limit (default 2.75); the in-memory size about F/8
#   --sizes LIST      small,large (default both): the ranks together need
#                     about --factor / 8 (small) or --factor (large) x the
#                     limit. Large, at --limit 192m: LULESH s = 43 (8 ranks),
#                     CoMD 4 x 61^3 atoms on 4 x 2 x 2 = 16 ranks (a rank ~1/6
#                     of the limit, so that the budget holds several), miniFE
#                     108^3 (8 ranks), HPCG 40 x 40 x 48 per rank on 8 ranks,
#                     run once through (--rt=0: about 175 CG iterations in all,
#                     the timed set 50 of them)
#   --modes LIST      from bdmpi,bdmpi-best,mpirun (default all three); the
#                     in-memory reference (mpirun in a cgroup without limit)
#                     always runs
#   --best 'OPTIONS'  bdmpiexec options of the bdmpi-best mode
#                     (default '-nr 1 --prefetch ahead')
#   --repeat N        runs of each mode, interleaved (default 1)
#   --cap SECS        wall-clock cap per run (default 240)
#   --build DIR       BDMPI build tree with bin/bdmpicc (default <repo>/build)
#   --best-build DIR  another build tree (say main's) for the bdmpi-best mode:
#                     its bdmpiexec, and the applications built with its
#                     wrappers (a change of libbdmpi or the master against
#                     the build before it, in one invocation; with --best ''
#                     both modes run with default options)
#   --app-build DIR   where the applications are built (default
#                     <--src>/build; outside the repository)
#   --out DIR         results (default bench/apps/results/<date>)
#   --work DIR        swap file, scratch and run directories (default /var/tmp)
#   --in-memory       instead: each application at a small size on each of
#                     --ranks (default 2,4), every rank running: bdmpiexec
#                     -nr <ranks> against mpirun, interleaved --repeat times
#                     (default 3), answers checked against mpirun's, the
#                     ratio of solve times (no root, cgroup or swap; LULESH
#                     needs a cube of ranks: 1 or 8); --base-build DIR adds
#                     that tree's bdmpiexec and wrappers (say main's) as a
#                     third variant
#
# Every application runs with 8 ranks, CoMD with 16. Per size: the reference (mpirun, no
# memory limit), then, in the cgroup of --limit, interleaved: bdmpi
# (bdmpiexec -ns 8, default options), bdmpi-best (bdmpiexec -ns 8 --best
# options), mpirun (mpirun --oversubscribe -np 8, with a swap file). Every
# run's answer is checked against the reference's; the BDMPI runs write a
# run report (--report=json) from which bench/apps/io_figures.py prints
# where the time went. Page cache dropped before each run.
#
# Exit status: 0 all runs finished and agreed, 1 a run failed or disagreed
# (capped runs are reported, not failures), 2 usage or setup error.

set -u -o pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)

say() { printf '[apps-bench %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf 'apps-bench: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }

# shellcheck source=../lib/ooc_env.sh
. "$repo/bench/lib/ooc_env.sh"

src=/work/thirdparty/apps
declare -A app_src=()
apps_text=lulesh,comd,minife,hpcg
limit_text=256m
factor=2.75
sizes_text=small,large
modes_text=bdmpi,bdmpi-best,mpirun
best='-nr 1 --prefetch ahead'
repeat=1
cap=240
build=$repo/build
best_build=""
app_build=""
out=""
work_parent=/var/tmp
in_memory=0
mem_ranks_text=2,4
base_build=""
repeat_given=0
while (($#)); do
  case $1 in
    --src) src=${2?--src needs a value}; shift 2 ;;
    --app-src)
      v=${2?--app-src needs APP=DIR}
      [[ $v == *=* ]] || die "--app-src takes APP=DIR, not '$v'"
      app_src[${v%%=*}]=${v#*=}; shift 2 ;;
    --apps) apps_text=${2?--apps needs a value}; shift 2 ;;
    --limit) limit_text=${2?--limit needs a value}; shift 2 ;;
    --factor) factor=${2?--factor needs a value}; shift 2 ;;
    --sizes) sizes_text=${2?--sizes needs a value}; shift 2 ;;
    --modes) modes_text=${2?--modes needs a value}; shift 2 ;;
    --best) best=${2?--best needs a value}; shift 2 ;;
    --repeat) repeat=${2?--repeat needs a value}; repeat_given=1; shift 2 ;;
    --in-memory) in_memory=1; shift ;;
    --ranks) mem_ranks_text=${2?--ranks needs a value}; shift 2 ;;
    --base-build) base_build=${2?--base-build needs a value}; shift 2 ;;
    --cap) cap=${2?--cap needs a value}; shift 2 ;;
    --build) build=${2?--build needs a value}; shift 2 ;;
    --best-build) best_build=${2?--best-build needs a value}; shift 2 ;;
    --app-build) app_build=${2?--app-build needs a value}; shift 2 ;;
    --out) out=${2?--out needs a value}; shift 2 ;;
    --work) work_parent=${2?--work needs a value}; shift 2 ;;
    -h | --help) usage 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
limit=$(parse_size "$limit_text" --limit) || exit 2
((limit >= 128 << 20)) || die "--limit must be at least 128m"
awk -v f="$factor" 'BEGIN { exit !(f + 0 > 0) }' || die "--factor takes a positive number, not '$factor'"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat takes a positive count, not '$repeat'"
[[ $cap =~ ^[1-9][0-9]*$ ]] || die "--cap takes seconds, not '$cap'"
IFS=, read -r -a apps <<<"$apps_text"
for a in "${apps[@]}"; do
  case $a in lulesh | comd | minife | hpcg | graph500) ;;
    *) die "--apps: unknown application '$a' (lulesh,comd,minife,hpcg,graph500)" ;;
  esac
done
IFS=, read -r -a sizes <<<"$sizes_text"
for s in "${sizes[@]}"; do [[ $s == small || $s == large ]] || die "--sizes: small or large, not '$s'"; done
IFS=, read -r -a modes <<<"$modes_text"
for m in "${modes[@]}"; do
  case $m in bdmpi | bdmpi-best | mpirun) ;; *) die "--modes: unknown mode '$m' (bdmpi,bdmpi-best,mpirun)" ;; esac
done
[[ -n $app_build ]] || app_build=$src/build
[[ -n $out ]] || out=$repo/bench/apps/results/$(date -u +%Y-%m-%d)
# The builds and runs change directory: a path given relative to here
# means here.
for path_var in build best_build base_build app_build out; do
  [[ -n ${!path_var} ]] && printf -v "$path_var" '%s' "$(realpath -m "${!path_var}")"
done
case $(readlink -f "$app_build") in "$repo"/*) die "--app-build must be outside the repository (nothing third-party goes into the tree)" ;; esac

if ((!in_memory)); then
  ooc_check_host
  ooc_need_gnuplot
fi
command -v python3 >/dev/null || die "python3 not found (it reads the run reports)"
ompi_cc=/usr/bin/mpicc ompi_cxx=/usr/bin/mpicxx ompi_run=/usr/bin/mpirun
for t in "$ompi_cc" "$ompi_cxx" "$ompi_run"; do
  [[ -x $t ]] || die "Open MPI's $t not found (Debian: libopenmpi-dev, openmpi-bin)"
done
bin=$build/bin
for t in bdmpicc bdmpicxx bdmpiexec bdmprun; do
  [[ -x $bin/$t ]] || die "$bin/$t not found: build BDMPI first (cmake --build $build) or pass --build DIR"
done
# The bdmpi-best mode's tree: this one, or --best-build's.
best_bin=$bin
if [[ -n $best_build ]]; then
  best_bin=$best_build/bin
  for t in bdmpicc bdmpicxx bdmpiexec bdmprun; do
    [[ -x $best_bin/$t ]] || die "--best-build: $best_bin/$t not found"
  done
fi

# ---------------------------------------------------------------- the apps
# Ranks per application: CoMD's rank is a small part of the budget with 16
# (with 8 its budget held fewer than two ranks, and each exchange switched
# one out).
ranks_of() { if [[ $1 == comd ]]; then echo 16; else echo 8; fi; }
src_of() { # app -> source directory
  local d
  if [[ -n ${app_src[$1]:-} ]]; then echo "${app_src[$1]}"; return; fi
  case $1 in
    lulesh) d=LULESH ;; comd) d=CoMD ;; minife) d=miniFE ;; hpcg) d=hpcg ;; graph500) d=graph500 ;;
  esac
  echo "$src/$d"
}

# build_app APP KIND DIR: builds DIR/APP.KIND (KIND bdmpi: bdmpicc/bdmpicxx,
# best: those of --best-build, ompi: Open MPI's mpicc/mpicxx) from the
# unmodified source.
build_app() {
  local app=$1 kind=$2 dir=$3 s cc cxx exe
  s=$(src_of "$app")
  exe=$dir/$app.$kind
  case $kind in
    bdmpi) cc=$bin/bdmpicc cxx=$bin/bdmpicxx ;;
    best) cc=$best_bin/bdmpicc cxx=$best_bin/bdmpicxx ;;
    base) cc=$base_build/bin/bdmpicc cxx=$base_build/bin/bdmpicxx ;;
    *) cc=$ompi_cc cxx=$ompi_cxx ;;
  esac
  mkdir -p "$dir/$app-$kind"
  # Up to date: newer than every file of the source and than the wrapper.
  if [[ -x $exe && -z $(find "$s" "$cc" "$cxx" -newer "$exe" -type f -print -quit 2>/dev/null) ]]; then
    return 0
  fi
  (
    cd "$dir/$app-$kind" || exit 1
    case $app in
      lulesh)
        "$cxx" -O3 -DUSE_MPI=1 -I"$s" "$s"/lulesh.cc "$s"/lulesh-comm.cc "$s"/lulesh-viz.cc \
          "$s"/lulesh-util.cc "$s"/lulesh-init.cc -o "$exe" -lm ;;
      comd)
        bash "$s/src-mpi/generate_info_header" mpi "$cc" "-std=c99 -O3" "-lm" >/dev/null &&
          "$cc" -std=c99 -O3 -DDOUBLE -DDO_MPI -I. -I"$s/src-mpi" "$s"/src-mpi/*.c -o "$exe" -lm ;;
      minife)
        # ref/ has no common/ of its own; the YAML writer is the same in openmp-opt/.
        local c=$s/openmp-opt/common
        "$cxx" -O3 -DMINIFE_SCALAR=double -DMINIFE_LOCAL_ORDINAL=int -DMINIFE_GLOBAL_ORDINAL=int \
          -DMINIFE_CSR_MATRIX -DHAVE_MPI -DMPICH_IGNORE_CXX_SEEK -DMINIFE_INFO=0 -DMINIFE_KERNELS=0 \
          -I"$s/ref/src" -I"$s/ref/utils" -I"$s/ref/fem" -I"$c" "$s/ref/src/main.cpp" \
          "$s/ref/utils/BoxPartition.cpp" "$c/YAML_Doc.cpp" "$c/YAML_Element.cpp" \
          "$s/ref/utils/param_utils.cpp" "$s/ref/utils/utils.cpp" "$s/ref/utils/mytimer.cpp" -o "$exe" ;;
      hpcg)
        # HPCG_DEBUG: rank 0 logs every CG iteration to its hpcg<date>.txt,
        # the only progress HPCG gives (hpcg_watch stamps them).
        "$cxx" -O3 -DHPCG_NO_OPENMP -DHPCG_DEBUG -I"$s/src" "$s"/src/*.cpp -o "$exe" ;;
      graph500)
        # -fcommon: the reference code defines globals in headers (GCC >= 10
        # refuses that by default).
        "$cc" -fcommon -Drestrict=__restrict__ -O3 -DGRAPH_GENERATOR_MPI -DREUSE_CSR_FOR_VALIDATION \
          -I"$s/aml" "$s"/src/bfs_reference.c "$s"/src/csr_reference.c "$s"/src/main.c \
          "$s"/src/utils.c "$s"/src/validate.c "$s"/aml/aml.c "$s"/generator/graph_generator.c \
          "$s"/generator/make_graph.c "$s"/generator/splittable_mrg.c "$s"/generator/utils.c \
          -o "$exe" -lm -lpthread ;;
    esac
  ) >"$dir/$app-$kind/build.log" 2>&1
}

# Problem sizes. Bytes a rank needs per unit of size, measured with Open
# MPI on one rank (peak RSS): LULESH ~850 B per element (s^3 elements),
# CoMD ~600 B per atom on its 16 ranks (4 n^3 atoms in all; 440 on one:
# n = 68 peaked at 733 MiB, 3.8 x 192 MiB, on 16 ranks), miniFE ~440 B per row (n^3 in
# all), HPCG ~900 B per row (nx * ny * nz per rank, each a multiple of 8:
# nx = ny the largest cube's side that fits, nz the rest), Graph500
# ~700 B per vertex at edge factor 16 (2^scale vertices in all).
size_param() { # app total-bytes -> the size parameter
  awk -v app="$1" -v b="$2" -v n="$(ranks_of "$1")" 'function cbrt(x) { return exp(log(x) / 3) }
    BEGIN {
      if (app == "lulesh") v = int(cbrt(b / n / 850) + 0.5)
      else if (app == "comd") v = int(cbrt(b / 600 / 4) + 0.5)
      else if (app == "minife") v = int(cbrt(b / 440) + 0.5)
      else if (app == "hpcg") {
        rows = b / n / 900; x = int(cbrt(rows) / 8) * 8; if (x < 16) x = 16
        z = int(rows / (x * x) / 8 + 0.5) * 8; if (z < 16) z = 16
        v = x "x" x "x" z }
      else if (app == "graph500") { v = int(log(b / 700) / log(2) + 0.5) }
      print v }'
}
# app_args APP SIZE-PARAM SIZE-NAME: sets args (the program's arguments) and
# iters_hint (iterations, for the per-iteration figures).
app_args() {
  local app=$1 p=$2 sz=$3
  case $app in
    lulesh) iters_hint=$([[ $sz == small ]] && echo 20 || echo 5); args=(-s "$p" -i "$iters_hint" -p) ;;
    comd) iters_hint=$([[ $sz == small ]] && echo 10 || echo 3)
      args=(-i 4 -j 2 -k 2 -x "$p" -y "$p" -z "$p" -N "$iters_hint" -n 1) ;;
    minife) iters_hint=200; args=(-nx "$p" -ny "$p" -nz "$p") ;;
    # --rt=0: one pass (HPCG's "QuickPath"): the reference CG's 50
    # iterations, its checks, the optimized CG's 50, one timed set of 50.
    hpcg) iters_hint=50; local d; IFS=x read -r -a d <<<"$p"
      args=(--nx="${d[0]}" --ny="${d[1]}" --nz="${d[2]}" --rt=0) ;;
    graph500) iters_hint=64; args=("$p" 16) ;;
  esac
}
# parse_run APP RUNDIR LOG: prints "solve_seconds answer iterations verified"
# from the program's output (and the files it writes in its directory).
parse_run() {
  local app=$1 dir=$2 log=$3 f
  case $app in
    lulesh)
      # "Elapsed time" is printed with two significant digits; the grind
      # time's "overall" figure is the same time with eight.
      awk '/Final Origin Energy/ { e = $NF } /Iteration count/ { it = $NF }
           /MaxRelDiff/ { ok = ($NF + 0 < 1e-8) ? "yes" : "no" }
           /Grind time/ { t = $(NF - 1) }
           END { printf "%s %s %s %s\n", t ? t : "-", e ? e : "-", it ? it : "-", ok ? ok : "-" }' "$log" ;;
    comd)
      awk '$2 == "loop" && $3 == "1" { t = $5 } /Final energy/ { e = $NF }
           /Final atom count/ { ok = ($0 ~ /no atoms lost/) ? "yes" : "no" }
           $2 ~ /^[0-9]+$/ && NF == 9 { it = $2 }
           END { printf "%s %s %s %s\n", t ? t : "-", e ? e : "-", it ? it : "-", ok ? ok : "-" }' "$log" ;;
    minife)
      f=$(ls "$dir"/miniFE.*.yaml 2>/dev/null | head -1)
      [[ -n $f ]] || { echo "- - - -"; return; }
      awk -F': *' '/Total CG Time/ { t = $2 } /Final Resid Norm/ { e = $2 } /^  Iterations/ { it = $2 }
           END { printf "%s %s %s %s\n", t ? t : "-", e ? e : "-", it ? it : "-", "-" }' "$f" ;;
    hpcg)
      f=$(ls "$dir"/HPCG-Benchmark*.txt 2>/dev/null | head -1)
      [[ -n $f ]] || { echo "- - - -"; return; }
      awk -F= '/Benchmark Time Summary::Total/ { t = $2 } /Scaled residual mean/ { e = $2 }
           /Total number of optimized iterations/ { it = $2 }
           /HPCG result is VALID/ { ok = "yes" } /HPCG result is INVALID/ { ok = "no" }
           END { printf "%s %s %s %s\n", t ? t : "-", e ? e : "-", it ? it : "-", ok ? ok : "-" }' "$f" ;;
    graph500)
      awk '/bfs  mean_time:/ { t = $NF * 64 } /min_nedge:/ { e = $NF } /Validate time for BFS/ { it++ }
           /[Vv]alidation.*failed|Validation error/ { bad = 1 }
           END { printf "%s %s %s %s\n", t ? t : "-", e ? e : "-", it ? it : "-", e ? (bad ? "no" : "yes") : "-" }' "$log" ;;
  esac
}
# hpcg_watch DIR: while HPCG runs in DIR, a line "<time> cg-iterations N"
# whenever the CG iterations rank 0 has logged (hpcg<date>.txt; the other
# ranks' files end in _<rank>.txt) reach N, polled every 0.2 s.
hpcg_watch() {
  local n=0 m f
  while sleep 0.2; do
    f=$(ls "$1"/hpcg*T[0-9][0-9][0-9][0-9][0-9][0-9].txt 2>/dev/null | head -1)
    [[ -n $f ]] || continue
    m=$(grep -c '^Iteration = ' "$f")
    ((m > n)) && { printf '%s cg-iterations %d\n' "$EPOCHREALTIME" "$m"; n=$m; }
  done
}
# progress APP LOG START END: "setup_s done s_per_iter bound" from the time
# stamps of the lines the program prints as it goes (LULESH -p: a line per
# cycle; CoMD: one per step; miniFE: one per 20 CG iterations; HPCG: each
# CG iteration, of its checks' cheaper unpreconditioned ones too, through
# hpcg_watch): the time to the first of them (the setup), the iterations done
# after it, and the time per iteration since, a lower bound ("lower") when
# the run ended before its next line came (capped) and nothing was done:
# the time since the first line over the iterations between two lines.
progress() {
  awk -v app="$1" -v start="$3" -v end="$4" -v stride="$([[ $1 == minife ]] && echo 20 || echo 1)" '
    function mark(n) { if (t0 == "") { t0 = $1; n0 = n } else { t1 = $1; n1 = n } }
    app == "lulesh" && $2 == "cycle" { mark($4 + 0) }
    app == "comd" && $2 ~ /^[0-9]+$/ && NF == 9 && $4 ~ /^-/ { mark($2 + 0) }
    app == "minife" && /Starting CG solver/ { mark(0) }
    app == "minife" && $2 == "Iteration" { mark($4 + 0) }
    app == "hpcg" && $2 == "cg-iterations" { mark($3 + 0) }
    END {
      if (t0 == "") { print "- 0 - none"; exit }
      if (t1 == "") { printf "%.3f 0 %.3f lower\n", t0 - start, (end - t0) / stride; exit }
      printf "%.3f %d %.4f exact\n", t0 - start, n1 - n0, (t1 - t0) / (n1 - n0)
    }' "$2"
}
tolerance() {
  case $1 in
    lulesh) echo 1e-6 ;;   # printed with 7 significant digits
    comd) echo 1e-9 ;;     # energy sums in another order
    # RELATIVE:FLOOR: values both below FLOOR agree. The final residual of
    # miniFE's 200 CG iterations on a small grid (~2e-16) and HPCG's scaled
    # residual (~1e-13) are at rounding level: dot products summed in
    # another order change their digits. On a large grid miniFE stops at
    # 200 iterations before convergence (~4e-7), where the summation order
    # moves the residual by tens of per cent: at 108^3 on 8 ranks Open MPI
    # alone ends at 3.93e-7 with its linear allreduce and 4.23e-7 with its
    # ring, BDMPI at 3.55e-7. So it is compared within 30 %.
    minife) echo 0.3:1e-12 ;;
    hpcg) echo 1e-6:1e-12 ;;
    graph500) echo 0 ;;    # edge counts: exact
  esac
}

# ---------------------------------------------------------------- in memory
# --in-memory: small sizes, every rank running, BDMPI against Open MPI.
# in_memory_args APP RANKS: sets args and ok_ranks (0: the application
# cannot run on RANKS ranks).
in_memory_args() {
  local app=$1 n=$2
  ok_ranks=1
  case $app in
    lulesh) args=(-s 20 -i 60); [[ $n == 1 || $n == 8 ]] || ok_ranks=0 ;;
    comd) # a 2-by-(n/2) grid of ranks, 4 x 24^3 atoms
      ((n % 2 == 0)) || ok_ranks=0
      args=(-i 2 -j $((n / 2)) -k 1 -x 24 -y 24 -z 24 -N 20 -n 5) ;;
    minife) args=(-nx 48 -ny 48 -nz 48) ;;
    hpcg) args=(--nx=16 --ny=16 --nz=16 --rt=1) ;;
    graph500) args=(13 16) ;;
  esac
}
# relative difference within tolerance REL[:FLOOR]
answers_agree() {
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
    n = split(t, p, ":"); rel = p[1] + 0; floor = n > 1 ? p[2] + 0 : 0
    if (a == b) exit 0
    if (a !~ /^[-+0-9.eE]+$/ || b !~ /^[-+0-9.eE]+$/) exit 1
    x = a + 0; y = b + 0; d = x - y; if (d < 0) d = -d
    if (x < 0) x = -x; if (y < 0) y = -y
    if (floor > 0 && x < floor && y < floor) exit 0
    m = x > y ? x : y
    exit !(m > 0 && d / m <= rel) }'
}
if ((in_memory)); then
  ((repeat_given)) || repeat=3
  IFS=, read -r -a mem_ranks <<<"$mem_ranks_text"
  for n in "${mem_ranks[@]}"; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "--ranks takes rank counts, not '$n'"; done
  if [[ -n $base_build ]]; then
    for t in bdmpicc bdmpicxx bdmpiexec bdmprun; do
      [[ -x $base_build/bin/$t ]] || die "--base-build: $base_build/bin/$t not found"
    done
  fi
  mkdir -p "$out/logs" "$work_parent" || die "cannot create $out or $work_parent"
  work=$(mktemp -d "$work_parent/bdmpi-apps-mem.XXXXXX") || die "mktemp in $work_parent failed"
  job_prefix=appsm$$r
  mem_cleanup() {
    local rc=$?
    find /dev/shm /dev/mqueue -maxdepth 1 -name "*bdmpi-$job_prefix*" -exec rm -rf {} + 2>/dev/null
    rm -rf "$work"
    exit "$rc"
  }
  trap mem_cleanup EXIT
  trap 'say "interrupted"; exit 130' INT
  trap 'say "terminated"; exit 143' TERM
  kinds=(bdmpi ompi)
  [[ -n $base_build ]] && kinds+=(base)
  run_apps=()
  for app in "${apps[@]}"; do
    s=$(src_of "$app")
    [[ -d $s ]] || { say "skipped $app: no source at $s"; continue; }
    ok=1
    for kind in "${kinds[@]}"; do
      say "building $app.$kind from $s (unless up to date)"
      build_app "$app" "$kind" "$app_build" || { say "skipped $app: build with $kind failed: $app_build/$app-$kind/build.log"; ok=0; break; }
      cp "$app_build/$app.$kind" "$work/" || ok=0
    done
    ((ok)) && run_apps+=("$app")
  done
  ((${#run_apps[@]})) || die "nothing to run"
  records=$out/in_memory.tsv
  printf 'app\tranks\tvariant\trep\tstatus\twall\ts_per_iter\tanswer\n' >"$records"
  load_start=$(cut -d' ' -f1-3 /proc/loadavg)
  failed=0 njobs=0
  for app in "${run_apps[@]}"; do
    for n in "${mem_ranks[@]}"; do
      in_memory_args "$app" "$n"
      ((ok_ranks)) || { say "$app: not on $n ranks"; continue; }
      variants=(bdmpi ompi)
      [[ -n $base_build ]] && variants+=(base)
      for ((r = 1; r <= repeat; r++)); do
        for ((i = 0; i < ${#variants[@]}; i++)); do
          v=${variants[(i + r) % ${#variants[@]}]}
          tag=$app.np$n.$v.$r
          dir=$work/run-$tag
          mkdir -p "$dir"
          ((++njobs))
          case $v in
            ompi) cmd=("$ompi_run" --allow-run-as-root --oversubscribe -np "$n" "$work/$app.ompi") ;;
            bdmpi) cmd=("$bin/bdmpiexec" -ns "$n" -nr "$n" --job-id "$job_prefix$njobs" "$work/$app.bdmpi") ;;
            base) cmd=("$base_build/bin/bdmpiexec" -ns "$n" -nr "$n" --job-id "$job_prefix$njobs" "$work/$app.base") ;;
          esac
          printf '%s\n' "${cmd[*]} ${args[*]}" >"$out/logs/$tag.cmd"
          t0=$EPOCHREALTIME
          # Each line behind a first field, where the out-of-core runs have
          # their time stamps (parse_run counts fields so).
          (cd "$dir" && timeout -k 5 "$cap" "${cmd[@]}" "${args[@]}") 2>"$out/logs/$tag.err" |
            sed 's/^/- /' >"$out/logs/$tag.out"
          rc=${PIPESTATUS[0]}
          wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
          read -r solve answer iters verified <<<"$(parse_run "$app" "$dir" "$out/logs/$tag.out")"
          # Seconds per iteration: HPCG's --rt runs as many CG sets as fit
          # its time, so only the time per iteration compares. (Graph500
          # names its 64 BFS runs on stderr.)
          [[ $app == graph500 && $iters == - ]] && iters=64
          solve=${solve#(}  # LULESH's "(0.44 overall)"
          [[ $solve != - && $iters =~ ^[0-9]+$ && $iters -gt 0 ]] &&
            solve=$(awk -v t="$solve" -v n="$iters" 'BEGIN { printf "%.6g", t / n }')
          for f in "$dir"/*.yaml "$dir"/*.txt; do [[ -f $f ]] && cp "$f" "$out/logs/$tag.${f##*/}"; done
          rm -rf "$dir"
          status=ok
          if ((rc != 0)); then status="failed(rc=$rc)"
          elif [[ $answer == - || $verified == no ]]; then status="failed(answer=$answer,verified=$verified)"; fi
          [[ $status == ok ]] || failed=$((failed + 1))
          printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$n" "$v" "$r" "$status" "$wall" "$solve" "$answer" >>"$records"
          say "$tag: $status, wall ${wall}s, solve ${solve}s, answer $answer"
        done
      done
    done
  done
  load_end=$(cut -d' ' -f1-3 /proc/loadavg)
  # Per application and ranks: the median over the repetitions of the
  # per-repetition ratio of solve times (BDMPI / Open MPI: a speed of
  # 1 / ratio), with its spread; answers against Open MPI's of the same
  # repetition.
  {
    echo "Command: \`bench/apps/run.sh --in-memory --ranks $mem_ranks_text --apps $apps_text --repeat $repeat${base_build:+ --base-build $base_build}\`; commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null); $(nproc) cores; load average at start $load_start, at end $load_end."
    echo
    echo "| app | ranks | BDMPI (ms per iteration) | Open MPI (ms per iteration) | BDMPI / Open MPI time | speed (Open MPI = 1) | answers |${base_build:+ base / Open MPI | new / base |}"
    echo "| --- | --- | --- | --- | --- | --- | --- |${base_build:+ --- | --- |}"
    for app in "${run_apps[@]}"; do
      tol=$(tolerance "$app")
      for n in "${mem_ranks[@]}"; do
        agree=yes
        for ((r = 1; r <= repeat; r++)); do
          ref=$(awk -F'\t' -v a="$app" -v n="$n" -v r="$r" '$1 == a && $2 == n && $3 == "ompi" && $4 == r { print $8 }' "$records")
          [[ -n $ref ]] || continue
          for v in bdmpi base; do
            got=$(awk -F'\t' -v a="$app" -v n="$n" -v r="$r" -v v="$v" '$1 == a && $2 == n && $3 == v && $4 == r { print $8 }' "$records")
            [[ -z $got ]] || answers_agree "$got" "$ref" "$tol" || { agree="no ($v rep $r: $got vs $ref)"; failed=$((failed + 1)); }
          done
        done
        awk -F'\t' -v a="$app" -v n="$n" -v agree="$agree" -v base="${base_build:+1}" '
          function med(list,   k, x, i, j, t) {
            k = split(list, x, " ")
            for (i = 2; i <= k; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
            lo = x[1]; hi = x[k]; return k ? x[int((k + 1) / 2)] : ""
          }
          function ratios(num, den,   r, l) {
            l = ""
            for (r = 1; r <= reps; r++) if ((num, r) in t && (den, r) in t && t[den, r] > 0) l = l " " t[num, r] / t[den, r]
            return l
          }
          function shown(l,   m) { if (l == "") return "n/a"; m = med(l); return sprintf("%.2f (%.2f-%.2f)", m, lo, hi) }
          function speed(l,   m) { if (l == "") return "n/a"; m = med(l); return sprintf("%.2f (%.2f-%.2f)", 1 / m, 1 / hi, 1 / lo) }
          $1 == a && $2 == n && $5 == "ok" && $7 != "-" { t[$3, $4] = $7; s[$3] = s[$3] " " $7; if ($4 > reps) reps = $4 }
          END {
            if (reps == 0) { printf "| %s | %s | failed | | | | |\n", a, n; exit }
            printf "| %s | %s | %s | %s | %s | %s | %s |", a, n, s["bdmpi"] == "" ? "n/a" : sprintf("%.4g", 1000 * med(s["bdmpi"])),
              s["ompi"] == "" ? "n/a" : sprintf("%.4g", 1000 * med(s["ompi"])), shown(ratios("bdmpi", "ompi")),
              speed(ratios("bdmpi", "ompi")), agree
            if (base) printf " %s | %s |", shown(ratios("base", "ompi")), shown(ratios("bdmpi", "base"))
            printf "\n"
          }' "$records"
      done
    done
  } >"$out/in_memory.md"
  cat "$out/in_memory.md"
  say "results in $out (in_memory.md, in_memory.tsv, logs/)"
  ((failed == 0)) || exit 1
  exit 0
fi

# ---------------------------------------------------------------- setup
data_large=$(awk -v l="$limit" -v f="$factor" 'BEGIN { printf "%.0f", l * f }')
data_small=$(awk -v l="$limit" -v f="$factor" 'BEGIN { printf "%.0f", l * f / 8 }')
swap_bytes=$(((2 * data_large + limit + (1 << 20) - 1) >> 20 << 20))
mkdir -p "$work_parent" "$out/logs" || die "cannot create $work_parent or $out"
avail=$(df -B1 --output=avail "$work_parent" | tail -1 | tr -d ' ')
need=$((swap_bytes + 2 * data_large + (1 << 30)))
((avail >= need)) || die "not enough disk in $work_parent: need $(mib $need) MiB, have $(mib "$avail") MiB; use a smaller --limit or --work elsewhere"

work="" cg=$cg_root/bdmpi-apps-$$ cg_free=$cg_root/bdmpi-apps-free-$$
job_prefix=appsb$$r
ipc_leftovers() { find /dev/shm /dev/mqueue -maxdepth 1 -name "*bdmpi-$job_prefix*" 2>/dev/null; }
cleanup() {
  local rc=$? left=()
  trap - EXIT INT TERM
  set +e
  ooc_teardown
  left=("${ooc_left[@]}")
  if [[ -d $cg_free ]]; then
    local c=$cg
    cg=$cg_free
    kill_cg
    rmdir "$cg_free" 2>/dev/null || left+=("cgroup $cg_free")
    cg=$c
  fi
  ipc_leftovers | xargs -r rm -rf
  [[ -n $work && -d $work ]] && rm -rf "$work"
  [[ -n $(ipc_leftovers) ]] && left+=("IPC objects: $(ipc_leftovers | tr '\n' ' ')")
  if ((${#left[@]})); then
    printf 'apps-bench: CLEANUP INCOMPLETE: %s\n' "${left[@]}" >&2
    ((rc == 0)) && rc=1
  else
    say "cleanup: swap file, cgroups and scratch removed"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM
work=$(mktemp -d "$work_parent/bdmpi-apps-bench.XXXXXX") || die "mktemp in $work_parent failed"
mkdir -p "$work/scratch" "$work/tmp" "$work/runs"

# Build every application both ways (a failed build skips the application).
declare -A skipped=()
run_apps=()
for app in "${apps[@]}"; do
  s=$(src_of "$app")
  [[ -d $s ]] || { skipped[$app]="no source at $s (fetch it, or --app-src $app=DIR)"; continue; }
  ok=1
  kinds=(bdmpi ompi)
  [[ -n $best_build ]] && kinds+=(best)
  for kind in "${kinds[@]}"; do
    say "building $app.$kind from $s (unless up to date)"
    if ! build_app "$app" "$kind" "$app_build"; then
      skipped[$app]="build with $kind failed: $app_build/$app-$kind/build.log"
      ok=0
      break
    fi
  done
  ((ok)) && run_apps+=("$app")
done
for k in "${!skipped[@]}"; do say "skipped $k: ${skipped[$k]}"; done
((${#run_apps[@]})) || die "nothing to run"
# The programs run from a private copy: the build trees may change meanwhile.
mkdir -p "$work/bin"
for app in "${run_apps[@]}"; do
  cp "$app_build/$app.bdmpi" "$app_build/$app.ompi" "$work/bin/"
  if [[ -n $best_build ]]; then cp "$app_build/$app.best" "$work/bin/"; else cp "$app_build/$app.bdmpi" "$work/bin/$app.best"; fi
done

swapfile=$work/swapfile
ooc_make_swap "$swapfile" "$swap_bytes"
ooc_make_cgroup "$limit"
mkdir "$cg_free" || die "cannot create the cgroup $cg_free"
say "work $work; limit $(mib "$limit_real") MiB; swap $(mib "$swap_bytes") MiB; sizes: small ~$(mib "$data_small") MiB, large ~$(mib "$data_large") MiB"
load_start=$(uptime)

ooc_dd_bound "$work/dd.bin" "$data_large"

# ---------------------------------------------------------------- the runs
records=$out/runs.tsv
: >"$records"
failed_runs=0
run_count=0
STAMP_ECHO='^(Run completed|Final|Elapsed|Simulation Validation|Starting CG|Iteration = |Time for BFS 0 )'

# one_run APP SIZE MODE REP
one_run() {
  local app=$1 sz=$2 mode=$3 rep=$4 tag p dir cmd=() report=""
  tag=$app.$sz.$mode.$rep
  p=${psize[$app.$sz]}
  app_args "$app" "$p" "$sz"
  local nranks
  nranks=$(ranks_of "$app")
  dir=$work/runs/$tag
  mkdir -p "$dir"
  run_count=$((run_count + 1))
  case $mode in
    ref | mpirun)
      cmd=("$ompi_run" --allow-run-as-root --oversubscribe --mca btl_vader_backing_directory "$work/tmp"
           -np "$nranks" "$work/bin/$app.ompi" "${args[@]}") ;;
    bdmpi | bdmpi-best)
      report=$out/logs/$tag.report.json
      local launcher=$bin/bdmpiexec exe=$work/bin/$app.bdmpi
      [[ $mode == bdmpi-best ]] && launcher=$best_bin/bdmpiexec exe=$work/bin/$app.best
      cmd=("$launcher" -ns "$nranks" --scratch-dir "$work/scratch" --job-id "$job_prefix$run_count"
           --report=json "$report")
      # shellcheck disable=SC2206 # the options are words
      [[ $mode == bdmpi-best ]] && cmd+=($best)
      cmd+=("$exe" "${args[@]}") ;;
  esac
  # Line-buffered output (stdbuf's preload reaches the ranks under both
  # launchers), so that the time stamps of the progress lines are true.
  command -v stdbuf >/dev/null && cmd=(stdbuf -oL "${cmd[@]}")
  say "$tag: ${cmd[*]}"
  local saved=$cg
  [[ $mode == ref ]] && cg=$cg_free
  cd "$dir" || die "cd $dir"
  local watch=""
  if [[ $app == hpcg ]]; then
    hpcg_watch "$dir" >"$out/logs/$tag.iters" &
    watch=$!
  fi
  run_in_cg "$tag" "${cmd[@]}"
  [[ -n $watch ]] && { kill "$watch"; wait "$watch"; } 2>/dev/null
  cd "$repo" || true
  cg=$saved
  local status solve answer iters verified
  read -r solve answer iters verified <<<"$(parse_run "$app" "$dir" "$out/logs/$tag.out")"
  # A capped run did fewer: its time over all of them is a lower bound.
  [[ $iters == - ]] && iters=$iters_hint
  local setup ndone per_it pbound
  local plog=$out/logs/$tag.out io_iters=-
  if [[ $app == hpcg ]]; then
    plog=$out/logs/$tag.iters
    # Its I/O per iteration: over all the CG iterations it did, not the
    # timed set's alone.
    io_iters=$(tail -1 "$plog" | awk '{ print $3 }')
    [[ -n $io_iters ]] || io_iters=-
  fi
  read -r setup ndone per_it pbound <<<"$(progress "$app" "$plog" "$run_start" "$run_end")"
  # Keep what the program wrote (YAML, HPCG's reports) with the logs.
  local f
  for f in "$dir"/*.yaml "$dir"/*.txt; do [[ -f $f ]] && cp "$f" "$out/logs/$tag.${f##*/}"; done
  if ((run_rc == 124 || run_rc == 137)) && awk -v w="$run_wall" -v c="$cap" 'BEGIN { exit !(w >= c) }'; then
    status=capped
  elif ((run_rc != 0)); then
    status="failed(rc=$run_rc$( ((run_oom > 0)) && echo ",oom-kill"))"
    failed_runs=$((failed_runs + 1))
    tail -3 "$out/logs/$tag.err" >&2
  elif [[ $answer == - || $verified == no ]]; then
    status="failed(answer=$answer,verified=$verified)"
    failed_runs=$((failed_runs + 1))
  else
    status=ok
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$sz" "$mode" "$rep" "$p" \
    "$status" "$run_wall" "$solve" "$iters" "$answer" "$verified" "$run_peak" "$run_swapin" "$run_swapout" \
    "${report:+$(basename "$report")}" "$run_diskin" "$run_diskout" "$setup" "$ndone" "$per_it" "$pbound" "$io_iters" >>"$records"
  say "$tag: $status, wall ${run_wall}s, solve ${solve}s, answer $answer, peak ${run_peak} MiB, swap in/out ${run_swapin}/${run_swapout} MiB, disk read/written ${run_diskin}/${run_diskout} MiB"
  find "$work/scratch" -mindepth 1 -maxdepth 1 -exec rm -rf {} + 2>/dev/null
  rm -rf "$dir" "$work"/tmp/* 2>/dev/null
}

declare -A psize=()
for app in "${run_apps[@]}"; do
  psize[$app.small]=$(size_param "$app" "$data_small")
  psize[$app.large]=$(size_param "$app" "$data_large")
  for sz in "${sizes[@]}"; do
    one_run "$app" "$sz" ref 1
    for ((r = 1; r <= repeat; r++)); do
      for m in "${modes[@]}"; do one_run "$app" "$sz" "$m" "$r"; done
    done
  done
done
load_end=$(uptime)

# ---------------------------------------------------------------- report
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo '+changes')
python3 "$script_dir/io_figures.py" --records "$records" --out "$out" --limit "$limit_real" \
  --dd-write "$dd_write" --dd-read "$dd_read" --dd-mib "$dd_mb" --cap "$cap" \
  --tolerances "$(for a in "${run_apps[@]}"; do printf '%s=%s,' "$a" "$(tolerance "$a")"; done)" \
  --header "$(printf '%s\n' \
    "Command: \`bench/apps/run.sh --apps $apps_text --limit $limit_text --factor $factor --sizes $sizes_text --modes $modes_text --best '$best'${best_build:+ --best-build $best_build} --repeat $repeat --cap $cap\`" \
    "BDMPI commit $commit; $(nproc) cores; memory cgroup limit $(mib "$limit_real") MiB; swap file $(mib "$swap_bytes") MiB; 8 ranks per application, CoMD 16." \
    "Load (uptime) at start: ${load_start##*load average: }; at end: ${load_end##*load average: }." \
    "I/O bound (dd, $dd_mb MiB, in the cgroup): $dd_line." \
    "$(for k in "${!skipped[@]}"; do echo "Skipped $k: ${skipped[$k]}."; done)")"
py_rc=$?
say "results in $out (table.md, runs.csv, io.csv, plot.png, logs/)"
((py_rc == 0 && failed_runs == 0)) || exit 1
exit 0
