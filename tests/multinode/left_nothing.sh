# Sourced by the multinode scripts: expect_nothing_left JOB SCRATCH fails
# (with the script's own `fail`) when a process, a /dev/shm or /dev/mqueue
# object of job JOB, or a file in its scratch dir SCRATCH is left.
expect_nothing_left() {
  local job=$1 scratch=$2 left
  left=$(pgrep -f "$job" | grep -v "^$$\$" || true)
  [[ -z $left ]] || fail "processes of the job left: $(ps -o pid,stat,args -p "$(echo $left | tr ' ' ,)")"
  if ls /dev/shm /dev/mqueue 2>/dev/null | grep -q "bdmpi-$job"; then
    fail "IPC objects of the job left: $(ls -d /dev/shm/*bdmpi-$job* /dev/mqueue/*bdmpi-$job* 2>/dev/null)"
  fi
  [[ -z $(ls -A "$scratch") ]] || fail "scratch dir not empty: $(ls -A "$scratch")"
}
