#!/usr/bin/env bash
# runaway.sh MODE BDMPIEXEC BDMPRUN PROGRAM LIBBDMPI
#
# No setting a user can give makes the runtime start more than the job asks
# for: each MODE is one way to send a link of the launch chain (bdmpiexec ->
# mpirun/srun -> bdmprun -> ranks; a singleton start execs bdmpiexec) back
# to an earlier one. The run either finishes normally or fails with the
# message that names the cause; either way quickly, once, and with nothing
# left. It runs in a pids cgroup (v1 or v2) whose limit a runaway would hit:
# the check is that no fork was refused, that at most the expected masters
# and launchers were ever seen, and that the cgroup is empty afterwards.
source "$(dirname "$0")/lib.sh"
require_root
mode=$1 bdmpiexec=$2 bdmprun=$3 program=$4 libbdmpi=$5

# Tasks (threads count) the cgroup may hold: a job of 2 ranks on 2 masters
# with Open MPI's threads needs far fewer; the fork bomb reached 1,500
# processes in 2 minutes.
limit=400
cgroup=""
for root in /sys/fs/cgroup/pids /sys/fs/cgroup; do
  [[ -f $root/cgroup.procs && -w $root ]] || continue
  [[ $root == /sys/fs/cgroup && ! -f $root/cgroup.subtree_control ]] && continue
  if mkdir "$root/bdmpi-runaway-$$" 2>/dev/null; then
    cgroup=$root/bdmpi-runaway-$$
    break
  fi
done
if [[ -z $cgroup || ! -f $cgroup/pids.max ]]; then
  [[ -n $cgroup ]] && rmdir "$cgroup"
  echo "SKIP: no pids cgroup to contain a runaway in"
  exit 77
fi
echo "$limit" >"$cgroup/pids.max"
seen=$logs/seen
cleanup_cgroup() {
  local pid
  for pid in $(cat "$cgroup/cgroup.procs" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  wait_for 5 test -z "$(cat "$cgroup/cgroup.procs" 2>/dev/null)"
  rmdir "$cgroup" 2>/dev/null
  on_exit
}
trap cleanup_cgroup EXIT

# contained NAME SECONDS COMMAND...: runs COMMAND in the cgroup, killed
# after SECONDS; records every (pid, name) seen in it meanwhile.
contained() {
  local name=$1 seconds=$2
  shift 2
  start_job "$name" bash -c 'echo $$ >"$0/cgroup.procs" && exec timeout -s KILL "$@"' \
    "$cgroup" "$seconds" "$@"
  local pid_var="pid_$name" pid
  while kill -0 "${!pid_var}" 2>/dev/null; do
    for pid in $(cat "$cgroup/cgroup.procs"); do
      echo "$pid $(cat "/proc/$pid/comm" 2>/dev/null)"
    done >>"$seen"
    sleep 0.02
  done
  finish_job "$name"
}

# expect_at_most NAME COUNT: processes named NAME seen in the cgroup, by
# the last name each had (a process that was gone has none): a child
# forked by bdmpiexec is named bdmpiexec until it execs bdmprun, and a look
# in between must not count it.
expect_at_most() {
  local count
  count=$(awk -v name="$1" 'NF >= 2 { last[$1] = $2 } END { for (p in last) n += last[p] == name; print n + 0 }' "$seen")
  ((count <= $2)) || fail "$count processes named $1 were started, at most $2 expected"
}

expect_contained() {
  local refused
  refused=$(awk '$1 == "max" { print $2 }' "$cgroup/pids.events")
  ((refused == 0)) || fail "$refused fork(s) hit the limit of $limit tasks: a runaway"
  wait_for 10 test -z "$(cat "$cgroup/cgroup.procs")" ||
    fail "processes left: $(ps -o pid=,args= -p "$(paste -sd, "$cgroup/cgroup.procs")")"
  expect_nothing_left "$job"
  [[ -z $(ls -A "$scratch") ]] || fail "left in the scratch directory: $(ls -A "$scratch")"
}

job_args=(--scratch-dir "$scratch" --job-id "$job")
touch "$seen"
fake_bin=$logs/bin
mkdir -p "$fake_bin"
masters=1 launchers=1
case $mode in
  preload_x)  # the fork bomb of the past: a preload meant for the ranks
    contained job 30 "$bdmpiexec" -n 2 "${job_args[@]}" -x LD_PRELOAD="$libbdmpi" "$program"
    expect_exit "bdmpiexec -x LD_PRELOAD=libbdmpi" 0 ;;
  preload_env)  # the same in bdmpiexec's own environment
    contained job 30 env LD_PRELOAD="$libbdmpi" "$bdmpiexec" -n 2 "${job_args[@]}" "$program"
    expect_exit "LD_PRELOAD=libbdmpi bdmpiexec" 0 ;;
  preload_mpirun)  # through mpirun to two masters
    masters=2
    contained job 60 "$bdmpiexec" -nn 2 -ns 1 "${job_args[@]}" -x LD_PRELOAD="$libbdmpi" \
      "$program"
    expect_exit "bdmpiexec -nn 2 -x LD_PRELOAD=libbdmpi" 0 ;;
  preload_singleton)  # a program started directly, with the preload
    contained job 30 env LD_PRELOAD="$libbdmpi" \
      BDMPI_SINGLETON_OPTIONS="${job_args[*]}" BDMPI_BDMPIEXEC="$bdmpiexec" "$program"
    expect_exit "LD_PRELOAD=libbdmpi ./prog" 0 ;;
  preload_masters)  # mpirun told to preload libbdmpi into the masters
    masters=2
    contained job 60 "$bdmpiexec" -nn 2 -ns 1 "${job_args[@]}" --launcher-arg -x \
      --launcher-arg LD_PRELOAD="$libbdmpi" "$program"
    expect_exit "mpirun -x LD_PRELOAD=libbdmpi" nonzero
    expect_output job "bdmprun: .*libbdmpi.* is loaded into the master \\(LD_PRELOAD=.*refuses to start" ;;
  srun_preloads)  # an srun (a site's wrapper, say) that preloads libbdmpi
    printf '#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do case $1 in -N|-n) shift 2;; *) shift;; esac; done\nLD_PRELOAD=%q exec "$@"\n' \
      "$libbdmpi" >"$fake_bin/srun"
    chmod +x "$fake_bin/srun"
    contained job 30 env PATH="$fake_bin:$PATH" "$bdmpiexec" --launcher srun -nn 1 -ns 2 \
      "${job_args[@]}" "$program"
    expect_exit "srun with LD_PRELOAD=libbdmpi" nonzero
    expect_output job "bdmprun: .*libbdmpi.* is loaded into the master" ;;
  srun_reruns)  # an srun that runs bdmpiexec again
    launchers=2
    printf '#!/bin/sh\nexec %q -n 2 %q\n' "$bdmpiexec" "$program" >"$fake_bin/srun"
    chmod +x "$fake_bin/srun"
    contained job 30 env PATH="$fake_bin:$PATH" "$bdmpiexec" --launcher srun -nn 1 -ns 2 \
      "${job_args[@]}" "$program"
    expect_exit "srun running bdmpiexec" nonzero
    expect_output job "bdmpiexec: started inside the launch of another bdmpiexec" ;;
  bdmprun_is_bdmpiexec)
    launchers=2 masters=0
    contained job 30 env BDMPI_BDMPRUN="$bdmpiexec" "$bdmpiexec" -n 2 "${job_args[@]}" "$program"
    expect_exit "BDMPI_BDMPRUN=bdmpiexec" nonzero
    expect_output job "bdmpiexec: started inside the launch of another bdmpiexec" ;;
  bdmprun_is_program)  # an MPI program as the master: its MPI_Init refuses
    masters=0
    contained job 30 env BDMPI_BDMPRUN="$program" "$bdmpiexec" -n 2 "${job_args[@]}" "$program"
    expect_exit "BDMPI_BDMPRUN=./prog" nonzero
    expect_output job "libbdmpi's MPI_Init was called in .*, a process of the launch of bdmpiexec" ;;
  mpirun_is_bdmpiexec)
    launchers=2 masters=0
    contained job 30 env BDMPI_MPIRUN="$bdmpiexec" "$bdmpiexec" -nn 2 -ns 1 "${job_args[@]}" \
      "$program"
    expect_exit "BDMPI_MPIRUN=bdmpiexec" nonzero
    expect_output job "bdmpiexec: started inside the launch of another bdmpiexec" ;;
  singleton_loop)  # a singleton start whose launcher is the program itself
    masters=0 launchers=0
    contained job 30 env BDMPI_BDMPIEXEC="$program" "$program"
    expect_exit "BDMPI_BDMPIEXEC=./prog ./prog" nonzero
    expect_output job "started by its own singleton start .* ran it again instead of starting a job" ;;
  rank_child)  # a child of a rank, its job id removed: no job of its own
    contained job 30 "$bdmpiexec" -n 2 "${job_args[@]}" /bin/sh -c \
      'env -u BDMPI_JOB_ID "$0"; exit $?' "$program"
    expect_exit "a rank's child calling MPI_Init" nonzero
    expect_output job "descends from a rank of a BDMPI job .* refuses to start a job of its own" ;;
  set_by_hand)  # the runtime's own variables, set by hand or with -x
    contained job 30 env BDMPI_JOB_ID=bogus BDMPI_NODE=7 BDMPI_SLAVE=9 BDMPI_MASTER_PID=1 \
      BDMPI_SLAVE_TOKEN=1 BDMPI_SPILL_DIR=/nonexistent BDMPI_DEFER_POSTS=1 \
      BDMPI_SINGLETON_START=1 "$bdmpiexec" -n 2 "${job_args[@]}" -x BDMPI_IN_LAUNCH=1 \
      -x BDMPI_WORLD_SIZE=99 -x BDMPI_SINGLETON_START=1 "$program"
    expect_exit "BDMPI_* set by hand" 0 ;;
  in_launch_by_hand)  # bdmpiexec refuses and says what to unset
    masters=0
    contained job 30 env BDMPI_IN_LAUNCH=1 "$bdmpiexec" -n 2 "${job_args[@]}" "$program"
    expect_exit "BDMPI_IN_LAUNCH=1 bdmpiexec" 2
    expect_output job "started inside the launch of another bdmpiexec .*unset it" ;;
  job_id_direct)  # a job id set by hand, the program started directly
    masters=0 launchers=0
    contained job 30 env BDMPI_JOB_ID="$job" "$program"
    expect_exit "BDMPI_JOB_ID=... ./prog" nonzero
    expect_output job "must be started with bdmpiexec \\(BDMPI_NODE is not set\\)" ;;
  nested_job)  # ranks that are launchers: the jobs they ask for, no more
    launchers=3 masters=3
    contained job 30 "$bdmpiexec" -n 2 "${job_args[@]}" "$bdmpiexec" -n 2 "$program"
    expect_exit "bdmpiexec -n 2 bdmpiexec -n 2 ./prog" 0 ;;
  *) echo "runaway.sh: unknown mode $mode" >&2; exit 2 ;;
esac
expect_within "the run" 20
expect_at_most bdmprun "$masters"
expect_at_most bdmpiexec "$launchers"
expect_contained
processes=$(sort -u "$seen" | wc -l)
echo "PASS ($mode): exit $rc after ${elapsed_ms} ms; $processes processes seen," \
  "at most $(cat "$cgroup/pids.peak" 2>/dev/null || echo '?') tasks at once; none left"
