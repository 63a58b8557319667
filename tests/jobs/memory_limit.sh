#!/usr/bin/env bash
# memory_limit.sh LIMIT RUN_JOB [run_job.sh arguments...]
#
# Runs RUN_JOB (tests/jobs/run_job.sh) with the arguments inside a memory
# cgroup of its own limited to LIMIT bytes (k/m/g suffixes) without swap,
# as a node with that much memory would be: the job's master, its ranks and
# run_job.sh itself are in it. The cgroup goes when the job ends, also on
# error or interruption, with whatever is left in it.
#
# Needs root and a memory controller (cgroup v1 at /sys/fs/cgroup/memory,
# or v2 with memory in the root's cgroup.subtree_control); otherwise the
# test is skipped (exit status 77). Exit status: run_job.sh's.
set -u
limit_text=${1?usage: memory_limit.sh LIMIT RUN_JOB [ARGS...]}
shift
[[ $limit_text =~ ^([0-9]+)([kKmMgG]?)$ ]] || { echo "memory_limit: bad limit '$limit_text'" >&2; exit 2; }
limit=${BASH_REMATCH[1]}
case ${BASH_REMATCH[2],,} in
  k) limit=$((limit << 10)) ;; m) limit=$((limit << 20)) ;; g) limit=$((limit << 30)) ;;
esac

skip() {
  echo "memory_limit: SKIP: $*"
  exit 77
}
((EUID == 0)) || skip "making a memory cgroup needs root"

cgroup=""
v1_path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
if [[ -n $v1_path && -d /sys/fs/cgroup/memory ]]; then
  cgroup=/sys/fs/cgroup/memory${v1_path%/}/bdmpi-test-$$
  mkdir "$cgroup" 2>/dev/null || skip "cannot create $cgroup"
  echo "$limit" >"$cgroup/memory.limit_in_bytes" || skip "cannot set $cgroup/memory.limit_in_bytes"
  # Without swap (where the kernel accounts it): the limit is all there is.
  [[ -e $cgroup/memory.memsw.limit_in_bytes ]] &&
    echo "$limit" >"$cgroup/memory.memsw.limit_in_bytes" 2>/dev/null
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
  cgroup=/sys/fs/cgroup/bdmpi-test-$$
  mkdir "$cgroup" 2>/dev/null || skip "cannot create $cgroup"
  echo "$limit" >"$cgroup/memory.max" || skip "cannot set $cgroup/memory.max"
  [[ -e $cgroup/memory.swap.max ]] && echo 0 >"$cgroup/memory.swap.max"
else
  skip "no memory cgroup controller to make a limit with"
fi

remove_cgroup() {
  local pid
  for _ in $(seq 50); do
    for pid in $(cat "$cgroup/cgroup.procs" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
    rmdir "$cgroup" 2>/dev/null && return
    sleep 0.1
  done
  echo "memory_limit: could not remove $cgroup" >&2
}
trap remove_cgroup EXIT
trap 'exit 130' INT TERM

echo "memory_limit: $cgroup limited to $limit bytes"
bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' memory_limit "$cgroup" "$@"
