#!/usr/bin/env bash
# python_job.sh RUN_JOB_ARGS... -- PYTHON SCRIPT ARGS...: run_job.sh, or
# "skipped" (77) when PYTHON has no numpy (scripts/install-deps.sh installs
# python3-numpy).
python=""
for ((i = 1; i <= $#; ++i)); do
  if [[ ${!i} == -- ]]; then j=$((i + 1)); python=${!j}; break; fi
done
if ! "$python" -c 'import numpy' 2>/dev/null; then
  echo "SKIP: $python has no numpy (apt-get install python3-numpy)"
  exit 77
fi
exec "$(dirname "$0")/../jobs/run_job.sh" "$@"
