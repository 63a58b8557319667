#!/usr/bin/env bash
# run_collectives_bench.sh -- the collectives among masters on the emulated
# cluster, against Open MPI on the same hosts and against
# the link-rate bound, in one invocation.
#
# For 4 and 8 hosts in 2 racks (vcluster; brought up here and always taken
# down again), one master and one rank per host (-nn H -ns 1 -nr 1):
#   * MPI_Bcast and MPI_Allreduce of 8 B ... 256 MiB: BDMPI's own choice of
#     algorithm (with the rack topology file) vs Open MPI's MPI_Bcast /
#     MPI_Allreduce (mpirun --map-by node, same hosts, rack order);
#   * every algorithm forced (BDMPI_BCAST_ALGORITHM / BDMPI_ALLREDUCE_ALGORITHM)
#     up to --forced-max: where the crossovers of the selection come from;
#   * the chain broadcast over hosts listed alternately from the two racks,
#     without a topology file (the chain crosses the inter-rack link at every
#     hop) and with one (rack by rack: crosses it once);
#   * bounds: broadcast n*beta (one link's time for the message), allreduce
#     2(p-1)/p * n*beta (what each host must send in a ring).
# Output in --out: results.csv (hosts,op,variant,bytes,seconds), table.md,
# collectives.png (time against size, log-log; needs gnuplot, installed with
# apt-get when missing) and the raw logs. Medians of seconds per operation
# from bench/mpi/coll.c.
# shellcheck disable=SC2034  # variables used by lib/cluster_bench.sh
set -u -o pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/.." && pwd)

usage() {
  cat <<EOF
Usage: $0 [options]
  --bin DIR           programs and bdmpiexec        (default: <repo>/build/bin)
  --mpirun PATH       Open MPI launcher             (default: mpirun)
  --vcluster PATH     emulated cluster tool         (default: <repo>/../shared/cluster/vcluster)
  --out DIR           results and logs              (default: a new /tmp directory)
  --timeout SEC       limit per run                 (default: 1800)
  --hosts LIST        cluster sizes                 (default: 4,8)
  --rates4 N,R        node and inter-rack rate, 4 hosts (default: 500mbit,1gbit)
  --rates8 N,R        node and inter-rack rate, 8 hosts (default: 250mbit,500mbit)
  --sizes LIST        message sizes                 (default: 8,1k,4k,...,64m,256m: powers of 4)
  --forced-max SIZE   largest size of the forced-algorithm runs (default: 64m;
                      0: none)
  --no-snapshot       run the programs in --bin itself, not copies
  --report DIR        only remake table.md and collectives.png from DIR/results.csv
Exit status: 0 every run succeeded, 1 a run failed, 64 bad usage, 130 interrupted.
EOF
}

BIN=$repo/build/bin
MPIRUN=mpirun
VCLUSTER=$repo/../shared/cluster/vcluster
OUT=
TIMEOUT=1800
HOSTS=4,8
RATES4=500mbit,1gbit
RATES8=250mbit,500mbit
SIZES=8,1k,4k,16k,64k,256k,1m,4m,16m,64m,256m
FORCED_MAX=64m
SNAPSHOT=1
CHUNK=
REPORT_ONLY=0
FORCED_ALGS=1
invocation="$0 $*"

while (($#)); do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --mpirun) MPIRUN=$2; shift 2 ;;
    --vcluster) VCLUSTER=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --hosts) HOSTS=$2; shift 2 ;;
    --rates4) RATES4=$2; shift 2 ;;
    --rates8) RATES8=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --forced-max) FORCED_MAX=$2; shift 2 ;;
    --no-snapshot) SNAPSHOT=0; shift ;;
    --report) OUT=$2; REPORT_ONLY=1; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 64 ;;
  esac
done
if ((!REPORT_ONLY)); then
  (($(id -u) == 0)) || { echo "$0: vcluster needs root" >&2; exit 64; }
  [[ -x $VCLUSTER ]] || { echo "$0: no vcluster at $VCLUSTER" >&2; exit 64; }
fi

# bytes SIZE: 64k -> 65536.
bytes() {
  awk -v s="$1" 'BEGIN { n = s + 0; u = tolower(substr(s, length(s)))
    f = (u == "k") ? 1024 : (u == "m") ? 1048576 : (u == "g") ? 1073741824 : 1
    printf "%d", n * f }'
}
# sizes_between MIN MAX: the --sizes from MIN to MAX, comma separated.
sizes_between() {
  local min max s out=()
  min=$(bytes "$1") max=$(bytes "$2")
  IFS=, read -ra all <<<"$SIZES"
  for s in "${all[@]}"; do
    (($(bytes "$s") >= min && $(bytes "$s") <= max)) && out+=("$s")
  done
  (IFS=,; echo "${out[*]}")
}

PROGRAMS=(bdmpiexec bdmprun bench_coll bench_coll.ompi)
# shellcheck source=lib/cluster_bench.sh
source "$script_dir/lib/cluster_bench.sh"
CSV=$OUT/results.csv
RATES_FILE=$OUT/rates.txt   # "HOSTS NODE_RATE RACK_RATE" per cluster run
if ((REPORT_ONLY)); then
  [[ -s $CSV ]] || { echo "$0: no $CSV" >&2; exit 64; }
else
  check_programs
  snapshot_programs
  install_traps
  CSV=$OUT/results.csv RATES_FILE=$OUT/rates.txt  # OUT may be new
  echo "hosts,op,variant,bytes,seconds" >"$CSV"
  : >"$RATES_FILE"
fi

((REPORT_ONLY)) || note "$(hostname): $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
((REPORT_ONLY)) || note "logs in $OUT"

# measure HOSTS VARIANT OPS SIZES CMD...: one run of bench_coll; its medians
# go to results.csv as (HOSTS, op, VARIANT, bytes, seconds).
measure() {
  local hosts=$1 variant=$2 ops=$3 sizes=$4 key; shift 4
  key="$hosts:$variant"
  run "h${hosts}_$variant" "$key" "$@" "$ops" "$sizes"
  local k op size
  for k in "${!R[@]}"; do
    [[ $k == "$key":* ]] || continue
    IFS=: read -r _ _ op size <<<"$k"
    echo "$hosts,$op,$variant,$size,${R[$k]}" >>"$CSV"
  done
}

# bounds HOSTS RATE: the link-rate bounds for every size, as variants
# "bound" of bcast (n*beta) and allreduce (2(p-1)/p * n*beta).
bounds() {
  local hosts=$1 bps s n
  bps=$(bits_per_s "$2")
  IFS=, read -ra all <<<"$SIZES"
  for s in "${all[@]}"; do
    n=$(bytes "$s")
    awk -v h="$hosts" -v n="$n" -v b="$bps" 'BEGIN {
      printf "%d,bcast,bound,%d,%.6g\n", h, n, n * 8 / b
      printf "%d,allreduce,bound,%d,%.6g\n", h, n, 2 * (h - 1) / h * n * 8 / b }' >>"$CSV"
  done
}

cluster_runs() { # HOSTS NODE_RATE,RACK_RATE
  local h=$1 node_rate=${2%,*} rack_rate=${2#*,}
  cluster_up "$h" "$node_rate" "$rack_rate" || return 0
  cluster_env "$h"
  local sorted interleaved topo hf_sorted hf_inter forced
  mapfile -t sorted < <(awk '{ print $1 }' "$OUT/racks$h.txt")
  mapfile -t interleaved < <(interleaved_hosts "$OUT/racks$h.txt")
  topo=$OUT/topology$h.txt
  awk '{ print $1, $2 }' "$OUT/racks$h.txt" >"$topo"
  hf_sorted=$(hostfile "hosts$h-rack-order" "${sorted[@]}")
  hf_inter=$(hostfile "hosts$h-interleaved" "${interleaved[@]}")
  forced=$(sizes_between 0 "$FORCED_MAX")
  local b=("${CL_ENV[@]}") bx=("${BDMPIEXEC[@]}" -nn "$h" -ns 1 -nr 1)

  measure "$h" ompi all "$SIZES" "${CL_ENV[@]}" "${MPIRUN_BASE[@]}" --map-by node \
    -np "$h" --hostfile "$hf_sorted" "$BIN/bench_coll.ompi"
  measure "$h" bdmpi all "$SIZES" "${b[@]}" "${bx[@]}" --hostfile "$hf_sorted" \
    --topology "$topo" "$BIN/bench_coll"
  local alg
  [[ -n $forced ]] || FORCED_ALGS=0  # --forced-max below every size
  ((FORCED_ALGS)) && for alg in binomial chain scatter_allgather; do
    measure "$h" "bcast_$alg" bcast "$forced" "${b[@]}" BDMPI_BCAST_ALGORITHM=$alg \
      "${bx[@]}" --hostfile "$hf_sorted" --topology "$topo" "$BIN/bench_coll"
  done
  ((FORCED_ALGS)) && for alg in recursive_doubling ring; do
    measure "$h" "allreduce_$alg" allreduce "$forced" "${b[@]}" BDMPI_ALLREDUCE_ALGORITHM=$alg \
      "${bx[@]}" --hostfile "$hf_sorted" --topology "$topo" "$BIN/bench_coll"
  done
  local big
  big=$(sizes_between 64m 1g)
  if [[ -n $big ]]; then
    measure "$h" chain_interleaved bcast "$big" "${b[@]}" BDMPI_BCAST_ALGORITHM=chain \
      "${bx[@]}" --hostfile "$hf_inter" "$BIN/bench_coll"
    measure "$h" chain_interleaved_topology bcast "$big" "${b[@]}" BDMPI_BCAST_ALGORITHM=chain \
      "${bx[@]}" --hostfile "$hf_inter" --topology "$topo" "$BIN/bench_coll"
  fi
  cluster_down
  bounds "$h" "$node_rate"
  echo "$h $node_rate $rack_rate" >>"$RATES_FILE"
}

if ((!REPORT_ONLY)); then
  IFS=, read -ra host_counts <<<"$HOSTS"
  for h in "${host_counts[@]}"; do
    case $h in
      4) cluster_runs 4 "$RATES4" ;;
      8) cluster_runs 8 "$RATES8" ;;
      *) echo "$0: --hosts takes 4 and/or 8" >&2; exit 64 ;;
    esac
  done
fi
declare -A RATE_OF=()
while read -r h node_rate rack_rate; do
  RATE_OF[$h]="node links $node_rate, inter-rack link $rack_rate"
done <"$RATES_FILE"
mapfile -t host_counts < <(awk -F, 'NR > 1 { print $1 }' "$CSV" | sort -nu)

# ---------------------------------------------------------------- report
# The table: per hosts, op and size, BDMPI's choice against Open MPI, the
# bound and the best forced algorithm; chain order rows for the broadcast.
# (mawk has no sorting: the shell passes the hosts and sizes in order.)
awk -F, -v rates="$(for h in "${!RATE_OF[@]}"; do printf '%s=%s;' "$h" "${RATE_OF[$h]}"; done)" \
  -v hosts="$(awk -F, 'NR > 1 { print $1 }' "$CSV" | sort -nu | paste -sd' ')" \
  -v sizes="$(awk -F, 'NR > 1 { print $4 }' "$CSV" | sort -nu | paste -sd' ')" '
  NR > 1 { t[$1, $2, $3, $4] = $5 }
  function f(x) { return x == "" ? "n/a" : sprintf("%.4g", x) }
  function r(a, b) { return (a == "" || b == "" || b <= 0) ? "n/a" : sprintf("%.2f", a / b) }
  function name(n) { return n >= 1048576 ? n / 1048576 " MiB" : n >= 1024 ? n / 1024 " KiB" : n " B" }
  END {
    split(rates, rr, ";"); for (i in rr) { split(rr[i], kv, "="); rate[kv[1]] = kv[2] }
    nh = split(hosts, H, " "); ns = split(sizes, S, " ")
    for (i = 1; i <= nh; i++) {
      h = H[i]
      for (q = 1; q <= 2; q++) { op = q == 1 ? "bcast" : "allreduce"
        printf "\n### %s, %d hosts in 2 racks (%s)\n\n", op, h, rate[h]
        print "| size | BDMPI (s) | Open MPI (s) | Open MPI / BDMPI | bound (s) | BDMPI / bound | forced (s) |"
        print "| --- | --- | --- | --- | --- | --- | --- |"
        for (j = 1; j <= ns; j++) {
          n = S[j]; b = t[h, op, "bdmpi", n]; o = t[h, op, "ompi", n]; bd = t[h, op, "bound", n]
          forced = ""
          for (k in t) { split(k, p, SUBSEP)
            if (p[1] == h && p[2] == op && p[4] == n && index(p[3], op "_") == 1)
              forced = forced sprintf("%s %s ", substr(p[3], length(op) + 2), f(t[k])) }
          printf "| %s | %s | %s | %s | %s | %s | %s|\n", name(n), f(b), f(o), r(o, b), f(bd), r(b, bd), forced
        }
      }
      first = 1
      for (j = 1; j <= ns; j++) {
        n = S[j]; a = t[h, "bcast", "chain_interleaved", n]; c = t[h, "bcast", "chain_interleaved_topology", n]
        if (a == "" && c == "") continue
        if (first) { printf "\n### chain broadcast, %d hosts listed alternately from the 2 racks\n\n", h
          print "| size | no topology file (s) | topology file (s) | interleaved / rack order | rack order / bound |"
          print "| --- | --- | --- | --- | --- |"; first = 0 }
        printf "| %s | %s | %s | %s | %s |\n", name(n), f(a), f(c), r(a, c), r(c, t[h, "bcast", "bound", n])
      }
    }
  }' "$CSV" >"$OUT/table.md"

# The plot: one panel per (hosts, op), seconds against bytes, log-log.
plot() {
  command -v gnuplot >/dev/null ||
    { apt-get install -y -qq gnuplot-nox >/dev/null 2>&1 || return 1; }
  local panels=() h op v
  for h in "${host_counts[@]}"; do for op in bcast allreduce; do panels+=("$h:$op"); done; done
  {
    echo "set terminal pngcairo size 1400,$((450 * (${#panels[@]} + 1) / 2)) noenhanced"
    echo "set output '$OUT/collectives.png'"
    echo "set datafile separator ','"
    echo "set logscale xy; set grid; set key left top; set format y '%g'"
    echo "set xlabel 'bytes'; set ylabel 'seconds per operation'"
    echo "set multiplot layout $(((${#panels[@]} + 1) / 2)),2"
    for p in "${panels[@]}"; do
      h=${p%:*} op=${p#*:}
      echo "set title '$op, $h hosts in 2 racks (${RATE_OF[$h]:-})'"
      local series=()
      for v in bdmpi ompi bound $(awk -F, -v h="$h" -v op="$op" 'NR > 1 && $1 == h && $2 == op { print $3 }' "$CSV" |
        sort -u | grep -vx -e bdmpi -e ompi -e bound); do
        series+=("'< awk -F, \"\\\$1 == $h && \\\$2 == \\\"$op\\\" && \\\$3 == \\\"$v\\\"\" $CSV | sort -t, -k4,4n' using 4:5 with linespoints title '$v'")
      done
      (IFS=,; echo "plot ${series[*]}")
    done
    echo "unset multiplot"
  } >"$OUT/collectives.gp"
  gnuplot "$OUT/collectives.gp" 2>>"$OUT/gnuplot.log"
}
plot || SKIPPED+=("plot (gnuplot missing or failed; see $OUT/gnuplot.log)")

echo
echo "Results of: $invocation"
echo "  medians of seconds per operation; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
cat "$OUT/table.md"
echo
((${#SKIPPED[@]})) && printf 'SKIPPED: %s\n' "${SKIPPED[@]}"
((${#FAILED[@]})) && printf 'FAILED: %s\n' "${FAILED[@]}"
echo "results: $CSV, $OUT/table.md, $OUT/collectives.png"
((${#FAILED[@]})) && exit 1
exit 0
