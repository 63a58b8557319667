#!/usr/bin/env bash
# bench/npb/run.sh -- the NAS Parallel Benchmarks (MPI version, Fortran)
# built with BDMPI's bdmpifort and with Open MPI's mpifort from the same
# sources, run in memory under bdmpiexec and under mpirun, side by side.
#
# Usage:
#   bench/npb/run.sh NPB_DIR [--class C] [--benchmarks LIST] [--ranks N]
#                    [--running R] [--build DIR] [--work DIR] [--out FILE]
#                    [--bdmpiexec-arg ARG]... [--no-build]
#
#   NPB_DIR           an unpacked NPB3.x-MPI source tree (the folder with
#                     CG/, MG/, config/, sys/); nothing of it is changed:
#                     it is copied into WORK/npb-bdmpi and WORK/npb-ompi
#   --class C         problem class (default A; S and W are quick)
#   --benchmarks LIST comma-separated from cg,mg,ep,ft,lu,bt,sp,is
#                     (default cg,mg,ep,ft,lu)
#   --ranks N         MPI ranks (default 4; CG, MG, FT, LU, IS want a power
#                     of two, BT and SP a square)
#   --running R       bdmpiexec -nr: ranks running at once (default 2, the
#                     cores of this machine)
#   --build DIR       BDMPI build tree with bin/bdmpifort and bin/bdmpiexec
#                     (default <repo>/build)
#   --work DIR        where the copies are built (default /var/tmp/npb-bench)
#   --out FILE        the results table in Markdown (default: stdout only)
#   --bdmpiexec-arg A an extra bdmpiexec option (repeatable), e.g.
#                     --bdmpiexec-arg --node-memory --bdmpiexec-arg 256m
#   --no-build        use the binaries already in WORK
#
# Per benchmark: NPB's own verification line and "Time in seconds" (the
# benchmark's timed section, MPI_Wtime) under each launcher, the wall-clock
# time of the whole run, and BDMPI's time over Open MPI's. The runs take
# turns (bdmpi, mpirun) so that the machine's load hits both alike.
# Exit status: 0 every run verified, 1 a run failed or did not verify, 2
# usage or setup error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
npb=""
class=A
benchmarks=cg,mg,ep,ft,lu
ranks=4
running=2
build=$repo/build
work=/var/tmp/npb-bench
out=""
extra=()
do_build=1

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
while (($#)); do
  case $1 in
    --class) class=${2?}; shift 2 ;;
    --benchmarks) benchmarks=${2?}; shift 2 ;;
    --ranks) ranks=${2?}; shift 2 ;;
    --running) running=${2?}; shift 2 ;;
    --build) build=${2?}; shift 2 ;;
    --work) work=${2?}; shift 2 ;;
    --out) out=${2?}; shift 2 ;;
    --bdmpiexec-arg) extra+=("${2?}"); shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h | --help) usage ;;
    -*) echo "run.sh: unknown option $1" >&2; usage ;;
    *) npb=$1; shift ;;
  esac
done
[[ -n $npb && -d $npb/config && -d $npb/sys ]] ||
  { echo "run.sh: give the NPB-MPI source folder (with config/ and sys/)" >&2; exit 2; }
npb=$(cd "$npb" && pwd)
bdmpifort=$build/bin/bdmpifort
bdmpicc=$build/bin/bdmpicc
bdmpiexec=$build/bin/bdmpiexec
[[ -x $bdmpifort && -x $bdmpiexec ]] ||
  { echo "run.sh: no $bdmpifort or $bdmpiexec: build BDMPI with gfortran first" >&2; exit 2; }
command -v mpifort >/dev/null && command -v mpirun >/dev/null ||
  { echo "run.sh: Open MPI's mpifort and mpirun are needed (libopenmpi-dev)" >&2; exit 2; }
ompi_fort=$(command -v mpifort)
ompi_cc=$(command -v mpicc)
mpirun_bin=$(command -v mpirun)
# BDMPI's bin may be in PATH (module load bdmpi): Open MPI's must be used.
if "$ompi_fort" -showme:version 2>/dev/null | grep -q BDMPI; then
  ompi_fort=/usr/bin/mpifort ompi_cc=/usr/bin/mpicc mpirun_bin=/usr/bin/mpirun
fi

# make.def for one flavour. Open MPI's mpif.h declares no interfaces, so
# gfortran 10 and later need -fallow-argument-mismatch for NPB with it;
# BDMPI's mpif.h has them.
write_make_def() {  # write_make_def DIR FC CC FFLAGS
  cat >"$1/config/make.def" <<MAKEDEF
MPIFC = $2
FLINK = \$(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = -O3 $4
FLINKFLAGS = \$(FFLAGS)
MPICC = $3
CLINK = \$(MPICC)
CMPI_LIB =
CMPI_INC =
CFLAGS = -O3
CLINKFLAGS = \$(CFLAGS)
CC = gcc
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=1
RAND = randdp
MAKEDEF
}

IFS=, read -r -a bms <<<"$benchmarks"
mkdir -p "$work"
if ((do_build)); then
  for flavour in bdmpi ompi; do
    dir=$work/npb-$flavour
    rm -rf "$dir"
    cp -r "$npb" "$dir"
    rm -rf "$dir/bin" && mkdir "$dir/bin"
    if [[ $flavour == bdmpi ]]; then
      write_make_def "$dir" "$bdmpifort" "$bdmpicc" ""
    else
      write_make_def "$dir" "$ompi_fort" "$ompi_cc" -fallow-argument-mismatch
    fi
    for bm in "${bms[@]}"; do
      echo "== building $bm class $class with $flavour" >&2
      make -C "$dir" "$bm" CLASS="$class" NPROCS="$ranks" \
        >"$work/build-$flavour-$bm.log" 2>&1 ||
        { echo "run.sh: $bm did not build with $flavour:" >&2
          tail -20 "$work/build-$flavour-$bm.log" >&2; exit 1; }
    done
  done
fi

# The binary of one benchmark (NPB 3.3 names it bm.C.N, 3.4 bm.C.x).
binary() {  # binary FLAVOUR BM
  local f
  for f in "$work/npb-$1/bin/$2.$class.x" "$work/npb-$1/bin/$2.$class.$ranks"; do
    [[ -x $f ]] && { echo "$f"; return; }
  done
  echo "run.sh: no binary for $2 class $class in $work/npb-$1/bin" >&2
  exit 1
}

field() {  # field LOG PATTERN: the value after "=" of NPB's report line
  grep -m1 "$2" "$1" | sed 's/.*= *//; s/ *$//' || true
}

status=0
rows=()
for bm in "${bms[@]}"; do
  for launcher in bdmpi mpirun; do
    log=$work/run-$launcher-$bm.log
    if [[ $launcher == bdmpi ]]; then
      prog=$(binary bdmpi "$bm")
      cmd=("$bdmpiexec" -ns "$ranks" -nr "$running" "${extra[@]}" "$prog")
    else
      prog=$(binary ompi "$bm")
      cmd=("$mpirun_bin" --oversubscribe --allow-run-as-root -np "$ranks" "$prog")
    fi
    echo "== ${cmd[*]}" >&2
    start=$(date +%s.%N)
    (cd "$work" && "${cmd[@]}") >"$log" 2>&1 || true
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    verified=$(field "$log" "Verification *=")
    seconds=$(field "$log" "Time in seconds")
    mops=$(field "$log" "Mop/s total")
    [[ $verified == SUCCESSFUL ]] || { status=1; tail -5 "$log" >&2; }
    eval "${launcher}_v=\${verified:-FAILED} ${launcher}_t=\${seconds:-?} ${launcher}_w=$wall ${launcher}_m=\${mops:-?}"
  done
  ratio=?
  if [[ $bdmpi_t != "?" && $mpirun_t != "?" ]]; then
    ratio=$(printf %.2f "$(echo "scale=4; $bdmpi_t / $mpirun_t" | bc)")
  fi
  rows+=("| ${bm^^} | $class | $ranks | $bdmpi_v | $bdmpi_t | $(printf %.1f "$bdmpi_w") | $mpirun_v | $mpirun_t | $(printf %.1f "$mpirun_w") | $ratio |")
done

table=$(
  echo "NPB-MPI class $class, $ranks ranks; bdmpiexec -ns $ranks -nr $running ${extra[*]} vs mpirun -np $ranks ($(nproc) cores, $(date -u +%F))"
  echo
  echo "| benchmark | class | ranks | BDMPI verification | BDMPI time (s) | BDMPI wall (s) | Open MPI verification | Open MPI time (s) | Open MPI wall (s) | time BDMPI / Open MPI |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
)
echo "$table"
[[ -z $out ]] || echo "$table" >"$out"
exit $status
