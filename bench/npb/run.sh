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
#   --ooc-limit SIZE  out of core (as root): every run inside one memory
#                     cgroup of SIZE (k/m/g suffixes) with a swap file of
#                     twice the limit plus 1 GiB in WORK, the page cache
#                     dropped before each run; three runs per benchmark:
#                     bdmpiexec -nr 1, bdmpiexec with its default -nr (both
#                     with --report, for the bytes written back) and mpirun
#                     (on swap). Pick the class and ranks so that the
#                     benchmark's memory is a few times SIZE (MG class B,
#                     4 ranks: about 520 MiB)
#   --cap SECS        wall-clock cap of each run (default 900; a capped run
#                     reports "TIMEOUT", one the kernel's OOM killer ended
#                     in the cgroup "OOM-KILLED")
#
# The cgroup and swap file are removed on exit (also on error or
# interruption), and the script checks that they are gone.
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
ooc_limit=""
cap=900

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
    --ooc-limit) ooc_limit=${2?}; shift 2 ;;
    --cap) cap=${2?}; shift 2 ;;
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

# ------------------------------------------------- out of core: cgroup, swap
say() { echo "== $*" >&2; }
die() { echo "run.sh: $*" >&2; exit 2; }
# shellcheck source=../lib/ooc_env.sh
. "$repo/bench/lib/ooc_env.sh"
launchers=(bdmpi mpirun)
cg=""
job_id=npbbench$$
if [[ -n $ooc_limit ]]; then
  launchers=(bdmpi-nr1 bdmpi mpirun)
  limit=$(parse_size "$ooc_limit" "--ooc-limit")
  ooc_check_host
  swap_bytes=$(((2 * limit + (1 << 30)) >> 20 << 20))
  avail=$(df -B1 --output=avail "$work" | tail -1 | tr -d ' ')
  ((avail > swap_bytes + (1 << 30))) ||
    die "not enough disk in $work for a $(mib "$swap_bytes") MiB swap file and scratch: use --work on a bigger disk"
  cg=$cg_root/bdmpi-npb-$$
fi

cleanup() {
  local rc=$? left=()
  trap - EXIT INT TERM
  set +e
  if [[ -n $cg ]]; then
    ooc_teardown
    left=("${ooc_left[@]}")
  fi
  # A job killed at the cap may leave its IPC objects.
  find /dev/shm /dev/mqueue -maxdepth 1 -name "*$job_id*" -exec rm -rf {} + 2>/dev/null
  [[ -n $(find /dev/shm /dev/mqueue -maxdepth 1 -name "*$job_id*" 2>/dev/null) ]] &&
    left+=("IPC objects of job $job_id in /dev/shm or /dev/mqueue")
  if ((${#left[@]})); then
    printf 'run.sh: CLEANUP INCOMPLETE: %s\n' "${left[@]}" >&2
    ((rc == 0)) && rc=1
  elif [[ -n $cg ]]; then
    say "cleanup: swap file and cgroup removed"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -n $ooc_limit ]]; then
  ooc_make_swap "$work/swapfile-$$" "$swap_bytes"
  ooc_make_cgroup "$limit"
  say "cgroup $cg: memory.limit_in_bytes $limit_real, swap $(mib "$swap_bytes") MiB"
fi

# run LOG CMD...: CMD in WORK, out of core inside the cgroup after dropping
# the page cache, under the wall-clock cap; sets run_rc and run_peak (MiB,
# the cgroup's peak usage, "-" in memory).
run() {
  local log=$1
  shift
  run_peak=- run_oom=0
  if [[ -z $cg ]]; then
    (cd "$work" && timeout --kill-after=15 "$cap" "$@") >"$log" 2>&1 && run_rc=0 || run_rc=$?
    return
  fi
  drop_caches
  echo 0 >"$cg/memory.max_usage_in_bytes" 2>/dev/null || true
  local oom0
  oom0=$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.oom_control")
  # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
  (cd "$work" && setsid --wait bash -c 'echo $$ >"$0/cgroup.procs" || exit 125; exec "$@"' \
     "$cg" timeout --kill-after=15 "$cap" "$@" </dev/null >"$log" 2>&1) &
  current_job=$!
  wait "$current_job" && run_rc=0 || run_rc=$?
  current_job=""
  kill_cg || echo "run.sh: warning: processes left in $cg" >&2
  run_peak=$(($(cat "$cg/memory.max_usage_in_bytes") >> 20))
  run_oom=$(($(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.oom_control") - ${oom0:-0}))
}

status=0
rows=()
for bm in "${bms[@]}"; do
  for launcher in "${launchers[@]}"; do
    log=$work/run-$launcher-$bm.log
    case $launcher in
      bdmpi-nr1)
        cmd=("$bdmpiexec" -ns "$ranks" -nr 1 --report -v --job-id "$job_id" "${extra[@]}" "$(binary bdmpi "$bm")") ;;
      bdmpi)
        if [[ -n $ooc_limit ]]; then
          cmd=("$bdmpiexec" -ns "$ranks" --report -v --job-id "$job_id" "${extra[@]}" "$(binary bdmpi "$bm")")
        else
          cmd=("$bdmpiexec" -ns "$ranks" -nr "$running" --job-id "$job_id" "${extra[@]}" "$(binary bdmpi "$bm")")
        fi ;;
      mpirun)
        cmd=("$mpirun_bin" --oversubscribe --allow-run-as-root -np "$ranks" "$(binary ompi "$bm")") ;;
    esac
    echo "== ${cmd[*]}" >&2
    start=$(date +%s.%N)
    run "$log" "${cmd[@]}"
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    verified=$(field "$log" "Verification *=")
    seconds=$(field "$log" "Time in seconds")
    # timeout's status, or its SIGKILL after the grace period; a process
    # the kernel's OOM killer ended is told apart.
    if ((run_oom > 0)) && [[ $verified != SUCCESSFUL ]]; then
      verified="OOM-KILLED"
    elif ((run_rc == 124)) || { ((run_rc == 137)) && (($(echo "$wall >= $cap" | bc))); }; then
      verified=TIMEOUT
    fi
    # BDMPI's master: "storage: N switch-outs, B bytes written back, ...".
    wb=$(grep -m1 -o 'storage: [0-9]* switch-outs, [0-9]* bytes written back' "$log" |
         awk '{ printf "%.0f MiB in %d switch-outs", $4 / 1048576, $2 }' || true)
    [[ $verified == SUCCESSFUL ]] || { status=1; tail -5 "$log" >&2; }
    key=${launcher//-/_}
    eval "${key}_v=\${verified:-FAILED} ${key}_t=\${seconds:-?} ${key}_w=$wall ${key}_p=$run_peak ${key}_b=\${wb:--}"
    echo "   $launcher: $verified, time ${seconds:-?} s, wall $(printf %.1f "$wall") s, peak $run_peak MiB, written back ${wb:--}" >&2
  done
  ratio='?'
  if [[ $bdmpi_t != "?" && $mpirun_t != "?" ]]; then
    ratio=$(printf %.2f "$(echo "scale=4; $bdmpi_t / $mpirun_t" | bc)")
  fi
  if [[ -n $ooc_limit ]]; then
    ratio1='?'
    if [[ $bdmpi_nr1_t != "?" && $mpirun_t != "?" ]]; then
      ratio1=$(printf %.2f "$(echo "scale=4; $bdmpi_nr1_t / $mpirun_t" | bc)")
    fi
    for l in bdmpi_nr1 bdmpi mpirun; do
      eval "v=\$${l}_v t=\$${l}_t w=\$${l}_w p=\$${l}_p b=\$${l}_b"
      case $l in bdmpi_nr1) name="bdmpiexec -nr 1" r=$ratio1 ;; bdmpi) name="bdmpiexec" r=$ratio ;; *) name="mpirun + swap" r=1.00 ;; esac
      rows+=("| ${bm^^} | $class | $ranks | $name | $v | $t | $(printf %.1f "$w") | $p | $b | $r |")
    done
  else
    rows+=("| ${bm^^} | $class | $ranks | $bdmpi_v | $bdmpi_t | $(printf %.1f "$bdmpi_w") | $mpirun_v | $mpirun_t | $(printf %.1f "$mpirun_w") | $ratio |")
  fi
done

table=$(
  if [[ -n $ooc_limit ]]; then
    echo "NPB-MPI class $class, $ranks ranks, out of core: memory cgroup limit $ooc_limit, swap $((swap_bytes >> 20)) MiB, page cache dropped before each run, cap $cap s ($(nproc) cores, $(date -u +%F))"
    echo
    echo "| benchmark | class | ranks | launcher | verification | time (s) | wall (s) | cgroup peak (MiB) | written back | time / mpirun |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
  else
    echo "NPB-MPI class $class, $ranks ranks; bdmpiexec -ns $ranks -nr $running ${extra[*]} vs mpirun -np $ranks ($(nproc) cores, $(date -u +%F))"
    echo
    echo "| benchmark | class | ranks | BDMPI verification | BDMPI time (s) | BDMPI wall (s) | Open MPI verification | Open MPI time (s) | Open MPI wall (s) | time BDMPI / Open MPI |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
  fi
  printf '%s\n' "${rows[@]}"
)
echo "$table"
[[ -z $out ]] || echo "$table" >"$out"
exit $status
