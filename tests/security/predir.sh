#!/usr/bin/env bash
# predir.sh given|random|symlink BDMPIEXEC BDMPRUN PROGRAM
#
# Another local user (nobody) tries to stop a job by creating its names
# first, in the shared scratch directory, /dev/shm and /dev/mqueue: every
# name it can make of the job id (the old fixed names, and names with a
# guessed tag), for a given --job-id (given), or for a random id read from
# the master's command line (random: the master is started through a
# wrapper that waits a second, so the squatter is always first; meanwhile
# it also watches for the job's names as they appear and creates the
# others with each tag it sees), or as a symlink to a directory of its own
# (symlink). The job must not notice: it runs to its end with exit 0,
# writes nothing into nobody's objects, removes none of them, and leaves
# nothing of its own.
source "$(dirname "$0")/lib.sh"
require_root
mode=$1 bdmpiexec=$2 bdmprun=$3 program=$4
mountpoint -q /dev/mqueue || { echo "SKIP: /dev/mqueue is not mounted"; exit 77; }

# Every name of node 0 of job $job with tag $1 ("" for the old fixed ones).
squat_names() {
  local tag=${1:+-$1} kind i
  for kind in live req storage payloads; do echo "bdmpi-$job-n0-$kind$tag"; done
  for i in 0 1 2 3; do echo "bdmpi-$job-n0-go$i$tag" "bdmpi-$job-n0-win$i$tag"; done
}
# Creates them as nobody: files in /dev/shm, queues in /dev/mqueue,
# directories (mode 0777) in the scratch directory.
squat() {
  local name
  for name in $(squat_names "$1"); do
    as_nobody touch "/dev/shm/$name" "/dev/mqueue/$name" 2>/dev/null
  done
  as_nobody mkdir -m 0777 "$scratch/bdmpi-$job${1:+-n0-$1}" 2>/dev/null
}
squat_all() {
  squat ""
  squat 0000000000000000
}

case $mode in
  given)
    squat_all
    start_job job "$bdmpiexec" -ns 2 --job-id "$job" --scratch-dir "$scratch" "$program"
    ;;
  symlink)
    decoy=$(as_nobody mktemp -d)
    as_nobody ln -s "$decoy" "$scratch/bdmpi-$job"
    start_job job "$bdmpiexec" -ns 2 --job-id "$job" --scratch-dir "$scratch" "$program"
    ;;
  random)
    wrapper=$logs/slow_bdmprun
    printf '#!/bin/sh\nsleep 1\nexec %q "$@"\n' "$bdmprun" >"$wrapper"
    chmod +x "$wrapper"
    BDMPI_BDMPRUN=$wrapper start_job job "$bdmpiexec" -ns 2 --scratch-dir "$scratch" "$program"
    # The id bdmpiexec chose, from the wrapper's command line (world-readable).
    find_id() {
      local pid
      pid=$(pgrep -f -- "$wrapper --job-id" | head -1)
      [[ -n $pid ]] && job=$(tr '\0' '\n' <"/proc/$pid/cmdline" | grep -A1 -x -- --job-id | tail -1)
      [[ -n $pid && -n $job ]]
    }
    wait_for 5 find_id || fail "no master of the job found"
    squat_all
    # Each tag the job's names show, tried on its other names.
    watch_and_squat() {
      local tag
      while kill -0 "$pid_job" 2>/dev/null; do
        for tag in $(ls /dev/shm /dev/mqueue "$scratch" 2>/dev/null |
                     sed -n "s/^bdmpi-$job-n0-.*-\\([0-9a-f]\\{16\\}\\)\$/\\1/p" | sort -u); do
          squat "$tag"
        done
        sleep 0.01
      done
    }
    watch_and_squat &
    watcher=$!
    ;;
  *) echo "usage: $0 given|random|symlink BDMPIEXEC BDMPRUN PROGRAM" >&2; exit 2 ;;
esac
finish_job job
[[ -n ${watcher:-} ]] && wait "$watcher"
expect_exit "the job" 0
expect_no_output job "refusing|in use|File exists"
# nobody's objects are all still there, nobody's, and empty.
squatted=$( { ipc_objects "$job" all; scratch_dirs "$job" all; } | sort)
[[ -n $squatted ]] || fail "nobody's objects are gone"
for object in $squatted; do
  [[ $(stat -c %U "$object") == nobody ]] || fail "$object is not nobody's: $(stat -c %U "$object")"
  if [[ -d $object ]]; then
    [[ -z $(ls -A "$object") ]] || fail "the job wrote into nobody's directory $object"
  elif [[ $object == /dev/shm/* ]]; then
    [[ ! -s $object ]] || fail "the job wrote into nobody's $object"
  fi
done
[[ -z ${decoy:-} || -z $(ls -A "$decoy") ]] || fail "the job wrote into nobody's $decoy"
rm -rf "${decoy:-}"
expect_nothing_left "$job"
echo "PASS ($mode): the job ran in ${elapsed_ms} ms beside $(wc -w <<<"$squatted") objects of nobody's"
