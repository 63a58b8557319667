#!/usr/bin/env bash
# run_job.sh -- run one MPI job test and check how it ended and what it left.
#
# Usage:
#   run_job.sh --launcher bdmpiexec --bdmpiexec PATH [--nn N] [--np N]
#              [--ns S] [--nr R] [common options] -- PROG [ARGS...]
#              (--np N: mpiexec's -n N; each count is passed when given)
#   run_job.sh --launcher mpirun [--mpirun PATH] --np N
#              [common options] -- PROG [ARGS...]
#   run_job.sh --launcher direct [common options] -- PROG [ARGS...]
#
# Common options:
#   --expect-exit N|nonzero   exit status the job must end with (default 0)
#   --expect-stderr REGEX     extended regex a line of the job's stderr must
#                             match (repeatable: each must)
#   --expect-stderr-lines N   stderr must have exactly N lines (a message
#                             printed once, and no launcher noise)
#   --expect-stdout REGEX     extended regex the job's stdout must match
#   --timeout SECS            kill the job after SECS seconds (default 300);
#                             a timeout always fails, whatever is expected
#   --launcher-arg ARG        extra launcher argument before PROG (repeatable)
#   --scratch-tmpfs SIZE      bdmpiexec: the scratch dir is a tmpfs of SIZE
#                             (e.g. 1m: a full disk). Needs root; otherwise
#                             the test is skipped (exit status 77)
#   --keep                    keep the scratch dir and logs when a check fails
#   -h, --help                print this text
#
# bdmpiexec runs get a fresh scratch dir (mktemp -d) and a unique job id:
#   bdmpiexec [-nn N] [-n N] [-ns S] [-nr R] --scratch-dir DIR --job-id ID
#             PROG ARGS...
# and afterwards, pass or fail, must have left nothing behind: no entry
# containing "bdmpi-ID" in /dev/shm or /dev/mqueue, an empty DIR (which is
# then removed; the job sees it as JOB_IO_DIR, for its MPI-IO files) and no process of the job's session still running.
# direct runs start PROG itself, which makes itself a job of one rank
# (singleton MPI_Init), with BDMPI_SINGLETON_OPTIONS="--scratch-dir DIR
# --job-id ID" and the same checks.
# mpirun runs (Open MPI, to validate the programs themselves) get
# --oversubscribe (and --allow-run-as-root as root) and the process check.
#
# Exit status: 0 if every check passed, 1 if one failed, 2 on a usage error,
# 77 if the test cannot run here (skipped).
# The job's stdout and stderr are printed after it ends, then one line per
# failed check and a final "run_job: PASS" or "run_job: FAIL" line.

set -u

usage() {
  sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
  exit "${1:-2}"
}

die_usage() {
  echo "run_job: $*" >&2
  exit 2
}

launcher=bdmpiexec
bdmpiexec=bdmpiexec
mpirun=mpirun
ns="" nr="" nn="" np=""
expect_exit=0
expect_stderr=()
expect_stderr_lines=""
expect_stdout=""
timeout_s=300
keep=0
scratch_tmpfs=""
launcher_args=()

while (($#)); do
  case "$1" in
    --launcher) launcher=${2?}; shift 2 ;;
    --bdmpiexec) bdmpiexec=${2?}; shift 2 ;;
    --mpirun) mpirun=${2?}; shift 2 ;;
    --ns) ns=${2?}; shift 2 ;;
    --nr) nr=${2?}; shift 2 ;;
    --nn) nn=${2?}; shift 2 ;;
    --np) np=${2?}; shift 2 ;;
    --expect-exit) expect_exit=${2?}; shift 2 ;;
    --expect-stderr) expect_stderr+=("${2?}"); shift 2 ;;
    --expect-stderr-lines) expect_stderr_lines=${2?}; shift 2 ;;
    --expect-stdout) expect_stdout=${2?}; shift 2 ;;
    --timeout) timeout_s=${2?}; shift 2 ;;
    --launcher-arg) launcher_args+=("${2?}"); shift 2 ;;
    --scratch-tmpfs) scratch_tmpfs=${2?}; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) usage 0 ;;
    --) shift; break ;;
    *) die_usage "unknown option '$1' (see --help)" ;;
  esac
done
(($#)) || die_usage "no program given after --"

is_count() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
[[ $expect_exit == nonzero || $expect_exit =~ ^[0-9]+$ ]] ||
  die_usage "--expect-exit takes a number or 'nonzero', not '$expect_exit'"
is_count "$timeout_s" || die_usage "--timeout takes seconds, not '$timeout_s'"

case "$launcher" in
  bdmpiexec)
    for count in "$ns" "$nr" "$nn" "$np"; do
      [[ -z $count ]] || is_count "$count" || die_usage "'$count' is not a count"
    done
    [[ -x $bdmpiexec ]] || command -v "$bdmpiexec" >/dev/null ||
      die_usage "bdmpiexec '$bdmpiexec' is not executable"
    ;;
  mpirun)
    is_count "$np" || die_usage "mpirun needs --np N"
    ;;
  direct) ;;
  *) die_usage "--launcher is bdmpiexec, mpirun or direct, not '$launcher'" ;;
esac

if [[ -n $scratch_tmpfs ]] && (($(id -u) != 0)); then
  echo "run_job: SKIP: --scratch-tmpfs mounts a tmpfs, which needs root"
  exit 77
fi

failures=()
fail() {
  failures+=("$*")
}

# Live processes of session $1. Zombies do not count: in a container PID 1
# may never reap the orphans it inherits.
live_in_session() {
  ps -o pid=,stat= -s "$1" 2>/dev/null | awk '$2 !~ /^Z/ { print $1 }'
}

# What the job may have left in /dev/shm and /dev/mqueue, one path a line.
ipc_leftovers() {
  local dir
  for dir in /dev/shm /dev/mqueue; do
    [[ -d $dir ]] && find "$dir" -maxdepth 1 -name "*bdmpi-$job_id*" 2>/dev/null
  done
}

logs=$(mktemp -d "${TMPDIR:-/tmp}/run_job.XXXXXX") || exit 1
scratch=""
job_id=""

# Removes the logs and the scratch dir (unmounting it if it is our tmpfs).
remove_work_dirs() {
  rm -rf "$logs"
  [[ -n $scratch ]] || return 0
  [[ -n $scratch_tmpfs ]] && umount "$scratch" 2>/dev/null
  rm -rf "$scratch"
}

if [[ $launcher != mpirun ]]; then
  # Message queues are visible as files only where the mqueue fs is mounted.
  if ! mountpoint -q /dev/mqueue 2>/dev/null &&
    ! { mkdir -p /dev/mqueue && mount -t mqueue none /dev/mqueue; } 2>/dev/null
  then
    echo "run_job: warning: /dev/mqueue is not mounted and mounting it" \
      "failed; leftover message queues will go unnoticed" >&2
  fi
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/bdmpi-scratch.XXXXXX") || exit 1
  if [[ -n $scratch_tmpfs ]] &&
    ! mount -t tmpfs -o "size=$scratch_tmpfs,mode=0700" tmpfs "$scratch"; then
    remove_work_dirs
    echo "run_job: could not mount a $scratch_tmpfs tmpfs on $scratch" >&2
    exit 1
  fi
  # Lower-case letters and digits only, so it is safe in any IPC name.
  job_id="jt$$$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')"
fi
# MPI-IO programs put their files here (programs/io_common.h), so that the
# scratch check below also finds what they (or the runtime) left beside them.
[[ -n $scratch ]] && export JOB_IO_DIR=$scratch
if [[ $launcher == direct ]]; then
  export BDMPI_SINGLETON_OPTIONS="--scratch-dir $scratch --job-id $job_id"
  cmd=()
  what="singleton"
elif [[ $launcher == bdmpiexec ]]; then
  cmd=("$bdmpiexec")
  [[ -n $nn ]] && cmd+=(-nn "$nn")
  [[ -n $np ]] && cmd+=(-n "$np")
  [[ -n $ns ]] && cmd+=(-ns "$ns")
  [[ -n $nr ]] && cmd+=(-nr "$nr")
  cmd+=(--scratch-dir "$scratch" --job-id "$job_id")
  what="${bdmpiexec##*/} ${nn:+-nn $nn }${np:+-n $np }${ns:+-ns $ns }${nr:+-nr $nr}"
else
  # Its ranks yield the core while they poll, so two oracle jobs (ctest
  # runs them beside another test) share the two cores without starving.
  cmd=("$mpirun" --oversubscribe --mca mpi_yield_when_idle 1)
  (($(id -u) == 0)) && cmd+=(--allow-run-as-root)
  cmd+=(-np "$np")
  what="mpirun -np $np"
fi
cmd+=("${launcher_args[@]}" "$@")
what="$what ${*}"

# The job runs in its own session, so that afterwards every process it left
# behind can be found (pgrep -s) and, on a timeout or when this script is
# killed, be signalled as one group. The inner shell records the session id
# (its own pid: setsid makes it the session leader) before exec'ing timeout.
sid_file=$logs/sid
start=$(date +%s)
# shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
setsid --wait bash -c 'echo $$ >"$0"; exec "$@"' "$sid_file" \
  timeout --kill-after=10 "$timeout_s" "${cmd[@]}" \
  </dev/null >"$logs/stdout" 2>"$logs/stderr" &
job_pid=$!
# Killed (by ctest's timeout, say): end the job and remove all it and this
# script made, since nobody will check it now.
# shellcheck disable=SC2317 # called by the trap
on_signal() {
  kill -KILL "$job_pid" 2>/dev/null
  if [[ -s $sid_file ]]; then
    for pid in $(live_in_session "$(cat "$sid_file")"); do
      kill -KILL "$pid" 2>/dev/null
    done
  fi
  # -r: a master's memory directory is a directory, and once the liveness
  # file is gone no later bdmpiexec knows to collect it.
  [[ -n $job_id ]] && ipc_leftovers | xargs -r rm -rf
  remove_work_dirs
  echo "run_job: interrupted; killed the job ($what)" >&2
  exit 1
}
trap on_signal INT TERM HUP
# (2>/dev/null: no "Killed" notice from bash when a timeout kills the job.)
wait "$job_pid" 2>/dev/null
rc=$?
elapsed=$(($(date +%s) - start))
sid=$(cat "$sid_file" 2>/dev/null || true)

if [[ -s $logs/stdout ]]; then
  echo "---- stdout of $what"
  cat "$logs/stdout"
fi
if [[ -s $logs/stderr ]]; then
  echo "---- stderr of $what"
  cat "$logs/stderr"
fi
echo "---- checks ($what: exit status $rc after ${elapsed}s)"

# How the job ended.
if ((elapsed >= timeout_s)); then
  fail "timed out after ${timeout_s}s (exit status $rc)"
elif [[ $expect_exit == nonzero ]]; then
  ((rc != 0)) || fail "exit status 0, expected a failure"
elif ((rc != expect_exit)); then
  fail "exit status $rc, expected $expect_exit"
fi
for regex in "${expect_stderr[@]}"; do
  grep -Eq -- "$regex" "$logs/stderr" || fail "stderr does not match /$regex/"
done
if [[ -n $expect_stderr_lines ]]; then
  lines=$(wc -l <"$logs/stderr")
  ((lines == expect_stderr_lines)) ||
    fail "stderr has $lines line(s), expected $expect_stderr_lines"
fi
if [[ -n $expect_stdout ]] && ! grep -Eq -- "$expect_stdout" "$logs/stdout"; then
  fail "stdout does not match /$expect_stdout/"
fi

# Processes of the job still alive after the launcher ended. bdmpiexec
# returns only once every process it started is gone (its descendants);
# mpirun or a singleton may leave those it is killing a few seconds to go.
if [[ -n $sid ]]; then
  survivors=$(live_in_session "$sid")
  grace=(1 2 3 4 5 6 7 8 9 10)
  [[ $launcher == bdmpiexec ]] && grace=()
  for _ in "${grace[@]}"; do
    [[ -z $survivors ]] && break
    sleep 0.5
    survivors=$(live_in_session "$sid")
  done
  if [[ -n $survivors ]]; then
    fail "processes still running after the job:" \
      "$(ps -o pid=,stat=,args= -p "$(paste -sd, <<<"$survivors")")"
    for pid in $survivors; do kill -KILL "$pid" 2>/dev/null; done
  fi
else
  fail "could not learn the job's session id (did the launcher start?)"
fi

# IPC objects and spill files the job left (bdmpiexec and direct only).
if [[ $launcher != mpirun ]]; then
  left=$(ipc_leftovers)
  if [[ -n $left ]]; then
    fail "left in /dev/shm or /dev/mqueue:" "$left"
    # Remove them so they do not pile up over repeated test runs.
    ((keep)) || xargs rm -rf <<<"$left"
  fi
  if [[ -d $scratch ]]; then
    left=$(find "$scratch" -mindepth 1 2>/dev/null | head -20)
    [[ -z $left ]] || fail "left in the scratch dir $scratch:" "$left"
  fi
fi

if ((${#failures[@]})); then
  for f in "${failures[@]}"; do echo "run_job: FAIL: $f"; done
  if ((keep)); then
    echo "run_job: kept logs in $logs${scratch:+ and scratch dir $scratch}"
  else
    remove_work_dirs
  fi
  echo "run_job: FAIL ($what)"
  exit 1
fi
remove_work_dirs
echo "run_job: PASS ($what)"
exit 0
