# fail_running_job.sh -- sourced by the tests that check a job while it
# runs in the background: `launcher` holds its bdmpiexec's pid (empty once
# waited for), `log` its output. fail MESSAGE ends the job first, so that
# it is gone before the test's trap removes its scratch directory, then
# prints the message and the job's output and exits 1.
fail() {
  [[ -n ${launcher:-} ]] && kill "$launcher" 2>/dev/null && wait "$launcher"
  echo "FAIL: $*"; echo "--- job output:"; cat "$log"; exit 1
}
