#!/usr/bin/env bash
# network_thread_placement.sh BDMPIEXEC PROGRAM [ARGS...]
#
# Runs PROGRAM on 2 masters (-nr 1, where each master pins itself to one core
# and is a batch task) and checks that each master's network thread
# ("bdmpi-network") is neither: it must run on every processor this test may
# use and under the ordinary policy, or it polls Open MPI on the core of the
# slave it should leave alone. Nor may the two masters pin
# themselves (and so their slaves) to the same processor: each started on
# CPU 0 and stayed there while the other processors idled. Then the usual
# end checks: exit 0, nothing of the job left. Skipped (77) with a single
# processor.
set -uo pipefail
source "$(dirname "$0")/left_nothing.sh"
source "$(dirname "$0")/fail_running_job.sh"
bdmpiexec=$1
shift
job=netplace$$
scratch=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$scratch" "$log"' EXIT
launcher=
allowed() { awk '$1 == "Cpus_allowed_list:" { print $2 }' "$1"; }
policy() { sed 's/.*) //' "$1" | awk '{ print $39 }'; }  # field 41 of stat
readonly SCHED_BATCH=3

mine=$(allowed /proc/self/status)
if [[ $mine =~ ^[0-9]+$ ]]; then
  echo "SKIPPED: this test may only use processor $mine"
  exit 77
fi

start=$(date +%s)
timeout -k 10 60 "$bdmpiexec" -nn 2 -ns 2 -nr 1 --job-id "$job" \
  --scratch-dir "$scratch" "$@" >"$log" 2>&1 &
launcher=$!

checked=0
masters_cpus=()
for _ in $(seq 100); do
  sleep 0.1
  threads=()
  masters_cpus=()
  for pid in $(pgrep -f "bdmprun --job-id $job"); do
    for task in /proc/$pid/task/*; do
      [[ $(cat "$task/comm" 2>/dev/null) == bdmpi-network ]] || continue
      threads+=("$task")
      masters_cpus+=("$(allowed "/proc/$pid/status")")  # the master's main thread
    done
  done
  ((${#threads[@]} == 2)) || continue
  sleep 0.5  # the thread places itself when it starts
  for task in "${threads[@]}"; do
    cpus=$(allowed "$task/status") sched=$(policy "$task/stat")
    [[ -n $cpus ]] || continue  # the job ended meanwhile
    [[ $cpus == "$mine" ]] ||
      fail "the network thread $task runs on processors $cpus, not on all of $mine"
    [[ $sched != "$SCHED_BATCH" ]] || fail "the network thread $task is a batch task"
    checked=$((checked + 1))
  done
  ((${#masters_cpus[@]} == 2)) || fail "did not find both masters while the job ran"
  [[ ${masters_cpus[0]} != "${masters_cpus[1]}" ]] ||
    fail "both masters are pinned to processor(s) ${masters_cpus[0]}"
  break
done
wait "$launcher"
status=$?
elapsed=$(($(date +%s) - start))
((checked == 2)) || fail "did not find both masters' network threads (bdmpi-network) while the job ran"
((status == 0)) || fail "the job exited $status after ${elapsed} s"
sleep 0.5
expect_nothing_left "$job" "$scratch"
echo "PASS: both network threads on processors $mine, not batch tasks; the masters on ${masters_cpus[*]}; the job ended in ${elapsed} s"
