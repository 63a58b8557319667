#!/usr/bin/env bash
# run_cluster_tests.sh -- job tests on the emulated cluster (needs root).
#
# Brings up ../shared/cluster/vcluster (4 hosts in network namespaces, two
# racks, rate-limited links, a real Slurm with one slurmd per host), then:
#   1. runs job-test programs with one master per emulated host, started by
#      bdmpiexec through mpirun (--hostfile), including a crash on a
#      non-root node, and checks that nothing of any job is left behind;
#   2. submits examples/slurm/bdmpi_job.sh with sbatch, where `mpiexec -n 8`
#      (BDMPI's) starts the masters with srun --mpi=pmix, and checks its
#      output; that a SIGINT ends such a job, leaving nothing; and checks
#      that `srun -n 4 ./prog` stops at MPI_Init with a
#      message naming `mpiexec -n 4`;
# and takes the cluster down again, also on failure.
#
# Usage: tests/cluster/run_cluster_tests.sh [BUILD_DIR]   (default: build)
# VCLUSTER names the vcluster script (default ../shared/cluster/vcluster).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=$(realpath "${1:-build}")
bin=$build/bin
runner=$root/tests/jobs/run_job.sh
vcluster=${VCLUSTER:-$(realpath -m "$root/../shared/cluster/vcluster")}

[[ $(id -u) -eq 0 ]] || { echo "run_cluster_tests: needs root (network namespaces)"; exit 2; }
[[ -x $vcluster ]] || { echo "run_cluster_tests: no vcluster at $vcluster (set VCLUSTER)"; exit 2; }
[[ -x $bin/bdmpiexec ]] || { echo "run_cluster_tests: build first ($bin/bdmpiexec missing)"; exit 2; }

missing=()
for pkg in slurm-wlm slurmctld slurmd slurm-client munge; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "run_cluster_tests: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi

"$vcluster" down >/dev/null 2>&1 || true
# The kernel frees a deleted namespace's veth peers later: for a few seconds
# after a `down` the host ends (vch0, vch1, ...) remain, and `up` fails
# with "RTNETLINK answers: File exists".
for link in $(ip -o link show | awk -F': ' '$2 ~ /^vch[0-9]+(@|$)/ {sub(/@.*/, "", $2); print $2}'); do
  ip link del "$link" 2>/dev/null || true
done
trap '"$vcluster" down >/dev/null 2>&1 || true' EXIT
"$vcluster" up -n 4 --node-rate 1gbit --rack-rate 2gbit --slurm >/dev/null
hostfile=/tmp/vcluster/hostfile

# Open MPI reaches the emulated hosts through `vcluster exec` and must use
# their links, not loopback; mpirun reads these from the environment.
export OMPI_MCA_plm_rsh_agent="$vcluster exec"
export OMPI_MCA_btl=self,tcp
export OMPI_MCA_btl_tcp_if_include=10.77.0.0/24
export OMPI_MCA_oob_tcp_if_include=10.77.0.0/24

failures=0
run() {  # NAME NS NR [run_job options] -- PROG ARGS...
  local name=$1 ns=$2 nr=$3 start=$SECONDS
  shift 3
  if "$runner" --launcher bdmpiexec --bdmpiexec "$bin/bdmpiexec" --nn 4 --ns "$ns" --nr "$nr" \
      --launcher-arg --hostfile --launcher-arg "$hostfile" --timeout 180 "$@" >"/tmp/cluster-$name.log" 2>&1; then
    echo "PASS $name ($((SECONDS - start)) s)"
  else
    echo "FAIL $name after $((SECONDS - start)) s (log below)"
    cat "/tmp/cluster-$name.log"
    failures=$((failures + 1))
  fi
}

# Matching, ordering and the collectives over real links; the single-host
# multi-node job tests run these programs' whole grid already.
for prog in p2p_allpairs any_source_tag order bcast reduce; do
  run "$prog.nr1" 2 1 -- "$bin/job_$prog"
  run "$prog.nr2" 3 2 -- "$bin/job_$prog"
done
run p2p_huge 1 1 -- "$bin/job_p2p_huge"
# Rank 5 lives on the second host: its crash must end the job everywhere.
run fail_segv.node1 2 1 --expect-exit 139 --expect-stderr 'rank 5' -- "$bin/job_fail_segv" --rank 5

# Slurm: sbatch the example script; bdmpiexec finds the allocation itself.
eval "$("$vcluster" env)"
work=$(mktemp -d)
if (cd "$work" && MPIEXEC="$bin/mpiexec" RANKS=8 timeout 300 \
      sbatch -N 4 -W --export=ALL "$root/examples/slurm/bdmpi_job.sh" "$bin/job_order" >/dev/null) &&
   grep -q "on 4 node(s)" "$work"/bdmpi-*.out && ! grep -qi "error\|fail" "$work"/bdmpi-*.out; then
  echo "PASS slurm.sbatch"
else
  echo "FAIL slurm.sbatch"
  cat "$work"/bdmpi-*.out 2>/dev/null || true
  failures=$((failures + 1))
fi
rm -rf "$work"

# Ctrl-C's way (`timeout -s INT` signals its whole process group) to a job
# whose masters srun started: srun would only report its tasks at one
# SIGINT and kill them uncleaned at two, so bdmpiexec passes SIGUSR2 on;
# the job ends within seconds, exit 130, the masters clean up themselves
# (bdmpiexec removes nothing), nothing of it left on any host.
job=clsig$$
start=$SECONDS
rc=0
out=$(timeout 120 salloc -N 2 timeout --preserve-status -s INT 8 \
        "$bin/bdmpiexec" -nn 2 -ns 4 --job-id "$job" "$bin/multinode_long_bcast" 60 2>&1) ||
  rc=$?
left=$(find /dev/shm /dev/mqueue /tmp -maxdepth 1 -name "*bdmpi-$job*" 2>/dev/null)
if ((rc == 130 && SECONDS - start < 40)) && [[ -z $left ]] &&
   grep -q "interrupted by SIGINT" <<<"$out" && ! grep -q "leftover object" <<<"$out"; then
  echo "PASS slurm.signal ($((SECONDS - start)) s)"
else
  echo "FAIL slurm.signal (exit $rc after $((SECONDS - start)) s; left: ${left:-nothing})"
  echo "$out"
  failures=$((failures + 1))
fi

# srun as the launcher of the ranks: each task would be a job of its own.
if out=$(timeout 120 srun -N 2 -n 4 "$bin/job_order" 2>&1); then
  echo "FAIL slurm.srun_refused (srun ./prog succeeded)"
  failures=$((failures + 1))
elif grep -q "started by srun as one of 4 tasks.*mpiexec -n 4" <<<"$out"; then
  echo "PASS slurm.srun_refused"
else
  echo "FAIL slurm.srun_refused"
  echo "$out"
  failures=$((failures + 1))
fi

if ((failures)); then
  echo "run_cluster_tests: $failures failed"
  exit 1
fi
echo "run_cluster_tests: all passed"
