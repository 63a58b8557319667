#!/usr/bin/env bash
# run_message_figures.sh -- the in-memory message figures in one
# invocation, each as a ratio to Open MPI's time for the same program in the
# same invocation (the machine's load skews every absolute figure):
#
#   latency    round trip, 2 ranks (bench/mpi/pingpong.c)  8 B, 1 KiB, 64 KiB, 1 MiB, 4 MiB
#   bandwidth  a window of MPI_Isend, 2 ranks (bench/mpi/bw.c, as osu_bw)   the same sizes
#   fanin      many small messages: a round of 12 B messages from every rank
#              to rank 0 and back, on 4 and 8 ranks (bench/mpi/fanin.c, like
#              MPICH's sendflood)
#   isendflood every other rank starts N 12 B MPI_Isend to rank 0 and waits
#              for them, rank 0 takes them with MPI_ANY_SOURCE and answers
#              each (bench/mpi/fanin.c --isend N, MPICH's sendflood's
#              pattern), on the same ranks
#   bcast, allreduce, alltoall on 4 and 8 ranks (bench/mpi/coll.c)  1 MiB, 4 MiB
#              (--ops may add barrier, and --coll-sizes small sizes)
#              (alltoall: what each rank sends each rank, as osu_alltoall)
#
# BDMPI runs each with -nr 1 and with -nr = ranks (--nr picks others);
# Open MPI under mpirun.
# The runs are interleaved (BDMPI -nr 1, -nr N, [a base build's], Open MPI;
# the order rotates from one repetition to the next) and repeated --reps
# times; each figure is the median over the repetitions of BDMPI's time /
# Open MPI's time of the same repetition, with the spread (min-max) of
# those ratios.  Targets: 1-4 MiB <= 2 x Open MPI; with every rank
# running (-nr = ranks), the 8 B and 1 KiB round trips and the fanin round
# <= 3 x Open MPI, and so the isendflood round; the 8 B round trip with -nr 2 <= 2 x the -nr 1 one; the
# 8 B stream (bandwidth) with -nr 2 <= 3 x the -nr 1 one.  Rows say ok or
# MISS.
#
# Output in --out: results.csv (rep,op,ranks,variant,bytes,seconds),
# table.md (the table printed at the end), the programs' logs.  The
# programs are built first when missing or out of date (cmake --build of
# just these targets); the runs use a private copy of them, so the build
# tree may be rebuilt meanwhile.  With --base-bin DIR (e.g. a copy of
# main's build/bin), every BDMPI run is repeated with that build too and
# the table shows new / base: before and after in one invocation; with
# --base-args, the base runs take other bdmpiexec options (e.g.
# --memory-payloads off), of the base build or of this one.
# shellcheck disable=SC2034  # variables used by lib/cluster_bench.sh
set -u -o pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/.." && pwd)

usage() {
  cat <<EOF
Usage: $0 [options]
  --build DIR          build tree the programs are built in  (default: <repo>/build)
  --bin DIR            programs and bdmpiexec               (default: BUILD/bin)
  --no-build           use --bin as it is
  --base-bin DIR       a second build run alongside (before/after), used as it is:
                       e.g. OUT/bin of an earlier run (a copy with its libbdmpi)
  --base-args STR      bdmpiexec options of the base runs instead of --bdmpiexec-args;
                       without --base-bin, the base is this build with these options
                       (e.g. --bdmpiexec-args '--coll-engine barrier=node' and
                       --base-args '--coll-engine barrier=master': two engines
                       side by side with Open MPI)
  --sizes LIST         point-to-point sizes, or none        (default: 8,1k,64k,1m,4m)
  --coll-sizes LIST    collective sizes                     (default: 1m,4m)
  --ranks LIST         ranks of the collectives             (default: 4,8)
  --ops LIST           collectives, or none                 (default: bcast,allreduce,alltoall)
  --nr LIST            running slots of the BDMPI runs; "ranks": as many as ranks
                       (default: 1,ranks; a value above a run's ranks is skipped)
  --fanin yes|no       the fanin rounds on --ranks           (default: yes)
  --flood N|none       the isendflood rounds on --ranks, N Isends per rank per round
                       (default: 64)
  --window N           messages per bandwidth window        (default: 64, as osu_bw)
  --reps N             repetitions of every run             (default: 5; the full set
                       takes about 15 minutes on a loaded 2-core machine)
  --quick              a check in under a minute: 1 repetition, 8 B and 1 MiB,
                       4 ranks, a tenth of the programs' repetitions (noisy)
  --mpirun PATH        Open MPI launcher                    (default: mpirun)
  --mpirun-args STR    its options (default: --allow-run-as-root --oversubscribe)
  --bdmpiexec-args STR more bdmpiexec options for every BDMPI run (e.g. --memory-payloads off)
  --job-prefix NAME    BDMPI job ids are NAME-1, NAME-2, ...  (default: figures-<pid>)
  --out DIR            results and logs                     (default: a new /tmp directory)
  --timeout SEC        limit per run                        (default: 300)
  --check              exit 2 when a figure misses its target
Environment: BENCH_REPS_SCALE scales the programs' own repetitions (default 1;
--quick: 0.1).
Exit status: 0 every run succeeded (and, with --check, every target met),
1 a run failed, 2 a target missed (--check), 64 bad usage, 130 interrupted.
EOF
}

BUILD=$repo/build
BIN=
DO_BUILD=1
BASE_BIN=
BASE_ARGS=
HAVE_BASE_ARGS=0
SIZES=
COLL_SIZES=
RANKS=
OPS=bcast,allreduce,alltoall
NR_LIST=1,ranks
FANIN=yes
FLOOD=64
WINDOW=64
REPS=
QUICK=0
MPIRUN=mpirun
MPIRUN_ARGS="--allow-run-as-root --oversubscribe"
BDMPIEXEC_ARGS=
JOB_PREFIX=figures-$$
OUT=
TIMEOUT=300
CHECK=0
invocation="$0 $*"
while (($#)); do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --no-build) DO_BUILD=0; shift ;;
    --base-bin) BASE_BIN=$2; shift 2 ;;
    --base-args) BASE_ARGS=$2; HAVE_BASE_ARGS=1; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --coll-sizes) COLL_SIZES=$2; shift 2 ;;
    --ranks) RANKS=$2; shift 2 ;;
    --ops) OPS=$2; shift 2 ;;
    --nr) NR_LIST=$2; shift 2 ;;
    --fanin) FANIN=$2; shift 2 ;;
    --flood) FLOOD=$2; shift 2 ;;
    --window) WINDOW=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --mpirun) MPIRUN=$2; shift 2 ;;
    --mpirun-args) MPIRUN_ARGS=$2; shift 2 ;;
    --bdmpiexec-args) BDMPIEXEC_ARGS=$2; shift 2 ;;
    --job-prefix) JOB_PREFIX=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --check) CHECK=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 64 ;;
  esac
done
# Defaults of what was not given: the full set, or --quick's.
if ((QUICK)); then
  : "${REPS:=1}" "${SIZES:=8,1m}" "${COLL_SIZES:=1m}" "${RANKS:=4}"
  export BENCH_REPS_SCALE=${BENCH_REPS_SCALE:-0.1}
else
  : "${REPS:=5}" "${SIZES:=8,1k,64k,1m,4m}" "${COLL_SIZES:=1m,4m}" "${RANKS:=4,8}"
fi
[[ $SIZES == none ]] && SIZES=
[[ $OPS == none ]] && OPS=
[[ $FANIN == yes || $FANIN == no ]] || { echo "$0: --fanin takes yes or no" >&2; exit 64; }
[[ $FLOOD == none || $FLOOD =~ ^[1-9][0-9]*$ ]] || { echo "$0: --flood takes a message count or none" >&2; exit 64; }
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "$0: --reps takes a positive count" >&2; exit 64; }
[[ $NR_LIST =~ ^([1-9][0-9]*|ranks)(,([1-9][0-9]*|ranks))*$ ]] ||
  { echo "$0: --nr takes a list of slot counts or ranks" >&2; exit 64; }
BIN=${BIN:-$BUILD/bin}

PROGRAMS=(bdmpiexec bdmprun bench_pingpong bench_bw bench_coll bench_fanin
  bench_pingpong.ompi bench_bw.ompi bench_coll.ompi bench_fanin.ompi)

# Builds the programs (only those targets) unless told not to: the one
# invocation makes what it needs.
if ((DO_BUILD)); then
  if [[ ! -f $BUILD/CMakeCache.txt ]]; then
    cmake -S "$repo" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"${TMPDIR:-/tmp}/figures-configure.$$.log" 2>&1 ||
      { echo "$0: configuring $BUILD failed; see ${TMPDIR:-/tmp}/figures-configure.$$.log" >&2; exit 64; }
  fi
  targets=()
  for p in "${PROGRAMS[@]}"; do targets+=(--target "$p"); done
  echo "== building ${PROGRAMS[*]} in $BUILD"
  # A target new since the last configure is unknown to make until cmake
  # runs again: then configure and try once more.
  build_log=${TMPDIR:-/tmp}/figures-build.$$.log
  if ! cmake --build "$BUILD" -j"$(nproc)" "${targets[@]}" >"$build_log" 2>&1; then
    cmake "$BUILD" >>"$build_log" 2>&1 && cmake --build "$BUILD" -j"$(nproc)" "${targets[@]}" >>"$build_log" 2>&1 ||
      { echo "$0: building failed (cmake --build $BUILD ${targets[*]}); see $build_log" >&2; exit 64; }
  fi
  rm -f "$build_log"
fi

VCLUSTER=  # not used here; lib/cluster_bench.sh resolves it
SNAPSHOT=1
# shellcheck source=lib/cluster_bench.sh
source "$script_dir/lib/cluster_bench.sh"
check_programs
snapshot_programs
install_traps
# The base build's programs find their own libbdmpi, not the snapshot's.
BASE_ENV=()
if [[ -n $BASE_BIN ]]; then
  BASE_BIN=$(cd "$BASE_BIN" && pwd) || exit 64
  base_lib_dir=$BASE_BIN  # a snapshot holds its libbdmpi
  if ! compgen -G "$BASE_BIN/libbdmpi*" >/dev/null; then
    base_lib=$(env -u LD_LIBRARY_PATH ldd "$BASE_BIN/bench_coll" 2>/dev/null |
      awk '$1 ~ /^libbdmpi/ && $3 ~ /^\// { print $3 }')
    [[ -n $base_lib ]] && base_lib_dir=$(dirname "$base_lib")
  fi
  BASE_ENV=(env "LD_LIBRARY_PATH=$base_lib_dir")
elif ((HAVE_BASE_ARGS)); then
  BASE_BIN=$BIN
fi
((HAVE_BASE_ARGS)) || BASE_ARGS=$BDMPIEXEC_ARGS

CSV=$OUT/results.csv
echo "rep,op,ranks,variant,bytes,seconds" >"$CSV"
read -r -a mpirun_args <<<"$MPIRUN_ARGS"
read -r -a bdmpiexec_args <<<"$BDMPIEXEC_ARGS"
read -r -a base_args <<<"$BASE_ARGS"
jobs_started=0

# measure REP OP-GROUP RANKS VARIANT CMD... : one run; its BENCH lines go to
# results.csv as (REP, op, RANKS, VARIANT, bytes, seconds).
measure() {
  local rep=$1 group=$2 ranks=$3 variant=$4 key k; shift 4
  key="$group:$ranks:$variant:$rep"
  run "r${rep}_${group}_np${ranks}_$variant" "$key" "$@"
  for k in "${!R[@]}"; do
    [[ $k == "$key":* ]] || continue
    IFS=: read -r _ _ _ _ op bytes <<<"$k"
    echo "$rep,$op,$ranks,$variant,$bytes,${R[$k]}" >>"$CSV"
  done
}

# bdmpi BIN-DIR RANKS NR OPTIONS... : the bdmpiexec command line of one run.
bdmpi() {
  local bin=$1 ranks=$2 nr=$3; shift 3
  ((++jobs_started))
  CMD=("$bin/bdmpiexec" -ns "$ranks" -nr "$nr" --job-id "$JOB_PREFIX-$jobs_started" "$@")
}

# group_runs REP GROUP RANKS PROGRAM ARGS... : the variants of one program,
# starting at a different one in each repetition.
group_runs() {
  local rep=$1 group=$2 ranks=$3 program=$4; shift 4
  local variants=() nrs=() i v n
  IFS=, read -ra nrs <<<"${NR_LIST//ranks/$ranks}"
  for n in $(printf '%s\n' "${nrs[@]}" | sort -nu); do
    ((n <= ranks)) || continue
    variants+=("nr$n")
    [[ -n $BASE_BIN ]] && variants+=("base-nr$n")
  done
  variants+=(ompi)
  for ((i = 0; i < ${#variants[@]}; ++i)); do
    v=${variants[(i + rep) % ${#variants[@]}]}
    case $v in
      ompi) CMD=("$MPIRUN" "${mpirun_args[@]}" -np "$ranks" "$BIN/$program.ompi") ;;
      base-nr*)
        bdmpi "$BASE_BIN" "$ranks" "${v#base-nr}" "${base_args[@]}"
        CMD=("${BASE_ENV[@]}" "${CMD[@]}" "$BASE_BIN/$program") ;;
      nr*) bdmpi "$BIN" "$ranks" "${v#nr}" "${bdmpiexec_args[@]}"; CMD+=("$BIN/$program") ;;
    esac
    measure "$rep" "$group" "$ranks" "$v" "${CMD[@]}" "$@"
  done
}

note "$(hostname): $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
note "logs in $OUT"
IFS=, read -ra rank_counts <<<"$RANKS"
for ((rep = 1; rep <= REPS; ++rep)); do
  note "repetition $rep of $REPS"
  [[ -n $SIZES ]] && group_runs "$rep" pingpong 2 bench_pingpong "$SIZES"
  [[ -n $SIZES ]] && group_runs "$rep" bw 2 bench_bw "$SIZES" "$WINDOW"
  if [[ -n $OPS && -n $COLL_SIZES ]]; then
    for ranks in "${rank_counts[@]}"; do
      group_runs "$rep" coll "$ranks" bench_coll "$OPS" "$COLL_SIZES"
    done
  fi
  if [[ $FANIN == yes ]]; then
    for ranks in "${rank_counts[@]}"; do
      group_runs "$rep" fanin "$ranks" bench_fanin
    done
  fi
  if [[ $FLOOD != none ]]; then
    for ranks in "${rank_counts[@]}"; do
      group_runs "$rep" flood "$ranks" bench_fanin --isend "$FLOOD"
    done
  fi
done
note "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- report
# One row per (op, ranks, bytes, BDMPI variant): medians of the seconds per
# operation, and the median and spread of the per-repetition ratios.
awk -F, -v base="${BASE_BIN:+1}" -v flood="$FLOOD" '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    lo = a[1]; hi = a[n]
    return n ? a[int((n + 1) / 2)] : ""
  }
  # ratios NUM DEN: the per-repetition ratios of two variants of one figure
  function ratios(k, num, den,   r, list) {
    list = ""
    for (r = 1; r <= reps; r++)
      if ((k, num, r) in t && (k, den, r) in t && t[k, den, r] > 0)
        list = list " " t[k, num, r] / t[k, den, r]
    return list
  }
  function shown(list,   m) {
    if (list == "") return "n/a"
    m = median(list)
    return sprintf("%.2f (%.2f-%.2f)", m, lo, hi)
  }
  function us(list,   m) {
    if (list == "") return "n/a"
    m = median(list)
    return sprintf("%.4g (%.4g-%.4g)", m * 1e6, lo * 1e6, hi * 1e6)
  }
  function name(n) {
    if (op == "barrier") return "-"
    if (op == "fanin") return "12 B"  # the program reports its ranks there
    if (op == "isendflood") return flood " x 12 B"
    return n >= 1048576 ? n / 1048576 " MiB" : n >= 1024 ? n / 1024 " KiB" : n " B"
  }
  # The 8 B figure of OP with -nr 2 against -nr 1, 2 ranks, target LIMIT.
  function nr2_row(label, op, limit,   k, list) {
    k = op SUBSEP 2 SUBSEP 8
    if (!((k, "nr2") in v)) return
    list = ratios(k, "nr2", "nr1")
    printf "| %s -nr 2 / -nr 1 | 2 | 8 B | | %s | | %s | %s |", label, us(v[k, "nr2"]), shown(list), verdict(list, limit)
    if (base) printf " %s | |", shown(ratios(k, "base-nr2", "base-nr1"))
    printf "\n"
  }
  function verdict(list, limit,   m) {
    if (list == "") return "not measured"
    m = median(list)
    return m <= limit ? "ok (<= " limit ")" : "MISS (> " limit ")"
  }
  NR > 1 {
    k = $2 SUBSEP $3 SUBSEP $5
    t[k, $4, $1] = $6; v[k, $4] = v[k, $4] " " $6
    if ($1 > reps) reps = $1
    if (!(k in seen)) { seen[k]; keys[++nk] = k }
    variants[k] = variants[k] " " $4
  }
  END {
    title["pingpong"] = "latency (round trip)"; title["bw"] = "bandwidth (per message)"
    title["fanin"] = "fanin (per round)"; title["isendflood"] = "isendflood (per round)"
    order["pingpong"] = 1; order["bw"] = 2; order["fanin"] = 3; order["isendflood"] = 4
    order["barrier"] = 5; order["bcast"] = 6; order["allreduce"] = 7; order["alltoall"] = 8
    # rows sorted by op, ranks, bytes
    for (i = 2; i <= nk; i++) {
      x = keys[i]
      for (j = i - 1; j >= 1; j--) {
        split(keys[j], a, SUBSEP); split(x, b, SUBSEP)
        if (order[a[1]] < order[b[1]] || (order[a[1]] == order[b[1]] && (a[2] + 0 < b[2] + 0 ||
            (a[2] == b[2] && a[3] + 0 <= b[3] + 0)))) break
        keys[j + 1] = keys[j]
      }
      keys[j + 1] = x
    }
    printf "| figure | ranks | size | BDMPI | BDMPI (us) | Open MPI (us) | BDMPI / Open MPI | target |%s\n",
      base ? " base / Open MPI | new / base |" : ""
    printf "| --- | --- | --- | --- | --- | --- | --- | --- |%s\n", base ? " --- | --- |" : ""
    for (i = 1; i <= nk; i++) {
      k = keys[i]; split(k, p, SUBSEP); op = p[1]; ranks = p[2]; bytes = p[3]
      for (q = 1; q <= 1024; q++) {
        nr = "nr" q
        if (!((k, nr) in v) && !((k, "base-" nr) in v)) continue
        list = ratios(k, nr, "ompi")
        target = "-"
        if (op != "fanin" && op != "isendflood" && bytes >= 1048576 && bytes <= 4194304) target = verdict(list, 2)
        # Small messages with every rank running: the targets of a direct path.
        if (nr == "nr" ranks && ((op == "pingpong" && (bytes == 8 || bytes == 1024)) || op == "fanin" || op == "isendflood"))
          target = verdict(list, 3)
        printf "| %s | %d | %s | -nr %s | %s | %s | %s | %s |", (op in title) ? title[op] : op, ranks,
          name(bytes), substr(nr, 3), us(v[k, nr]), us(v[k, "ompi"]), shown(list), target
        if (base) printf " %s | %s |", shown(ratios(k, "base-" nr, "ompi")), shown(ratios(k, nr, "base-" nr))
        printf "\n"
      }
    }
    nr2_row("latency", "pingpong", 2)
    nr2_row("stream", "bw", 3)
  }' "$CSV" >"$OUT/table.md"

echo
echo "Results of: $invocation"
echo "  seconds per operation as microseconds, median (min-max) over $REPS repetitions;"
echo "  ratios: median (min-max) of the per-repetition ratios; load average at the end $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo
cat "$OUT/table.md"
echo
((${#FAILED[@]})) && printf 'FAILED: %s\n' "${FAILED[@]}"
echo "results: $CSV, $OUT/table.md"
((${#FAILED[@]})) && exit 1
if ((CHECK)) && grep -q -e MISS -e 'not measured' "$OUT/table.md"; then
  echo "a figure misses its target (--check)"
  exit 2
fi
exit 0
