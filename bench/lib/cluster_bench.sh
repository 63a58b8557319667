# cluster_bench.sh -- shared by the bench/run_*_bench.sh scripts that compare
# BDMPI with Open MPI on this host and on the emulated cluster (vcluster).
# Sourced, not run. The sourcing script sets, before calling anything here:
#   BIN VCLUSTER MPIRUN OUT TIMEOUT SNAPSHOT CHUNK PROGRAMS (names in BIN)
# and calls, in this order: check_programs, snapshot_programs, install_traps.
# Results of runs land in R[KEY:bench:param] (seconds per operation).
# shellcheck shell=bash disable=SC2317  # the cleanup handlers run from traps

# check_programs: exits 64 unless every one of PROGRAMS is built in BIN;
# then makes BIN and VCLUSTER absolute and creates OUT (default: mktemp).
check_programs() {
  local missing=() p
  for p in "${PROGRAMS[@]}"; do
    [[ -x $BIN/$p ]] || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "$0: not built in $BIN: ${missing[*]}" >&2
    echo "build first (from $repo):  cmake -S . -B build && cmake --build build -j2" >&2
    exit 64
  fi
  BIN=$(cd "$BIN" && pwd)
  VCLUSTER=$(readlink -f "$VCLUSTER" 2>/dev/null || echo "$VCLUSTER")
  command -v "$MPIRUN" >/dev/null || { echo "$0: no Open MPI launcher '$MPIRUN'" >&2; exit 64; }
  [[ -n $OUT ]] || OUT=$(mktemp -d "/tmp/bdmpi-$(basename "$0" .sh).XXXXXX")
  mkdir -p "$OUT"
}

declare -A R=()   # "<setup>:<config>:<bench>:<param>" -> seconds per op
FAILED=()
SKIPPED=()
CHILD=            # pid of the timeout wrapping the current run
CLUSTER_OURS=0    # 1 while a vcluster brought up by this script may exist

# snapshot_programs: with SNAPSHOT=1, runs a private copy of the programs
# (and of libbdmpi when it is shared) in OUT/bin: others may rebuild the build
# tree meanwhile, and a master and a slave from different builds refuse each
# other ("protocol version mismatch").  The hosts of the emulated cluster
# share this file system, and Open MPI's launcher runs there with this
# environment, so LD_LIBRARY_PATH reaches the slaves everywhere.
snapshot_programs() {
  if ((SNAPSHOT)); then
    local p lib
    mkdir -p "$OUT/bin"
    for p in "${PROGRAMS[@]}"; do cp -p "$BIN/$p" "$OUT/bin/"; done
    lib=$(ldd "$BIN/bench_coll" 2>/dev/null | awk '$1 ~ /^libbdmpi/ && $3 ~ /^\// { print $3 }')
    if [[ -n $lib ]]; then
      cp -pL "$lib" "$OUT/bin/$(basename "$lib")"
      # libbdmpi loads the ranks' small-block heap from its own directory;
      # without it every rank warns and allocates from libc instead.
      if [[ -e $(dirname "$lib")/libbdmpi_heap.so ]]; then
        cp -pL "$(dirname "$lib")/libbdmpi_heap.so" "$OUT/bin/"
      fi
      export LD_LIBRARY_PATH=$OUT/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
    SOURCE_BIN=$BIN
    BIN=$OUT/bin
  fi
  MPIRUN_BASE=("$MPIRUN" --allow-run-as-root)
  BDMPIEXEC=("$BIN/bdmpiexec")
}

note() { printf '== %s\n' "$*"; }

# ---------------------------------------------------------------- cleanup
cluster_down() {
  ((CLUSTER_OURS)) || return 0
  note "vcluster down"
  timeout 120 "$VCLUSTER" down >>"$OUT/vcluster.log" 2>&1 ||
    echo "   vcluster down failed; see $OUT/vcluster.log" >&2
  CLUSTER_OURS=0
}
on_exit() { cluster_down; }
on_signal() {
  trap '' INT TERM HUP
  echo >&2
  echo "== interrupted ($1): stopping the current run and cleaning up" >&2
  if [[ -n $CHILD ]]; then
    kill -TERM "$CHILD" 2>/dev/null
    wait "$CHILD" 2>/dev/null
  fi
  cluster_down
  echo "logs in $OUT" >&2
  exit 130
}
install_traps() {
  trap on_exit EXIT
  trap 'on_signal INT' INT
  trap 'on_signal TERM' TERM
  trap 'on_signal HUP' HUP
}

# run LABEL KEY CMD... : runs CMD under the time limit (in the background, so
# that Ctrl-C is handled at once), logs to OUT/LABEL.log and stores its
# "BENCH name param seconds" lines as R[KEY:name:param].
run() {
  local label=$1 key=$2; shift 2
  local log=$OUT/$label.log
  note "$label: $*"
  { printf '$'; printf ' %q' "$@"; echo; } >"$log"
  timeout --kill-after=15 "$TIMEOUT" "$@" >>"$log" 2>&1 </dev/null &
  CHILD=$!
  wait "$CHILD"
  local rc=$? found=0 tag name param value
  CHILD=
  while read -r tag name param value; do
    [[ $tag == BENCH ]] || continue
    R[$key:$name:$param]=$value
    found=1
  done <"$log"
  if ((rc != 0 || !found)); then
    local why="exit $rc"
    ((rc == 124)) && why="timed out after ${TIMEOUT}s"
    ((found)) || why+=", no BENCH lines"
    FAILED+=("$label ($why; $log)")
    echo "   FAILED ($why), last lines of $log:"
    tail -n 8 "$log" | sed 's/^/   | /'
  else
    grep '^BENCH' "$log" | sed 's/^/   /'
  fi
}

# ---------------------------------------------------------------- table
# Values are keys of R, or literal seconds written "=VALUE".  A row prints
# A/B with both measured seconds; n/a where a run gave no figure.
val() { if [[ $1 == =* ]]; then echo "${1#=}"; else echo "${R[$1]:-}"; fi; }
TABLE=()
table_columns() {
  printf '  %-36s %-26s %7s %11s %11s  %s\n' measurement "compared (A/B)" ratio "A (s)" "B (s)" note
}
header() { TABLE+=("" "$@" "$(table_columns)"); }
row() { # MEASUREMENT RATIO-NAME A B [NOTE]
  local a b
  a=$(val "$3"); b=$(val "$4")
  TABLE+=("$(awk -v m="$1" -v n="$2" -v a="$a" -v b="$b" -v note="${5:-}" 'BEGIN {
    r = (a != "" && b != "" && b + 0 > 0) ? sprintf("%.2f", a / b) : "n/a"
    fa = (a == "") ? "n/a" : sprintf("%.4g", a); fb = (b == "") ? "n/a" : sprintf("%.4g", b)
    printf "  %-36s %-26s %7s %11s %11s  %s", m, n, r, fa, fb, note }')")
}
# mbps BYTES KEY : MB/s of one message of BYTES taking R[KEY] seconds.
mbps() { awk -v n="$1" -v t="$(val "$2")" 'BEGIN { if (t != "" && t > 0) printf "%.0f", n / t / 1e6; else printf "n/a" }'; }
# bits_per_s RATE : a tc rate (bit, kbit, mbit, gbit; SI) in bit/s.
bits_per_s() {
  awk -v r="$1" 'BEGIN { n = r + 0; u = r; sub(/^[0-9.]+/, "", u)
    f = (u == "kbit") ? 1e3 : (u == "mbit") ? 1e6 : (u == "gbit") ? 1e9 : 1; printf "%.0f", n * f }'
}
# link_bound BYTES RATE : seconds to push BYTES through one link of RATE.
link_bound() { awk -v n="$1" -v b="$(bits_per_s "$2")" 'BEGIN { printf "%.6g", n * 8 / b }'; }

MiB64=67108864
size_name() { if (($1 >= 1048576)); then echo "$(($1 >> 20)) MiB"; else echo "$1 B"; fi; }

cluster_up() { # NODES NODE_RATE RACK_RATE
  local d=${VCLUSTER_DIR:-/tmp/vcluster}
  if ip netns list 2>/dev/null | grep -Eq '^vc[0-9]+( |$)' || [[ -s $d/nodes ]]; then
    FAILED+=("vcluster up -n $1: an emulated cluster is already up (someone else's?); not touching it -- 'vcluster down' if it is stale")
    echo "   FAILED: vcluster is already up; left alone"
    return 1
  fi
  note "vcluster up -n $1 --node-rate $2 --rack-rate $3"
  CLUSTER_OURS=1   # from here on, whatever up creates is ours to remove
  if ! timeout 180 "$VCLUSTER" up -n "$1" --node-rate "$2" --rack-rate "$3" >>"$OUT/vcluster.log" 2>&1; then
    FAILED+=("vcluster up -n $1 (see $OUT/vcluster.log)")
    echo "   FAILED; see $OUT/vcluster.log"
    cluster_down
    return 1
  fi
  "$VCLUSTER" racks >"$OUT/racks$1.txt"
  sed 's/^/   /' "$OUT/racks$1.txt"
}

# Environment of every cluster run, BDMPI's and Open MPI's alike: Open MPI
# reaches the hosts through "vcluster exec" and stays on the emulated links
# (the settings of 'vcluster mpirun-args').
cluster_env() {
  local subnet
  subnet=$(awk 'NR == 1 { split($3, a, "."); print a[1] "." a[2] "." a[3] ".0/24" }' "$OUT/racks$1.txt")
  CL_ENV=(env "OMPI_MCA_plm_rsh_agent=$VCLUSTER exec" "OMPI_MCA_btl=self,tcp"
    "OMPI_MCA_btl_tcp_if_include=$subnet" "OMPI_MCA_oob_tcp_if_include=$subnet"
    OMPI_MCA_mpi_yield_when_idle=1)
  [[ -n $CHUNK ]] && CL_ENV+=("BDMPI_CHUNK_SIZE=$CHUNK")
  return 0
}

# hostfile NAME HOST... : an Open MPI host file with one slot per host.
hostfile() {
  local f=$OUT/$1; shift
  printf '%s slots=1\n' "$@" >"$f"
  echo "$f"
}

# interleaved_hosts RACKS_FILE: the hosts of 'vcluster racks' output taking
# turns between racks (vc0 vc4 vc1 vc5 ...): a chain in that order crosses
# the inter-rack link at every hop.
interleaved_hosts() {
  awk '{ n[$2]++; h[$2, n[$2]] = $1; if (!($2 in seen)) { seen[$2]; r[++nr] = $2 } }
    END { for (i = 1; ; i++) { any = 0
            for (k = 1; k <= nr; k++) if (i <= n[r[k]]) { print h[r[k], i]; any = 1 }
            if (!any) break } }' "$1"
}
