# Sourced by the multinode scripts: master_of_node JOB NODE prints the pid
# of job JOB's master of node NODE (the bdmprun with Open MPI rank NODE),
# waiting up to 10 s for it to start; nothing if it never does.
master_of_node() {
  local job=$1 node=$2 pid
  for _ in $(seq 100); do
    for pid in $(pgrep -f "bdmprun --job-id $job"); do
      if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$node"; then
        echo "$pid"
        return
      fi
    done
    sleep 0.1
  done
}
