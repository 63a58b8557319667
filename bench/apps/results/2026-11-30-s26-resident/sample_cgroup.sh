#!/usr/bin/env bash
# sample_cgroup.sh OUT [PERIOD]: while a bench/apps/run.sh invocation runs,
# appends every PERIOD seconds (default 0.1) a line "time usage key=value..."
# of the newest bdmpi-apps-<pid> memory cgroup (v1) to OUT. Ends when no
# such cgroup is left after one was seen.
out=$1 period=${2:-0.1}
keys='cache rss mapped_file shmem active_file inactive_file active_anon inactive_anon dirty writeback swap workingset_refault_file'
seen=0
while :; do
  cg=$(ls -d /sys/fs/cgroup/memory/bdmpi-apps-[0-9]* 2>/dev/null | head -1)
  if [[ -z $cg ]]; then ((seen)) && break; sleep "$period"; continue; fi
  seen=1
  usage=$(cat "$cg/memory.usage_in_bytes" 2>/dev/null) || continue
  stat=$(awk -v k="$keys" 'BEGIN { n = split(k, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
         ($1 in want) { printf " %s=%s", $1, $2 }' "$cg/memory.stat" 2>/dev/null)
  echo "$EPOCHREALTIME usage=$usage$stat" >>"$out"
  sleep "$period"
done
