#!/usr/bin/env bash
# status_gone.sh BDMPIEXEC -- `bdmpiexec --status` for a job that does not
# run here ends with status 1 and says so, at once.
set -u
start=$SECONDS
out=$("${1:?}" --status "no-such-job-$$" 2>&1)
status=$?
echo "$out"
((status == 1)) || { echo "status_gone: FAIL: exit status $status, not 1"; exit 1; }
[[ $out =~ "job no-such-job-$$ has no master on this host" ]] ||
  { echo "status_gone: FAIL: no clear message"; exit 1; }
((SECONDS - start < 5)) || { echo "status_gone: FAIL: took $((SECONDS - start)) s"; exit 1; }
echo "status_gone: PASS"
