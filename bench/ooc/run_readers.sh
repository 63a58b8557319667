#!/usr/bin/env bash
# bench/ooc/run_readers.sh -- the applications' MPI-IO reader (--reader
# mpiio, MPI_File_read_at_all) against their pread reader
# (--reader posix), for k-means and PageRank under bdmpiexec with a node
# memory budget below the data (--node-memory), so that the ranks' blocks
# must live in storage-backed memory.
#
# Usage:
#   bench/ooc/run_readers.sh [--quick] [--data SIZE] [--node-memory SIZE]
#                            [--ranks N] [--nr R] [--repeat K]
#                            [--build DIR] [--work DIR] [--out FILE]
#
#   --quick            small data (16m), 2 repeats: checks that it all runs
#   --data SIZE        bytes of each input file (default 2g)
#   --node-memory SIZE bdmpiexec's node budget (default: a quarter of --data)
#   --ranks N          ranks (default 16), --nr R running at once (default 1)
#   --repeat K         runs of each (app, reader); the table shows the best
#                      (default 3)
#   --build DIR        build tree with bin/ (default <repo>/build)
#   --work DIR         data and scratch (default /var/tmp)
#   --out FILE         also write the table there
#
# Each run is one iteration (the read dominates); as root the page cache is
# dropped before every run, otherwise the runs read from the page cache
# (said in the table). Reported per (app, reader): the best wall time, and
# for k-means its own "read ... in S s" line. Both readers must print the
# same RESULT line, else the exit status is 1.

set -u -o pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)
die() { printf 'run_readers: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }

data=2g node_memory="" ranks=16 nr=1 repeat=3 build=$repo/build work_parent=/var/tmp out=""
while (($#)); do
  case $1 in
    --quick) data=16m repeat=2; shift ;;
    --data) data=${2?}; shift 2 ;;
    --node-memory) node_memory=${2?}; shift 2 ;;
    --ranks) ranks=${2?}; shift 2 ;;
    --nr) nr=${2?}; shift 2 ;;
    --repeat) repeat=${2?}; shift 2 ;;
    --build) build=${2?}; shift 2 ;;
    --work) work_parent=${2?}; shift 2 ;;
    --out) out=${2?}; shift 2 ;;
    -h | --help) usage 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
bytes=$(numfmt --from=iec "${data^^}") || die "--data: not a size: $data"
[[ -n $node_memory ]] || node_memory=$((bytes / 4))
bin=$build/bin
for p in bdmpiexec kmeans pagerank gen_documents gen_graph; do
  [[ -x $bin/$p ]] || die "$bin/$p not built (cmake --build $build --target $p)"
done
work=$(mktemp -d "$work_parent/bdmpi-readers.XXXXXX") || die "mktemp in $work_parent failed"
trap 'rm -rf "$work"' EXIT
mkdir "$work/scratch"

drop_caches() {
  if (($(id -u) == 0)); then
    sync
    echo 3 >/proc/sys/vm/drop_caches
  fi
}
cache_note="page cache dropped before each run"
(($(id -u) == 0)) || cache_note="not root: the runs read from the page cache"

"$bin/gen_documents" --out "$work/documents.bin" --bytes "$bytes" --seed 3 >/dev/null ||
  die "gen_documents failed"
"$bin/gen_graph" --out "$work/graph.bin" --bytes "$bytes" --seed 3 >/dev/null ||
  die "gen_graph failed"

status=0
declare -A best=() kmread=() result=()
for app in kmeans pagerank; do
  input=$work/documents.bin
  [[ $app == pagerank ]] && input=$work/graph.bin
  for reader in posix mpiio; do
    for ((k = 1; k <= repeat; ++k)); do
      drop_caches
      log=$work/$app.$reader.$k.log
      start=$EPOCHREALTIME
      "$bin/bdmpiexec" -ns "$ranks" -nr "$nr" --node-memory "$node_memory" \
        --scratch-dir "$work/scratch" "$bin/$app" "$input" --iters 1 --reader "$reader" \
        >"$log" 2>&1 || { echo "run_readers: $app --reader $reader failed:" >&2; tail -5 "$log" >&2; status=1; continue; }
      wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
      key=$app.$reader
      if [[ -z ${best[$key]:-} ]] || awk -v a="$wall" -v b="${best[$key]}" 'BEGIN { exit !(a < b) }'; then
        best[$key]=$wall
        kmread[$key]=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$log" | head -1)
      fi
      result[$key]=$(grep '^RESULT' "$log")
    done
  done
  if [[ ${result[$app.posix]:-} != "${result[$app.mpiio]:-}" ]]; then
    echo "run_readers: $app: the readers disagree: '${result[$app.posix]:-}' vs '${result[$app.mpiio]:-}'" >&2
    status=1
  fi
done

{
  echo "Readers: $data per input, bdmpiexec -ns $ranks -nr $nr --node-memory $node_memory, 1 iteration, best of $repeat ($cache_note)."
  echo
  echo "| app | posix wall s | mpiio wall s | mpiio / posix | posix read s | mpiio read s | same RESULT |"
  echo "|---|---|---|---|---|---|---|"
  for app in kmeans pagerank; do
    p=${best[$app.posix]:-n/a} m=${best[$app.mpiio]:-n/a}
    ratio=$(awk -v a="$m" -v b="$p" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "n/a" }')
    same=no
    [[ -n ${result[$app.posix]:-} && ${result[$app.posix]} == "${result[$app.mpiio]:-}" ]] && same=yes
    echo "| $app | $p | $m | $ratio | ${kmread[$app.posix]:--} | ${kmread[$app.mpiio]:--} | $same |"
  done
} | tee ${out:+"$out"}
exit "$status"
