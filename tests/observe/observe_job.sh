#!/usr/bin/env bash
# observe_job.sh -- runs one job through tests/jobs/run_job.sh with the
# observability options and checks what they produced.
#
#   observe_job.sh --run-job RUN_JOB --bdmpiexec PATH [--nn N] [--ns S]
#       [--report] [--trace] [--status-after SECS] [--plot PLOTTER]
#       [--check ARG]... [run_job.sh options]... -- PROG [ARGS...]
#
# --report          --report and --report=json FILE; the table must be printed
# --trace           --trace FILE
# --check ARG       passed to check_observe.py with the files (--collective
#                   MPI_Bcast, --partial, --sent-min N, ...)
# --status-after S  sends SIGUSR1 to bdmpiexec S seconds into the job (the
#                   statuses are then checked with run_job's --expect-stderr)
# --status-command  ... runs `bdmpiexec --status JOBID` instead, which must
#                   succeed and print what every --status-expect matches
# --status-expect R an extended regex the --status-command output must match
# --status-when R   after --status-after, asks `bdmpiexec --status JOBID`
#                   until its output matches R (and, with --status-command,
#                   every --status-expect; at most 20 s) before the status
#                   checked: a loaded machine starts ranks late
# --bdmpiexec-launcher P  run_job starts the job with P instead of
#                   bdmpiexec (a wrapper; --bdmpiexec still finds the job)
# --plot PLOTTER    draws the trace with bdmpi-trace-plot; the picture must be
#                   a PNG. Skipped (77) when python3-matplotlib is missing.
# Other options go to run_job.sh, which checks the exit status, stderr and
# that nothing of the job is left behind.
set -u
here=$(cd "$(dirname "$0")" && pwd)
run_job="" bdmpiexec="" launcher="" nn=1 ns=1 report=0 trace=0 status_after="" status_command=0 status_when="" plot=""
checks=() passthrough=() status_expect=()
while (($#)); do
  case "$1" in
    --run-job) run_job=${2?}; shift 2 ;;
    --bdmpiexec) bdmpiexec=${2?}; shift 2 ;;
    --bdmpiexec-launcher) launcher=${2?}; shift 2 ;;
    --nn) nn=${2?}; shift 2 ;;
    --ns) ns=${2?}; shift 2 ;;
    --report) report=1; shift ;;
    --trace) trace=1; shift ;;
    --check) checks+=("${2?}"); shift 2 ;;
    --status-after) status_after=${2?}; shift 2 ;;
    --status-command) status_command=1; shift ;;
    --status-expect) status_expect+=("${2?}"); shift 2 ;;
    --status-when) status_when=${2?}; shift 2 ;;
    --plot) plot=${2?}; shift 2 ;;
    --) shift; break ;;
    --launcher-arg | --expect-* | --timeout | --nr | --np) passthrough+=("$1" "${2?}"); shift 2 ;;
    *) passthrough+=("$1"); shift ;;
  esac
done
if [[ -n $plot ]] && ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  echo "observe_job: python3-matplotlib is not installed: skipped"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=(--launcher bdmpiexec --bdmpiexec "${launcher:-$bdmpiexec}" --nn "$nn" --ns "$ns")
files=()
if ((report)); then
  args+=(--launcher-arg --report --launcher-arg --report=json --launcher-arg "$out/report.json"
         --expect-stderr "^bdmpi report: $((nn * ns)) rank\(s\) on $nn node\(s\)")
  files+=(--report "$out/report.json")
fi
if ((trace)); then
  args+=(--launcher-arg --trace --launcher-arg "$out/trace.json")
  files+=(--trace "$out/trace.json")
fi
# A marker among the program's arguments finds this test's bdmpiexec.
marker="observe-$$-$RANDOM"
"$run_job" "${args[@]}" "${passthrough[@]}" -- "$@" "$marker" &
job=$!
if [[ -n $status_after ]]; then
  sleep "$status_after"
  pid="" job_id=""
  for ((tries = 0; tries < 100 && ${#job_id} == 0; ++tries)); do
    pid=$(pgrep -f "^$bdmpiexec .*$marker" | head -1)
    [[ -n $pid ]] && job_id=$(tr '\0' '\n' <"/proc/$pid/cmdline" | sed -n '/^--job-id$/{n;p;q}')
    ((${#job_id})) || sleep 0.1
  done
  [[ -n $job_id ]] || { echo "observe_job: FAIL: bdmpiexec not found"; kill "$job"; exit 1; }
  if [[ -n $status_when ]]; then
    # With --status-command, also until every --status-expect matches: the
    # ranks of different nodes reach their receives in no fixed order.
    waited_for=("$status_when")
    ((status_command)) && waited_for+=("${status_expect[@]}")
    for ((tries = 0; tries < 100; ++tries)); do
      probe=$("$bdmpiexec" --status "$job_id" 2>&1)
      all=1
      for regex in "${waited_for[@]}"; do
        grep -Eq -- "$regex" <<<"$probe" || { all=0; break; }
      done
      ((all)) && break
      sleep 0.2
    done
    echo "observe_job: the status matched '$status_when' after $tries probe(s)"
  fi
  if ((status_command)); then
    asked=$EPOCHREALTIME
    "$bdmpiexec" --status "$job_id" >"$out/status.txt" ||
      { echo "observe_job: FAIL: --status $job_id"; kill "$job"; exit 1; }
    echo "observe_job: --status answered in $(awk -v a="$asked" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s:"
    cat "$out/status.txt"
    for regex in "${status_expect[@]}"; do
      grep -Eq -- "$regex" "$out/status.txt" ||
        { echo "observe_job: FAIL: the status printed does not match: $regex"; kill "$job"; exit 1; }
    done
    # One line per rank of the job, none for the slots a spawn may fill.
    listed=$(grep -c '^bdmpi:   rank ' "$out/status.txt")
    ((listed == nn * ns)) ||
      { echo "observe_job: FAIL: the status lists $listed ranks, not $((nn * ns))"; kill "$job"; exit 1; }
  else
    kill -USR1 "$pid"
  fi
fi
wait "$job" || exit $?
if ((${#files[@]})); then
  python3 "$here/check_observe.py" "${files[@]}" --nranks $((nn * ns)) --nnodes "$nn" \
    "${checks[@]}" || exit 1
fi
if [[ -n $plot ]]; then
  "$plot" "$out/trace.json" -o "$out/timeline.png" || { echo "observe_job: FAIL: plot"; exit 1; }
  [[ $(head -c 8 "$out/timeline.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
    { echo "observe_job: FAIL: $out/timeline.png is no PNG"; exit 1; }
  echo "observe_job: picture OK ($(stat -c %s "$out/timeline.png") bytes)"
fi
echo "observe_job: PASS"
