# lib.sh -- shared by the security tests (sourced, not run).
#
# Each test runs as root (it acts as another user, `nobody`, too) and exits
# 77 (ctest's SKIP_RETURN_CODE) when it cannot. It gets a scratch directory
# that every user may write to, like /tmp (mode 1777), and a job id; on exit
# whatever is left of the job is removed. The checks: exit status, message,
# time to end, and that nothing of the job is left.
set -uo pipefail

require_root() {
  if ((EUID != 0)); then echo "SKIP: needs root (acts as user nobody too)"; exit 77; fi
  if ! id nobody >/dev/null 2>&1; then echo "SKIP: there is no user nobody"; exit 77; fi
}

now_ms() { date +%s%3N; }

# Runs a command as the other local user.
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }

# Message queues are visible as files only where the mqueue fs is mounted.
if ((EUID == 0)) && ! mountpoint -q /dev/mqueue 2>/dev/null; then
  { mkdir -p /dev/mqueue && mount -t mqueue none /dev/mqueue; } 2>/dev/null
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bdmpi-security.XXXXXX") || exit 1
chmod 1777 "$scratch"
job="sec$$$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
logs=$(mktemp -d) || exit 1

# Processes of job $1: those whose command line names it (bdmpiexec, the
# masters) and the ranks (BDMPI_JOB_ID in their environment). Zombies do not
# count: in a container PID 1 may never reap the orphans it inherits.
job_processes() {
  local pid
  {
    pgrep -f -- "--job-id $1"
    grep -lsx "BDMPI_JOB_ID=$1" --null-data /proc/[0-9]*/environ | cut -d/ -f3
  } | sort -u | while read -r pid; do
    [[ $(ps -o stat= -p "$pid" 2>/dev/null) == Z* ]] || echo "$pid"
  done
}

# Objects of job $1 in /dev/shm, /dev/mqueue and the scratch directory, of
# any user ("all") or of this one.
ipc_objects() {
  local dir owner=()
  [[ ${2:-} == all ]] || owner=(-user "$(id -u)")
  for dir in /dev/shm /dev/mqueue; do
    [[ -d $dir ]] && find "$dir" -maxdepth 1 -name "*bdmpi-$1-*" "${owner[@]}" 2>/dev/null
  done
}
scratch_dirs() {
  local owner=()
  [[ ${2:-} == all ]] || owner=(-user "$(id -u)")
  find "$scratch" -maxdepth 1 -name "bdmpi-$1*" "${owner[@]}" 2>/dev/null
}

# Open MPI's shared memory that the masters of a job on several nodes map
# (mpirun's transport, named after mpirun's own job id): noted while the job
# runs (note_launcher_segments), since no name of it says whose it is.
launcher_segments=()
note_launcher_segments() {
  local pid
  mapfile -t launcher_segments < <(
    for pid in $(job_processes "$1"); do
      grep -os '/dev/shm/vader_segment[^ ]*' "/proc/$pid/maps"
    done | sort -u)
}

remove_job() {
  local pid
  for pid in $(job_processes "$1"); do kill -KILL "$pid" 2>/dev/null; done
  { ipc_objects "$1" all; scratch_dirs "$1" all; } | xargs -r rm -rf  # directories too
  ((${#launcher_segments[@]} == 0)) || rm -f "${launcher_segments[@]}"
}

on_exit() {
  remove_job "$job"
  rm -rf "$scratch" "$logs"
}
trap on_exit EXIT

fail() {
  echo "FAIL: $*"
  local log
  for log in "$logs"/*; do
    [[ -s $log ]] && { echo "--- $(basename "$log"):"; cat "$log"; }
  done
  exit 1
}

# start_job NAME [bdmpiexec args...]: runs in the background, output in
# $logs/NAME; its pid in pid_NAME, its start in start_NAME.
start_job() {
  local name=$1
  shift
  printf -v "start_$name" '%s' "$(now_ms)"
  "$@" >"$logs/$name" 2>&1 &
  printf -v "pid_$name" '%s' "$!"
}

# finish_job NAME: waits for it; sets rc and elapsed_ms.
finish_job() {
  local pid_var="pid_$1" start_var="start_$1"
  wait "${!pid_var}"
  rc=$?
  elapsed_ms=$(($(now_ms) - ${!start_var}))
}

expect_exit() {  # expect_exit WHAT N|nonzero
  if [[ $2 == nonzero ]]; then
    ((rc != 0)) || fail "$1 exited 0, expected a failure"
  else
    ((rc == $2)) || fail "$1 exited $rc, expected $2"
  fi
}

expect_output() {  # expect_output NAME REGEX
  grep -Eq -- "$2" "$logs/$1" || fail "the output of $1 does not match /$2/"
}

expect_no_output() {  # expect_no_output NAME REGEX
  ! grep -Eq -- "$2" "$logs/$1" || fail "the output of $1 matches /$2/"
}

expect_within() {  # expect_within WHAT SECONDS
  ((elapsed_ms <= $2 * 1000)) || fail "$1 took ${elapsed_ms} ms, more than $2 s"
}

# Nothing of job $1 left: no process, IPC object or job directory of ours
# (another user's, made to get in the way, are not the job's to remove), or
# of any user with $2 "all" (a job run as another user).
expect_nothing_left() {
  local left
  left=$(job_processes "$1")
  [[ -z $left ]] || fail "processes of job $1 left: $(ps -o pid=,args= -p "$(paste -sd, <<<"$left")")"
  left=$(ipc_objects "$1" "${2:-}")
  [[ -z $left ]] || fail "objects of job $1 left: $left"
  left=$(scratch_dirs "$1" "${2:-}")
  [[ -z $left ]] || fail "job directories of job $1 left: $left"
  local segment
  for segment in "${launcher_segments[@]}"; do
    [[ ! -e $segment ]] || fail "Open MPI shared memory of job $1 left: $segment"
  done
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds; false on timeout.
wait_for() {
  local deadline=$(($(now_ms) + $1 * 1000))
  shift
  until "$@"; do
    (($(now_ms) < deadline)) || return 1
    sleep 0.05
  done
}
