#!/usr/bin/env bash
# in_memory_cgroup.sh -- run a command inside a fresh memory cgroup (v1)
# without swap, then remove the cgroup.
#
# Usage: in_memory_cgroup.sh LIMIT -- COMMAND [ARGS...]
#   LIMIT  bytes, or with a k/m/g suffix
#
# Needs root and the cgroup v1 memory controller at /sys/fs/cgroup/memory;
# otherwise exits 77 (ctest: skipped). The command's exit status is
# returned; whatever is left in the cgroup afterwards is killed.
set -u -o pipefail
(($# >= 3)) && [[ $2 == -- ]] || { echo "usage: $0 LIMIT -- COMMAND..." >&2; exit 2; }
limit_text=$1
shift 2
case ${limit_text: -1} in
  k | K) limit=$((${limit_text%?} << 10)) ;; m | M) limit=$((${limit_text%?} << 20)) ;;
  g | G) limit=$((${limit_text%?} << 30)) ;; *) limit=$limit_text ;;
esac
root=/sys/fs/cgroup/memory
if (($(id -u) != 0)) || [[ ! -f $root/memory.limit_in_bytes ]]; then
  echo "in_memory_cgroup: SKIP: needs root and a cgroup v1 memory controller at $root"
  exit 77
fi
cg=$root/bdmpi-test-$$
cleanup() {
  [[ -d $cg ]] || return
  while read -r pid; do kill -KILL "$pid" 2>/dev/null; done <"$cg/cgroup.procs"
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [[ -s $cg/cgroup.procs ]] || break
    sleep 0.2
  done
  rmdir "$cg" || echo "in_memory_cgroup: could not remove $cg" >&2
}
trap cleanup EXIT
mkdir "$cg" || exit 2
echo "$limit" >"$cg/memory.limit_in_bytes" || exit 2
if [[ -f $cg/memory.memsw.limit_in_bytes ]]; then
  echo "$limit" >"$cg/memory.memsw.limit_in_bytes" || exit 2
else
  echo 0 >"$cg/memory.swappiness"
fi
(
  echo $BASHPID >"$cg/cgroup.procs"
  exec "$@"
)
status=$?
# An OOM kill inside shows here, whatever the command made of it.
oom=$(awk '/^oom_kill / { print $2 }' "$cg/memory.oom_control" 2>/dev/null)
if [[ -n $oom && $oom != 0 ]]; then
  echo "in_memory_cgroup: the kernel killed $oom process(es) for memory in the cgroup" >&2
  ((status != 0)) || status=1
fi
exit "$status"
