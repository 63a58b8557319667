#!/usr/bin/env bash
# launcher_killed.sh NODES BDMPIEXEC LONG_BCAST
#
# bdmpiexec is killed with SIGKILL (it can pass nothing on) in the middle of
# a job on NODES masters: the masters must notice (they get SIGTERM through
# PR_SET_PDEATHSIG, directly or from mpirun) and end the job by themselves,
# every process gone within 10 s and nothing left.
source "$(dirname "$0")/lib.sh"
require_root
nodes=$1 bdmpiexec=$2 program=$3

start_job job "$bdmpiexec" -nn "$nodes" -ns 2 --job-id "$job" --scratch-dir "$scratch" "$program" 30
ranks_running() { (($(job_processes "$job" | wc -l) >= 1 + 3 * nodes)); }
wait_for 10 ranks_running || fail "the job did not start"
sleep 1
kill -KILL "$pid_job"
killed_ms=$(now_ms)
{ wait "$pid_job"; } 2>/dev/null
no_processes() { [[ -z $(job_processes "$job") ]]; }
wait_for 15 no_processes
elapsed_ms=$(($(now_ms) - killed_ms))
expect_within "ending the job after bdmpiexec was killed" 10
# Node 0 may hear another master's notice before its own signal: either
# way it names the cause.
expect_output job "bdmpi: node 0: (node [0-9]+: )?(its launcher \\(pid [0-9]+\\) is gone|master received signal Terminated)"
expect_no_output job "long_bcast: [0-9]+ rounds"
# The masters clean up as they end; give the last a moment.
wait_for 2 test -z "$(ipc_objects "$job")"
expect_nothing_left "$job"
echo "PASS (-nn $nodes): every process gone ${elapsed_ms} ms after bdmpiexec was killed"
