#!/usr/bin/env bash
# two_jobs.sh -- two jobs started independently meet by name
# (programs/two_jobs.c): each through run_job.sh, which checks how it ended
# and what it left; then the user's rendezvous directory is checked.
#
#   two_jobs.sh bdmpi  RUN_JOB BDMPIEXEC PROG
#   two_jobs.sh mpirun RUN_JOB MPIRUN PROG      (Open MPI, with ompi-server)
#
# bdmpi: job A (-n 2 -nr 1) and job B (-nn 2 -n 3 -nr 1: two nodes of
# this host) at once, then three
# jobs (-n 2, 1, 1, -nr 1) that join one communicator, then a job
# that publishes a name and kills its master (the name must go with it),
# then a job that connects to another (-n 2 -nr 1) and kills its master:
# the other must end with an error naming the dead job, not hang.
# The rendezvous directory is a fresh XDG_RUNTIME_DIR's, so that other
# tests' names are not seen, and must be gone (empty) at the end.
set -u
(($# == 4)) || { sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
mode=$1 run_job=$2 launcher=$3 prog=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/two_jobs.XXXXXX") || exit 1
server=
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
export TWO_JOBS_RUN=$$
failed=0
fail() {
  echo "two_jobs: FAIL: $*"
  failed=1
}

# run_grow ARGS: three jobs (2 ranks, then 1 and 1) join one communicator
# one job at a time (two_jobs grow), each through run_job.sh with ARGS.
run_grow() {
  local -a pids=()
  local i
  for i in 0 1 2; do
    "$run_job" "$@" --np $((i == 0 ? 2 : 1)) -- "$prog" grow "$work" "$i" \
      >"$work/grow$i.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2; do
    wait "${pids[i]}" || fail "growing job $i"
    echo "==== growing job $i"
    cat "$work/grow$i.log"
  done
}

# run_both ARGS_A -- ARGS_B: the two jobs at once, each through run_job.sh.
run_both() {
  local -a args_a=() args_b=()
  while [[ $1 != -- ]]; do args_a+=("$1"); shift; done
  shift
  args_b=("$@")
  "$run_job" "${args_a[@]}" -- "$prog" a "$work" >"$work/a.log" 2>&1 &
  local pid_a=$!
  "$run_job" "${args_b[@]}" -- "$prog" b "$work" >"$work/b.log" 2>&1 &
  local pid_b=$!
  wait "$pid_a"
  local rc_a=$?
  wait "$pid_b"
  local rc_b=$?
  echo "==== job A"
  cat "$work/a.log"
  echo "==== job B"
  cat "$work/b.log"
  ((rc_a == 0)) || fail "job A (exit status $rc_a)"
  ((rc_b == 0)) || fail "job B (exit status $rc_b)"
}

if [[ $mode == bdmpi ]]; then
  export XDG_RUNTIME_DIR=$work/runtime
  mkdir -m 0700 "$XDG_RUNTIME_DIR"
  common=(--launcher bdmpiexec --bdmpiexec "$launcher" --timeout 60)
  run_both "${common[@]}" --np 2 --nr 1 -- "${common[@]}" --nn 2 --np 3 --nr 1
  run_grow "${common[@]}" --nr 1
  [[ -e $XDG_RUNTIME_DIR/bdmpi ]] && fail "left in the rendezvous directory:" \
    "$(ls -la "$XDG_RUNTIME_DIR/bdmpi")"
  # A job whose master dies: its launcher collects its names.
  echo "==== a job that publishes a name and kills its master"
  "$run_job" "${common[@]}" --np 2 --nr 1 --expect-exit nonzero \
    --expect-stderr "master|bdmprun" -- "$prog" hold "$work" ||
    fail "the job that killed its master"
  [[ -s $work/hold.port ]] || fail "the job that killed its master published nothing"
  [[ -e $XDG_RUNTIME_DIR/bdmpi ]] && fail "a dead job's name is left:" \
    "$(ls -la "$XDG_RUNTIME_DIR/bdmpi")"
  echo "==== a job whose connected job dies"
  "$run_job" "${common[@]}" --np 2 --nr 1 --expect-exit nonzero \
    --expect-stderr "connection to rank [0-9] of the other job .* ended" \
    -- "$prog" stay "$work" >"$work/stay.log" 2>&1 &
  stay=$!
  "$run_job" "${common[@]}" --np 2 --nr 1 --expect-exit nonzero \
    --expect-stderr "master|bdmprun" -- "$prog" quit "$work" >"$work/quit.log" 2>&1
  rc_quit=$?
  wait "$stay"
  rc_stay=$?
  cat "$work/stay.log" "$work/quit.log"
  ((rc_quit == 0)) || fail "the job that connected and killed its master"
  ((rc_stay == 0)) || fail "the job whose connected job died"
elif [[ $mode == mpirun ]]; then
  ompi_server=$(dirname "$(command -v "$launcher")")/ompi-server
  [[ -x $ompi_server ]] || ompi_server=ompi-server
  # (ompi-server has no --allow-run-as-root; root needs both variables.)
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    "$ompi_server" --no-daemonize --report-uri "$work/uri" >"$work/server.log" 2>&1 &
  server=$!
  for ((i = 0; i < 200; ++i)); do
    [[ -s $work/uri ]] && break
    sleep 0.05
  done
  [[ -s $work/uri ]] || { cat "$work/server.log"; fail "ompi-server wrote no URI"; exit 1; }
  common=(--launcher mpirun --mpirun "$launcher" --timeout 60
          --launcher-arg --ompi-server --launcher-arg "file:$work/uri")
  run_both "${common[@]}" --np 2 -- "${common[@]}" --np 3
  # No run_grow here: with two tests at once, three mpiruns connecting
  # through one ompi-server hung until the time limit in 2 runs of about 20
  # (Open MPI's side, not the program's); MPICH's testconnect, the same
  # pattern, passed by hand under Open MPI with 2, 3 and 4 jobs.
else
  echo "two_jobs: unknown mode '$mode'" >&2
  exit 2
fi
((failed)) && exit 1
echo "two_jobs: PASS"
