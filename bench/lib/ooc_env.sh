# ooc_env.sh -- the machinery of the out-of-core benchmarks (bench/ooc/run.sh,
# bench/apps/run.sh): a memory cgroup (v1) for every run, a swap file for
# the runs that rely on swap, the page cache dropped before each run, a
# wall-clock cap, and removal of all of it when the script ends.
# Sourced, not run. The sourcing script sets before calling anything here:
#   out   results directory (logs go to $out/logs)
#   work  scratch directory of this invocation (TMPDIR of the runs: $work/tmp)
#   cap   wall-clock cap per run, seconds
#   cg    path of the cgroup to create (ooc_cgroup_path gives one)
# and may set STAMP_ECHO, a regex: output lines matching it are echoed to
# stderr as progress (default: ITER and RESULT lines).
# shellcheck shell=bash disable=SC2034,SC2154 # variables shared with the sourcing script

cg_root=/sys/fs/cgroup/memory
current_job=""
swap_on=0
swapfile=""

# "2g" -> bytes (powers of 1024), as the applications parse sizes.
parse_size() {
  local text=$1 what=$2
  [[ $text =~ ^([0-9]+)([kKmMgG]?)$ ]] || die "$what: not a size: '$text' (e.g. 512m, 2g)"
  local n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2],,}
  case $unit in
    k) echo $((n << 10)) ;; m) echo $((n << 20)) ;; g) echo $((n << 30)) ;;
    *) echo "$n" ;;
  esac
}
mib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }

# ooc_check_host: root, a cgroup v1 memory controller, the tools.
ooc_check_host() {
  (($(id -u) == 0)) || die "must run as root (swap file, memory cgroup, drop_caches)"
  [[ -f $cg_root/memory.limit_in_bytes ]] ||
    die "no cgroup v1 memory controller at $cg_root (this benchmark needs one)"
  local tool
  for tool in fallocate mkswap swapon swapoff dd awk setsid timeout df; do
    command -v "$tool" >/dev/null || die "'$tool' not found"
  done
}

# ooc_need_gnuplot: installs gnuplot-nox from Debian when missing (the plot
# is optional: a warning when that fails).
ooc_need_gnuplot() {
  command -v gnuplot >/dev/null && return 0
  say "installing gnuplot-nox for the plot"
  { apt-get install -y gnuplot-nox || { apt-get update && apt-get install -y gnuplot-nox; }; } \
    >/dev/null 2>&1 || say "warning: could not install gnuplot-nox; no plot will be made"
}

# The cgroup's processes (all the jobs' processes and only them).
cg_pids() { [[ -f $cg/cgroup.procs ]] && cat "$cg/cgroup.procs" 2>/dev/null; }
kill_cg() {
  local pid
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [[ -z $(cg_pids) ]] && return 0
    for pid in $(cg_pids); do kill -KILL "$pid" 2>/dev/null; done
    sleep 0.5
  done
  [[ -z $(cg_pids) ]]
}

# ooc_make_swap FILE BYTES: a swap file, on.
ooc_make_swap() {
  swapfile=$1
  fallocate -l "$2" "$swapfile" || die "fallocate of a $(mib "$2") MiB swap file $swapfile failed"
  chmod 600 "$swapfile"
  mkswap "$swapfile" >/dev/null || die "mkswap $swapfile failed"
  swapon "$swapfile" || die "swapon $swapfile failed"
  swap_on=1
}

# ooc_make_cgroup LIMIT_BYTES: creates $cg with that limit; sets limit_real.
ooc_make_cgroup() {
  mkdir "$cg" || die "cannot create the memory cgroup $cg"
  echo "$1" >"$cg/memory.limit_in_bytes" || die "cannot set memory.limit_in_bytes of $cg"
  limit_real=$(cat "$cg/memory.limit_in_bytes")
}

# ooc_teardown: ends the current run, kills what is left in the cgroup and
# removes it, turns the swap file off and deletes it. Appends what it could
# not remove to the array ooc_left.
ooc_teardown() {
  local pid my_cg
  ooc_left=()
  [[ -n $current_job ]] && kill -TERM "$current_job" 2>/dev/null
  if [[ -d $cg ]]; then
    kill_cg || ooc_left+=("processes still in $cg: $(cg_pids | tr '\n' ' ')")
    # Anything that would not die goes back to where this script runs, so
    # that the cgroup can go.
    if [[ -n $(cg_pids) ]]; then
      my_cg=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
      for pid in $(cg_pids); do echo "$pid" >"$cg_root$my_cg/cgroup.procs" 2>/dev/null; done
    fi
    rmdir "$cg" 2>/dev/null || ooc_left+=("cgroup $cg (rmdir failed)")
  fi
  [[ -n $current_job ]] && wait "$current_job" 2>/dev/null
  if ((swap_on)) && [[ -n $swapfile ]]; then
    swapoff "$swapfile" || ooc_left+=("swap file $swapfile is still active")
  fi
  if [[ -n $swapfile ]]; then
    rm -f "$swapfile"
    swapon --show=NAME --noheadings 2>/dev/null | grep -qxF "$swapfile" && ooc_left+=("swap $swapfile")
    [[ -e $swapfile ]] && ooc_left+=("file $swapfile")
  fi
  [[ -d $cg ]] && ooc_left+=("cgroup $cg")
  return 0
}

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }
vmstat_get() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# Prefix each line with its arrival time, echo progress lines.
stamp() {
  local tag=$1 line re=${STAMP_ECHO:-'^(ITER|RESULT)'}
  while IFS= read -r line; do
    printf '%s %s\n' "$EPOCHREALTIME" "$line"
    [[ $line =~ $re ]] && printf '  %-22s %s\n' "$tag" "$line" >&2
  done
}

# run_in_cg TAG CMD...: runs CMD in the cgroup under the time cap, stdout
# time-stamped to logs/TAG.out, stderr to logs/TAG.err, the page cache
# dropped first. Sets run_rc, run_wall, run_start, run_end, run_peak,
# run_swapin, run_swapout, run_diskin, run_diskout (MiB; the disk traffic
# is the whole machine's during the run, /proc/vmstat pgpgin and pgpgout:
# the cgroup v1 blkio counters stay at zero on this kernel's disks), run_oom.
# The cgroup's memory.stat before the run and after it ends (before
# anything left is killed) goes to logs/TAG.memstat, "key before after" a
# line: its workingset_refault_* count the pages that reclaim evicted and
# a fault or read brought back (pages dropped on purpose, fadvise or
# madvise, leave no trace to refault).
run_in_cg() {
  local tag=$1
  shift
  local o=$out/logs/$tag.out e=$out/logs/$tag.err
  drop_caches
  echo 0 >"$cg/memory.max_usage_in_bytes" 2>/dev/null
  local in0 out0 oom0 din0 dout0
  in0=$(vmstat_get pswpin) out0=$(vmstat_get pswpout)
  din0=$(vmstat_get pgpgin) dout0=$(vmstat_get pgpgout)
  oom0=$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.oom_control")
  oom0=${oom0:-0}
  local stat0
  stat0=$(cat "$cg/memory.stat")
  printf '%s\n' "$*" >"$out/logs/$tag.cmd"
  run_start=$EPOCHREALTIME
  # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
  (
    TMPDIR=$work/tmp setsid --wait bash -c 'echo $$ >"$0/cgroup.procs" || exit 125; exec "$@"' \
      "$cg" timeout --kill-after=15 "$cap" "$@" </dev/null 2>"$e" | stamp "$tag" >"$o"
    exit "${PIPESTATUS[0]}"
  ) &
  current_job=$!
  wait "$current_job"
  run_rc=$?
  current_job=""
  run_end=$EPOCHREALTIME
  awk 'NR == FNR { b[$1] = $2; next } { print $1, ($1 in b) ? b[$1] : 0, $2 }' \
    <(printf '%s\n' "$stat0") "$cg/memory.stat" >"$out/logs/$tag.memstat"
  kill_cg || say "warning: could not kill everything left in $cg after $tag"
  run_wall=$(awk -v a="$run_start" -v b="$run_end" 'BEGIN { printf "%.3f", b - a }')
  run_peak=$(mib "$(cat "$cg/memory.max_usage_in_bytes")")
  local page=4096
  run_swapin=$(( ($(vmstat_get pswpin) - in0) * page >> 20 ))
  run_swapout=$(( ($(vmstat_get pswpout) - out0) * page >> 20 ))
  run_diskin=$(( ($(vmstat_get pgpgin) - din0) >> 10 ))
  run_diskout=$(( ($(vmstat_get pgpgout) - dout0) >> 10 ))
  local oom1
  oom1=$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.oom_control")
  run_oom=$((${oom1:-0} - oom0))
}

# ooc_dd_bound FILE BYTES: dd writes and reads BYTES to FILE with direct I/O
# and through the page cache (write + fsync; read after dropping the cache),
# in the cgroup like the runs. Buffered I/O can beat direct I/O (read-ahead,
# write-behind), so the bound is the faster of the two. Sets dd_t[...],
# dd_write, dd_read (seconds), dd_mb and dd_line.
declare -A dd_t=()
ooc_dd_bound() {
  local file=$1 bs=$((16 << 20)) count how
  count=$((($2 + bs - 1) / bs))
  dd_mb=$(mib $((count * bs)))
  say "dd: writing and reading $dd_mb MiB, direct and buffered"
  for how in direct buffered; do
    local oflag=() iflag=()
    [[ $how == direct ]] && oflag=(oflag=direct) iflag=(iflag=direct)
    run_in_cg "dd.write.$how" dd if=/dev/zero of="$file" bs=$bs count=$count "${oflag[@]}" conv=fsync
    ((run_rc == 0)) || die "dd write failed: $(cat "$out/logs/dd.write.$how.err")"
    dd_t[write.$how]=$run_wall
    run_in_cg "dd.read.$how" dd if="$file" of=/dev/null bs=$bs "${iflag[@]}"
    ((run_rc == 0)) || die "dd read failed: $(cat "$out/logs/dd.read.$how.err")"
    dd_t[read.$how]=$run_wall
    rm -f "$file"
  done
  local fastest='BEGIN { printf "%.3f", (a < b ? a : b) }'
  dd_write=$(awk -v a="${dd_t[write.direct]}" -v b="${dd_t[write.buffered]}" "$fastest")
  dd_read=$(awk -v a="${dd_t[read.direct]}" -v b="${dd_t[read.buffered]}" "$fastest")
  local rw rr
  rw=$(awk -v m="$dd_mb" -v t="$dd_write" 'BEGIN { printf "%.0f", m / t }')
  rr=$(awk -v m="$dd_mb" -v t="$dd_read" 'BEGIN { printf "%.0f", m / t }')
  dd_line="write ${dd_t[write.direct]} s direct / ${dd_t[write.buffered]} s buffered+fsync, read ${dd_t[read.direct]} s direct / ${dd_t[read.buffered]} s buffered; bound: write $dd_write s ($rw MiB/s), read $dd_read s ($rr MiB/s)"
  say "dd: $dd_line"
}
