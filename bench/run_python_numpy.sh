#!/usr/bin/env bash
# run_python_numpy.sh -- a numpy program out of core: mpi4py, built with
# bdmpicc from a source tree you fetched (nothing fetched goes into this
# tree), runs bench/python/numpy_ooc.py with RANKS x MIB MiB of numpy data
# under a memory limit smaller than the data, twice in one invocation:
#
#   preload   as a user starts it: the master preloads libbdmpi into the
#             Python ranks, so their arrays are storage-backed
#   off       BDMPI_PRELOAD=off (the baseline: libbdmpi only from
#             `import mpi4py.MPI`, the arrays glibc's)
#
# and shows, per run: the wall time, the run report's storage line (bytes
# written back, switch-outs, largest rank) and the peak of the ranks'
# summed resident memory (all, and anonymous: what storage cannot page
# out). Checks the program's answer and, for "preload", that the data was
# written back. The limit is --node-memory, and with --cgroup also a
# memory cgroup around the whole job (made and removed here; root).
#
#   git clone -b 3.1.6 https://github.com/mpi4py/mpi4py /somewhere/mpi4py
#   bench/run_python_numpy.sh /somewhere/mpi4py
#
# Needs /usr/bin/python3 with numpy and Cython (Debian: python3-numpy,
# cython3); the default python3 in PATH may be another (pyenv) without them.
set -u -o pipefail

usage() {
  cat <<EOF2
Usage: $0 MPI4PY_SOURCE [options]
  --bin DIR          BDMPI's bin directory           (default: <repo>/build/bin)
  --python PATH      the Python to build and run     (default: /usr/bin/python3)
  --work DIR         where mpi4py is built           (default: a new /tmp directory)
  --ranks N          ranks                           (default: 16)
  --mib M            MiB of numpy data per rank      (default: 64)
  --rounds R         rounds over the data            (default: 3)
  --node-memory SIZE bdmpiexec --node-memory         (default: half the data)
  --cgroup SIZE      also run each job in a memory cgroup of SIZE (root)
  --timeout SEC      limit per run                   (default: 600)
Exit status: 0 every check passed, 1 one failed, 2 usage or set-up error.
EOF2
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -ge 1 && $1 != -* ]] || { usage >&2; exit 2; }
SOURCE=$(cd "$1" && pwd) || exit 2
shift
BIN=$script_dir/../build/bin
PYTHON=/usr/bin/python3
WORK=
RANKS=16 MIB=64 ROUNDS=3 NODE_MEMORY= CGROUP_SIZE= TIMEOUT=600
while (($#)); do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --python) PYTHON=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --ranks) RANKS=$2; shift 2 ;;
    --mib) MIB=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --node-memory) NODE_MEMORY=$2; shift 2 ;;
    --cgroup) CGROUP_SIZE=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
BIN=$(cd "$BIN" && pwd) || exit 2
[[ -n $NODE_MEMORY ]] || NODE_MEMORY=$((RANKS * MIB / 2))m
for tool in bdmpicc bdmpiexec; do
  [[ -x $BIN/$tool ]] || { echo "$0: no $BIN/$tool (build BDMPI first)" >&2; exit 2; }
done
for module in numpy Cython; do
  "$PYTHON" -c "import $module" 2>/dev/null ||
    { echo "$0: $PYTHON cannot import $module (apt-get install python3-numpy cython3)" >&2; exit 2; }
done
made_work=0
if [[ -z $WORK ]]; then WORK=$(mktemp -d /tmp/bdmpi-numpy.XXXXXX); made_work=1; fi
cgroup=
cleanup() {
  [[ -n $cgroup && -d $cgroup ]] && rmdir "$cgroup" 2>/dev/null
  ((made_work)) && rm -rf "$WORK"
}
trap cleanup EXIT

# mpi4py, built with bdmpicc in a copy of the source tree (kept in --work
# DIR and used again by the next run with the same DIR: its configure
# checks take minutes).
lib_dir=$(ls -d "$WORK"/mpi4py/build/lib.*/ 2>/dev/null | head -1)
if [[ -n $lib_dir && -f $WORK/mpi4py/built-with && $(cat "$WORK/mpi4py/built-with") == "$BIN/bdmpicc" ]]; then
  echo "using mpi4py as built before in $WORK/mpi4py"
else
  echo "building mpi4py from $SOURCE with $BIN/bdmpicc (log: $WORK/build.log)"
  rm -rf "$WORK/mpi4py" && cp -a "$SOURCE" "$WORK/mpi4py" || exit 2
  if ! (cd "$WORK/mpi4py" && "$PYTHON" setup.py build --mpicc="$BIN/bdmpicc") \
      >"$WORK/build.log" 2>&1; then
    tail -20 "$WORK/build.log"
    echo "$0: building mpi4py failed" >&2
    exit 2
  fi
  echo "$BIN/bdmpicc" >"$WORK/mpi4py/built-with"
  lib_dir=$(ls -d "$WORK"/mpi4py/build/lib.*/ | head -1)
fi
export PYTHONPATH=$lib_dir${PYTHONPATH:+:$PYTHONPATH}

if [[ -n $CGROUP_SIZE ]]; then
  cgroup=/sys/fs/cgroup/memory/bdmpi-numpy-$$
  [[ -d /sys/fs/cgroup/memory ]] || cgroup=/sys/fs/cgroup/bdmpi-numpy-$$
  mkdir "$cgroup" || { echo "$0: cannot make the memory cgroup $cgroup" >&2; exit 2; }
  limit_file=$cgroup/memory.limit_in_bytes
  [[ -f $limit_file ]] || limit_file=$cgroup/memory.max
  bytes=$("$PYTHON" -c "import sys; s=sys.argv[1].lower(); u={'k':10,'m':20,'g':30}; print(int(float(s[:-1]) * 2**u[s[-1]]) if s[-1] in u else int(s))" "$CGROUP_SIZE")
  echo "$bytes" >"$limit_file" || exit 2
fi

# The ranks' summed resident memory, sampled: all of it, and anonymous.
# The ranks are the descendants of the run that are not BDMPI's own.
descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    descendants "$child"
  done
}
peak_rss() {  # peak_rss PID -> "rss_kib anon_kib", the peaks while PID lives
  local top=$1 rss=0 anon=0 pid comm r a
  while kill -0 "$top" 2>/dev/null; do
    local now_rss=0 now_anon=0
    for pid in $(descendants "$top"); do
      comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
      [[ $comm == bdmpiexec || $comm == bdmprun || $comm == timeout ]] && continue
      read -r r a < <(awk '/^VmRSS:/ { r = $2 } /^RssAnon:/ { a = $2 } END { print r + 0, a + 0 }' \
                        "/proc/$pid/status" 2>/dev/null)
      now_rss=$((now_rss + ${r:-0})) now_anon=$((now_anon + ${a:-0}))
    done
    ((now_rss > rss)) && rss=$now_rss
    ((now_anon > anon)) && anon=$now_anon
    sleep 0.2
  done
  echo "$rss $anon"
}

declare -A WALL=() STORAGE=() RSS=() ANON=() STATUS=()
failed=0
run() {  # run CONFIG [env assignments...]
  local config=$1 log=$WORK/$1.log
  shift
  local start end
  start=$(date +%s.%N)
  (
    [[ -n $cgroup ]] && echo $BASHPID >"$cgroup/cgroup.procs"
    exec env "$@" timeout "$TIMEOUT" "$BIN/bdmpiexec" -n "$RANKS" -nr 1 \
      --node-memory "$NODE_MEMORY" --report "$PYTHON" "$script_dir/python/numpy_ooc.py" \
      "$MIB" "$ROUNDS"
  ) >"$log" 2>&1 &
  local pid=$!
  local peaks
  peaks=$(peak_rss "$pid")
  wait "$pid"
  STATUS[$config]=$?
  end=$(date +%s.%N)
  WALL[$config]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  RSS[$config]=$((${peaks% *} / 1024))
  ANON[$config]=$((${peaks#* } / 1024))
  STORAGE[$config]=$(grep -o 'storage-backed memory: .*' "$log" | head -1)
  if ((STATUS[$config] != 0)) || ! grep -q "numpy_ooc: ok" "$log"; then
    echo "FAIL: $config: exit ${STATUS[$config]}, the answer was not checked ok; log:"
    tail -20 "$log"
    failed=1
  fi
}

echo "numpy_ooc: $RANKS ranks x $MIB MiB ($((RANKS * MIB)) MiB of numpy data), $ROUNDS rounds," \
  "-nr 1, --node-memory $NODE_MEMORY${CGROUP_SIZE:+, memory cgroup $CGROUP_SIZE}"
run preload
run off BDMPI_PRELOAD=off
if [[ ${STORAGE[preload]} =~ memory:\ 0\ B\ written ]] || [[ -z ${STORAGE[preload]} ]]; then
  echo "FAIL: preload: the run report shows no data written back: ${STORAGE[preload]}"
  failed=1
fi
printf '%-8s %6s %8s %10s %10s  %s\n' config status wall_s rss_MiB anon_MiB "run report"
for config in preload off; do
  printf '%-8s %6s %8s %10s %10s  %s\n' "$config" "${STATUS[$config]}" "${WALL[$config]}" \
    "${RSS[$config]}" "${ANON[$config]}" "${STORAGE[$config]}"
done
awk -v a="${WALL[preload]}" -v b="${WALL[off]}" \
  'BEGIN { if (b > 0) printf "wall time preload / off: %.2f\n", a / b }'
echo "logs: $WORK$( ((made_work)) && echo ' (removed; give --work DIR to keep them)')"
exit $failed
