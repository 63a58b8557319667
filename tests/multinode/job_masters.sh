# Sourced by the multinode scripts: master_of_node JOB NODE [LAUNCHER]
# prints the pid of job JOB's master of node NODE (the bdmprun with Open
# MPI rank NODE), waiting up to 30 s for it to start, and no longer than
# the process LAUNCHER (the job's bdmpiexec) lives; nothing if it never
# does. The wait is counted in seconds, not looks: at a load of 30 each
# look (a pgrep and a read per bdmprun) takes a good part of a second,
# and mpirun takes ten seconds or more to start the masters.
master_of_node() {
  local job=$1 node=$2 launcher=${3:-} pid deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    for pid in $(pgrep -f "bdmprun --job-id $job"); do
      if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$node"; then
        echo "$pid"
        return
      fi
    done
    [[ -n $launcher ]] && ! kill -0 "$launcher" 2>/dev/null && return
    sleep 0.1
  done
}
