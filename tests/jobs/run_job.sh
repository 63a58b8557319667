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
#   --timeout-skips           mpirun only: a timeout skips the test (exit
#                             status 77) instead: for the oracle run of a
#                             program on which Open MPI 4.1 itself hangs
#                             now and then (spawn), which BDMPI's runs of
#                             the same program still check
#   --launcher-arg ARG        extra launcher argument before PROG (repeatable)
#   --scratch-tmpfs SIZE      bdmpiexec: the scratch dir is a tmpfs of SIZE
#                             (e.g. 1m: a full disk). Needs root; otherwise
#                             the test is skipped (exit status 77)
#   --keep                    keep the scratch dir and logs when a check fails
#   -h, --help                print this text
#
# bdmpiexec runs get a fresh scratch dir and a unique job id:
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
# The checks read /proc and glob in bash rather than run ps and find: a
# process costs about 10 ms of CPU on the test machines, and every job test
# of the suite goes through this script.
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
job_limit_s=""
keep=0
timeout_skips=0
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
    --timeout-skips) timeout_skips=1; shift ;;
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
if ((timeout_skips)) && [[ $launcher != mpirun ]]; then
  die_usage "--timeout-skips is for --launcher mpirun only"
fi

if [[ -n $scratch_tmpfs ]] && (($(id -u) != 0)); then
  echo "run_job: SKIP: --scratch-tmpfs mounts a tmpfs, which needs root"
  exit 77
fi

failures=()
fail() {
  failures+=("$*")
}

# Globs match dot files too, and nothing when nothing matches.
shopt -s nullglob dotglob

# Sets live to the live processes of session $1. Zombies do not count: in a
# container PID 1 may never reap the orphans it inherits. A stat line is
# "pid (name) state ppid pgrp session ...", and the name may hold spaces
# and parentheses, so the fields are read after its last ") ".
live=()
find_live_in_session() {
  local stat line pid
  live=()
  for stat in /proc/[0-9]*/stat; do
    { read -r line <"$stat"; } 2>/dev/null || continue
    [[ ${line##*) } =~ ^([A-Za-z])\ -?[0-9]+\ -?[0-9]+\ ([0-9]+)\  ]] || continue
    [[ ${BASH_REMATCH[2]} == "$1" && ${BASH_REMATCH[1]} != Z ]] || continue
    pid=${stat#/proc/}
    live+=("${pid%/stat}")
  done
}

# Sets left to what the job may have left in /dev/shm and /dev/mqueue.
left=()
find_ipc_leftovers() {
  left=(/dev/shm/*"bdmpi-$job_id"* /dev/mqueue/*"bdmpi-$job_id"*)
}

mqueue_mounted() {
  local _ mount_point _rest
  while read -r _ mount_point _rest; do
    [[ $mount_point == /dev/mqueue ]] && return 0
  done </proc/mounts
  return 1
}

# Prints file $1 (mapfile, not cat: no process).
print_file() {
  local -a file_lines
  mapfile -t file_lines <"$1"
  printf '%s\n' "${file_lines[@]}"
}

# The logs and, for bdmpiexec and direct runs, the scratch dir, made by one
# mkdir: it fails rather than use a path that exists, as mktemp would.
tag=$$.$SRANDOM
logs=${TMPDIR:-/tmp}/run_job.$tag
scratch=""
job_id=""
[[ $launcher != mpirun ]] && scratch=${TMPDIR:-/tmp}/bdmpi-scratch.$tag
mkdir -m 0700 "$logs" ${scratch:+"$scratch"} || exit 1

# Removes the logs and the scratch dir (unmounting it if it is our tmpfs).
remove_work_dirs() {
  [[ -n $scratch && -n $scratch_tmpfs ]] && umount "$scratch" 2>/dev/null
  rm -rf "$logs" ${scratch:+"$scratch"}
}

# Open MPI's shared-memory segments that a job killed on a timeout left:
# those that appeared since it started (vader_before) and that no process
# maps any more (a concurrent job's are mapped while it runs).
remove_orphaned_vader_segments() {
  local segment mapped
  mapped=$(grep -hs vader_segment /proc/[0-9]*/maps)
  for segment in /dev/shm/vader_segment.*; do
    [[ -e $segment && " ${vader_before[*]} " != *" $segment "* ]] || continue
    [[ $mapped == *"$segment"* ]] || rm -f "$segment"
  done
}

if [[ $launcher != mpirun ]]; then
  # Message queues are visible as files only where the mqueue fs is mounted.
  if ! mqueue_mounted &&
    ! { mkdir -p /dev/mqueue && mount -t mqueue none /dev/mqueue; } 2>/dev/null
  then
    echo "run_job: warning: /dev/mqueue is not mounted and mounting it" \
      "failed; leftover message queues will go unnoticed" >&2
  fi
  if [[ -n $scratch_tmpfs ]] &&
    ! mount -t tmpfs -o "size=$scratch_tmpfs,mode=0700" tmpfs "$scratch"; then
    remove_work_dirs
    echo "run_job: could not mount a $scratch_tmpfs tmpfs on $scratch" >&2
    exit 1
  fi
  # Lower-case letters and digits only, so it is safe in any IPC name.
  printf -v job_id 'jt%d%08x' $$ "$SRANDOM"
fi
# MPI-IO programs put their files here (programs/io_common.h), so that the
# scratch check below also finds what they (or the runtime) left beside them.
[[ -n $scratch ]] && export JOB_IO_DIR=$scratch
# Open MPI's session directory (mpirun's, and the masters' mpirun's on
# several nodes) goes in the logs: two mpiruns that start at once in the
# shared /tmp/ompi.<host>.<uid> can fail with "mkdir ...: File exists".
export OMPI_MCA_orte_tmpdir_base=$logs
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
  # A job that hangs ends before the kill, through bdmpiexec's own time
  # limit, which prints every rank's state and blocking call first (taking
  # up to a few seconds): the log then says where it hung. Not where the
  # test sets a limit itself.
  if ((timeout_s >= 20)) && [[ -z ${MPIEXEC_TIMEOUT:-} ]] &&
    [[ " ${launcher_args[*]} " != *" --timeout "* ]]; then
    job_limit_s=$((timeout_s * 3 / 4))
    cmd+=(--timeout "$job_limit_s")
  fi
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
# behind can be found and, on a timeout or when this script is killed, be
# signalled as one group. setsid forks only when it leads a process group,
# and a background child of a shell without job control does not: it calls
# setsid() itself and execs timeout, so the session id is its pid.
vader_before=(/dev/shm/vader_segment.*)
start=$EPOCHSECONDS
setsid --wait timeout --kill-after=10 "$timeout_s" "${cmd[@]}" \
  </dev/null >"$logs/stdout" 2>"$logs/stderr" &
job_pid=$!
sid=$job_pid
# Killed (by ctest's timeout, say): end the job and remove all it and this
# script made, since nobody will check it now.
# shellcheck disable=SC2317 # called by the trap
on_signal() {
  kill -KILL "$job_pid" 2>/dev/null
  find_live_in_session "$sid"
  ((${#live[@]})) && kill -KILL "${live[@]}" 2>/dev/null
  # -r: a master's memory directory is a directory, and once the liveness
  # file is gone no later bdmpiexec knows to collect it.
  if [[ -n $job_id ]]; then
    find_ipc_leftovers
    ((${#left[@]})) && rm -rf "${left[@]}"
  fi
  remove_work_dirs
  echo "run_job: interrupted; killed the job ($what)" >&2
  exit 1
}
trap on_signal INT TERM HUP
# (2>/dev/null: no "Killed" notice from bash when a timeout kills the job.)
wait "$job_pid" 2>/dev/null
rc=$?
elapsed=$((EPOCHSECONDS - start))

if [[ -s $logs/stdout ]]; then
  echo "---- stdout of $what"
  print_file "$logs/stdout"
fi
if [[ -s $logs/stderr ]]; then
  echo "---- stderr of $what"
  print_file "$logs/stderr"
fi
echo "---- checks ($what: exit status $rc after ${elapsed}s)"

# How the job ended.
if ((elapsed >= timeout_s && timeout_skips)); then
  find_live_in_session "$sid"
  ((${#live[@]})) && kill -KILL "${live[@]}" 2>/dev/null
  remove_work_dirs
  # The killed processes unmap their segments as they exit.
  for _ in {1..40}; do
    find_live_in_session "$sid"
    ((${#live[@]})) || break
    sleep 0.05
  done
  remove_orphaned_vader_segments
  echo "run_job: SKIP: $what hung until the limit of ${timeout_s}s (Open MPI's own hang," \
    "--timeout-skips)"
  exit 77
elif ((elapsed >= timeout_s)); then
  fail "timed out after ${timeout_s}s (exit status $rc)"
elif [[ -n $job_limit_s ]] && ((rc == 124 && elapsed >= job_limit_s)); then
  fail "timed out: reached the time limit of ${job_limit_s}s (the ranks' states are above)"
  # A hang of the machine's own (a stalled processor, a task blocked in
  # the kernel, a clock that jumped) leaves a word in the kernel's log;
  # only root may read it. Not the other tests' segfaults and OOM kills.
  read -r uptime_s _ </proc/uptime
  if kernel_log=$(dmesg 2>/dev/null |
    awk -v since="$(( ${uptime_s%.*} - elapsed - 5 ))" \
      '{ t = $0; sub(/^\[ */, "", t); if (t + 0 >= since) print }' |
    grep -iE 'rcu|blocked for more|lockup|stall|clocksource|watchdog|hung' |
    tail -n 8) && [[ -n $kernel_log ]]; then
    echo "---- the kernel's last messages of stalls and clocks"
    echo "$kernel_log"
  fi
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
find_live_in_session "$sid"
grace=(1 2 3 4 5 6 7 8 9 10)
[[ $launcher == bdmpiexec ]] && grace=()
for _ in "${grace[@]}"; do
  ((${#live[@]})) || break
  sleep 0.5
  find_live_in_session "$sid"
done
if ((${#live[@]})); then
  fail "processes still running after the job:" \
    "$(ps -o pid=,stat=,args= -p "$(IFS=,; echo "${live[*]}")")"
  kill -KILL "${live[@]}" 2>/dev/null
fi

# IPC objects and spill files the job left (bdmpiexec and direct only).
if [[ $launcher != mpirun ]]; then
  find_ipc_leftovers
  if ((${#left[@]})); then
    fail "left in /dev/shm or /dev/mqueue:" "$(printf '%s\n' "${left[@]}")"
    # Remove them so they do not pile up over repeated test runs.
    ((keep)) || rm -rf "${left[@]}"
  fi
  if [[ -d $scratch ]]; then
    left=("$scratch"/*)
    ((${#left[@]})) &&
      fail "left in the scratch dir $scratch:" "$(printf '%s\n' "${left[@]:0:20}")"
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
