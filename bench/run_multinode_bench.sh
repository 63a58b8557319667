#!/usr/bin/env bash
# run_multinode_bench.sh -- BDMPI across nodes, against Open MPI and against
# its own alternatives, in one invocation.
#
# Every figure is a ratio of two medians measured by this invocation (the
# machine is shared and noisy: absolute times alone mean little).
#
#   1. local host (masters on this machine, each its own node):
#        8 B round trip and 64 MiB throughput, BDMPI -nn 2 -ns 1 -nr 1 vs
#        mpirun -np 2; bcast/allreduce of 8 B, 1 MiB, 64 MiB, BDMPI -nn 4
#        -ns 2 -nr 1 vs mpirun --oversubscribe -np 8
#   2. emulated cluster (root and vcluster needed; brought up here and always
#      taken down again, also on failure or Ctrl-C):
#        4 hosts: round trip and throughput between two hosts, bcast and
#        allreduce of 64 MiB with -nn 4 -ns 1 -nr 1 vs mpirun -np 4, the bcast
#        forced to binomial, chain and scatter_allgather;
#        8 hosts in 2 racks: chain bcast over a rack-alternating host order
#        without and with a topology file (inter-rack link crossed at every
#        hop vs once), and against the link-rate bound.
#
# A failed or timed-out run is reported, the remaining runs still go, and the
# script exits 1 at the end.  Raw logs go to a directory printed at the end.
# shellcheck disable=SC2317  # the cleanup handlers run from traps
set -u -o pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/.." && pwd)

usage() {
  cat <<EOF
Usage: $0 [options]
  --bin DIR          benchmark programs and bdmpiexec   (env BENCH_BIN; default: <repo>/build/bin)
  --mpirun PATH      Open MPI launcher                  (env MPIRUN; default: mpirun)
  --vcluster PATH    emulated cluster tool              (env VCLUSTER; default: <repo>/../shared/cluster/vcluster)
  --out DIR          where logs go                      (env BENCH_OUT; default: a new /tmp directory)
  --timeout SEC      limit per run                      (env BENCH_TIMEOUT; default: 600)
  --quick            10% of the repetitions and fewer cluster runs (smoke test, noisier)
  --no-cluster       skip the emulated cluster part
  --no-local         skip the local-host part
  --rates4 N,R       node and inter-rack rate of the 4-host cluster  (default: 1gbit,2gbit)
  --rates8 N,R       node and inter-rack rate of the 8-host cluster  (default: 250mbit,500mbit)
  --chunk-size SIZE  BDMPI_CHUNK_SIZE for the cluster runs           (default: BDMPI's choice)
  --no-snapshot      run the programs in DIR itself, not a copy taken at the start
Exit status: 0 every run succeeded, 1 a run failed or could not be made,
64 bad usage or nothing built, 130 interrupted.
EOF
}

BIN=${BENCH_BIN:-$repo/build/bin}
MPIRUN=${MPIRUN:-mpirun}
VCLUSTER=${VCLUSTER:-$repo/../shared/cluster/vcluster}
OUT=${BENCH_OUT:-}
TIMEOUT=${BENCH_TIMEOUT:-600}
QUICK=0
DO_LOCAL=1
DO_CLUSTER=1
RATES4=1gbit,2gbit
RATES8=250mbit,500mbit
CHUNK=
SNAPSHOT=1
invocation="$0 $*"

while (($#)); do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --mpirun) MPIRUN=$2; shift 2 ;;
    --vcluster) VCLUSTER=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --no-cluster) DO_CLUSTER=0; shift ;;
    --no-local) DO_LOCAL=0; shift ;;
    --rates4) RATES4=$2; shift 2 ;;
    --rates8) RATES8=$2; shift 2 ;;
    --chunk-size) CHUNK=$2; shift 2 ;;
    --no-snapshot) SNAPSHOT=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 64 ;;
  esac
done
for r in "$RATES4" "$RATES8"; do
  [[ $r =~ ^[0-9.]+[kmg]?bit,[0-9.]+[kmg]?bit$ ]] ||
    { echo "$0: rates are NODE,RACK like 250mbit,500mbit (got '$r')" >&2; exit 64; }
done

# ---------------------------------------------------------------- prerequisites
PROGRAMS=(bdmpiexec bdmprun bench_pingpong bench_throughput bench_coll
  bench_pingpong.ompi bench_throughput.ompi bench_coll.ompi)
# shellcheck source=lib/cluster_bench.sh
source "$script_dir/lib/cluster_bench.sh"
check_programs
((QUICK)) && export BENCH_REPS_SCALE=0.1
snapshot_programs
install_traps

# p2p_rows SETUP WHAT: round trip and throughput rows, R keys SETUP:bdmpi and
# SETUP:ompi.
p2p_rows() {
  local s=$1 size
  row "8 B round trip ($2)" "BDMPI/Open MPI" "$s:bdmpi:pingpong:8" "$s:ompi:pingpong:8"
  for size in 1048576 $MiB64; do
    row "$(size_name $size) message, time per message" "BDMPI/Open MPI" \
      "$s:bdmpi:throughput:$size" "$s:ompi:throughput:$size" \
      "$(mbps $size "$s:bdmpi:throughput:$size") vs $(mbps $size "$s:ompi:throughput:$size") MB/s"
  done
}

# coll_rows A B WHAT SIZE...: bcast and allreduce rows, R keys A and B.
coll_rows() {
  local a=$1 b=$2 what=$3 op size; shift 3
  for op in bcast allreduce; do
    for size; do
      row "$op $(size_name "$size") ($what)" "BDMPI/Open MPI" "$a:$op:$size" "$b:$op:$size"
    done
  done
}
note "$(hostname): $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
note "logs in $OUT"
((SNAPSHOT)) && note "programs: copies in $BIN of those in $SOURCE_BIN ($(stat -c %y "$SOURCE_BIN/bdmprun" | cut -d. -f1))"

# ---------------------------------------------------------------- 1. local host
local_part() {
  run local_bdmpi_pingpong L:bdmpi "${BDMPIEXEC[@]}" -nn 2 -ns 1 -nr 1 "$BIN/bench_pingpong"
  run local_ompi_pingpong L:ompi "${MPIRUN_BASE[@]}" -np 2 "$BIN/bench_pingpong.ompi"
  run local_bdmpi_throughput L:bdmpi "${BDMPIEXEC[@]}" -nn 2 -ns 1 -nr 1 "$BIN/bench_throughput"
  run local_ompi_throughput L:ompi "${MPIRUN_BASE[@]}" -np 2 "$BIN/bench_throughput.ompi"
  run local_bdmpi_coll L:bdmpi8 "${BDMPIEXEC[@]}" -nn 4 -ns 2 -nr 1 "$BIN/bench_coll"
  run local_ompi_coll L:ompi8 "${MPIRUN_BASE[@]}" --oversubscribe -np 8 "$BIN/bench_coll.ompi"

  header "local host: A = BDMPI, B = Open MPI on this host (masters on one machine, each its own node)" \
    "  round trip, throughput: bdmpiexec -nn 2 -ns 1 -nr 1 vs mpirun -np 2;" \
    "  collectives: bdmpiexec -nn 4 -ns 2 -nr 1 vs mpirun --oversubscribe -np 8"
  p2p_rows L "2 nodes"
  coll_rows L:bdmpi8 L:ompi8 "8 ranks, 4 nodes" 8 1048576 $MiB64
}

# ---------------------------------------------------------------- 2. cluster

cluster4() {
  local node_rate=${RATES4%,*} rack_rate=${RATES4#*,}
  cluster_up 4 "$node_rate" "$rack_rate" || return 0
  cluster_env 4
  local hosts all2 all4 b o
  mapfile -t hosts < <(awk '{ print $1 }' "$OUT/racks4.txt")
  all2=$(hostfile hosts2 "${hosts[@]:0:2}")
  all4=$(hostfile hosts4 "${hosts[@]:0:4}")
  b=("${CL_ENV[@]}" "${BDMPIEXEC[@]}")
  o=("${CL_ENV[@]}" "${MPIRUN_BASE[@]}" --map-by node)

  run c4_bdmpi_pingpong C4:bdmpi "${b[@]}" -nn 2 -ns 1 -nr 1 --hostfile "$all2" "$BIN/bench_pingpong"
  run c4_ompi_pingpong C4:ompi "${o[@]}" -np 2 --hostfile "$all2" "$BIN/bench_pingpong.ompi"
  run c4_bdmpi_throughput C4:bdmpi "${b[@]}" -nn 2 -ns 1 -nr 1 --hostfile "$all2" "$BIN/bench_throughput"
  run c4_ompi_throughput C4:ompi "${o[@]}" -np 2 --hostfile "$all2" "$BIN/bench_throughput.ompi"
  run c4_bdmpi_coll C4:bdmpi4 "${b[@]}" -nn 4 -ns 1 -nr 1 --hostfile "$all4" "$BIN/bench_coll"
  run c4_ompi_coll C4:ompi4 "${o[@]}" -np 4 --hostfile "$all4" "$BIN/bench_coll.ompi"
  local alg
  for alg in chain binomial scatter_allgather; do
    run "c4_bdmpi_bcast_$alg" "C4:$alg" "${CL_ENV[@]}" "BDMPI_BCAST_ALGORITHM=$alg" \
      "${BDMPIEXEC[@]}" -nn 4 -ns 1 -nr 1 --hostfile "$all4" "$BIN/bench_coll" bcast
  done
  cluster_down

  local bound
  bound=$(link_bound $MiB64 "$node_rate")
  header "emulated cluster, 4 hosts (${hosts[*]}), node links $node_rate, inter-rack link $rack_rate" \
    "  A = BDMPI with --hostfile, one master per host; B = Open MPI with the same host file; both with the MCA" \
    "  settings of 'vcluster mpirun-args' (tcp on the emulated links, mpi_yield_when_idle=1) as OMPI_MCA_* variables" \
    "  round trip, throughput: ${hosts[0]} <-> ${hosts[1]}, -nn 2 -ns 1 -nr 1 vs -np 2;" \
    "  collectives: -nn 4 -ns 1 -nr 1 vs -np 4; forced: BDMPI_BCAST_ALGORITHM; link bound = 64 MiB / node rate"
  p2p_rows C4 "2 hosts"
  row "64 MiB message, time per message" "BDMPI/link bound" C4:bdmpi:throughput:$MiB64 "=$bound"
  coll_rows C4:bdmpi4 C4:ompi4 "4 hosts" $MiB64 8 1048576
  row "bcast 64 MiB, forced" "chain/binomial" C4:chain:bcast:$MiB64 C4:binomial:bcast:$MiB64
  row "bcast 64 MiB, forced" "chain/scatter_allgather" C4:chain:bcast:$MiB64 C4:scatter_allgather:bcast:$MiB64
  row "bcast 64 MiB, forced" "chain/Open MPI" C4:chain:bcast:$MiB64 C4:ompi4:bcast:$MiB64
  row "bcast 64 MiB, forced" "binomial/Open MPI" C4:binomial:bcast:$MiB64 C4:ompi4:bcast:$MiB64
  row "bcast 64 MiB, forced" "scatter_allgather/Open MPI" C4:scatter_allgather:bcast:$MiB64 C4:ompi4:bcast:$MiB64
  row "bcast 64 MiB, forced" "chain/link bound" C4:chain:bcast:$MiB64 "=$bound"
  row "bcast 64 MiB" "BDMPI's choice/chain" C4:bdmpi4:bcast:$MiB64 C4:chain:bcast:$MiB64
}

cluster8() {
  local node_rate=${RATES8%,*} rack_rate=${RATES8#*,}
  cluster_up 8 "$node_rate" "$rack_rate" || return 0
  cluster_env 8
  local sorted interleaved topo b
  # One host per line, rack by rack as vcluster lists them, and the same hosts
  # taking turns between racks (vc0 vc4 vc1 vc5 ...): a chain in rank order
  # over the latter crosses the inter-rack link at every hop.
  mapfile -t sorted < <(awk '{ print $1 }' "$OUT/racks8.txt")
  mapfile -t interleaved < <(interleaved_hosts "$OUT/racks8.txt")
  topo=$OUT/topology8.txt
  awk '{ print $1, $2 }' "$OUT/racks8.txt" >"$topo"
  local hf_sorted hf_inter
  hf_sorted=$(hostfile hosts8-rack-order "${sorted[@]}")
  hf_inter=$(hostfile hosts8-interleaved "${interleaved[@]}")
  b=("${CL_ENV[@]}" BDMPI_BCAST_ALGORITHM=chain "${BDMPIEXEC[@]}" -nn 8 -ns 1 -nr 1)

  run c8_chain_interleaved_notopo C8:inter "${b[@]}" --hostfile "$hf_inter" "$BIN/bench_coll" bcast
  run c8_chain_interleaved_topo C8:topo "${b[@]}" --hostfile "$hf_inter" --topology "$topo" "$BIN/bench_coll" bcast
  ((QUICK)) ||
    run c8_chain_rackorder_notopo C8:sorted "${b[@]}" --hostfile "$hf_sorted" "$BIN/bench_coll" bcast
  cluster_down

  header "emulated cluster, 8 hosts in 2 racks, node links $node_rate, one inter-rack link $rack_rate" \
    "  bdmpiexec -nn 8 -ns 1 -nr 1, BDMPI_BCAST_ALGORITHM=chain; host file order ${interleaved[*]}" \
    "  interleaved = no topology file (chain in that order: crosses racks at every hop);" \
    "  topology = --topology '$(head -n 1 "$topo")'... (chain rack by rack: crosses once); link bound = 64 MiB / node rate"
  row "chain bcast 64 MiB (8 hosts)" "interleaved/topology" C8:inter:bcast:$MiB64 C8:topo:bcast:$MiB64
  row "chain bcast 64 MiB (8 hosts)" "topology/link bound" C8:topo:bcast:$MiB64 "=$(link_bound $MiB64 "$node_rate")"
  row "chain bcast 64 MiB (8 hosts)" "interleaved/link bound" C8:inter:bcast:$MiB64 "=$(link_bound $MiB64 "$node_rate")"
  ((QUICK)) ||
    row "chain bcast 64 MiB (8 hosts)" "rack-order file/topology" C8:sorted:bcast:$MiB64 C8:topo:bcast:$MiB64 \
      "host file ${sorted[*]}, no topology file"
  row "chain bcast 1 MiB (8 hosts)" "interleaved/topology" C8:inter:bcast:1048576 C8:topo:bcast:1048576
}

if ((DO_LOCAL)); then local_part; else SKIPPED+=("local host part (--no-local)"); fi

if ((!DO_CLUSTER)); then
  SKIPPED+=("emulated cluster part (--no-cluster)")
elif (($(id -u) != 0)); then
  SKIPPED+=("emulated cluster part: vcluster needs root")
elif [[ ! -x $VCLUSTER ]]; then
  SKIPPED+=("emulated cluster part: no vcluster at $VCLUSTER")
elif ! command -v ip >/dev/null; then
  SKIPPED+=("emulated cluster part: no 'ip' (iproute2)")
else
  cluster4
  cluster8
fi

# ---------------------------------------------------------------- report
echo
echo "Results of: $invocation"
echo "  medians of seconds per operation from bench/mpi; A/B < 1 means A is faster"
echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
((QUICK)) && echo "  --quick: 10% of the repetitions, numbers are noisier"
printf '%s\n' "${TABLE[@]}"
echo
((${#SKIPPED[@]})) && printf 'SKIPPED: %s\n' "${SKIPPED[@]}"
((${#FAILED[@]})) && printf 'FAILED: %s\n' "${FAILED[@]}"
echo "raw logs: $OUT"
((${#FAILED[@]})) && exit 1
exit 0
