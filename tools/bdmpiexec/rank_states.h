// What the launcher can tell about a job's ranks on this node when it ends
// the job from outside (--timeout): each rank's process and whether it was
// running or waiting, read from /proc. Ranks on other hosts are not visible
// here; their masters report what they end.
#pragma once

#include <string>
#include <vector>

namespace bdmpi {

// "rank 3 (pid 1234): running; 2.1 s of CPU, last on CPU 0" (a waiting
// rank adds the kernel function it waits in), one line per process of the
// job whose environment names it as a rank, in rank order.
std::vector<std::string> DescribeLocalRanks(const std::string& job_id);

// The masters of the job on this host (from their liveness files, which
// exist from a master's start, before its ranks), by ascending pid, with
// the job's private directory; empty before any master started.
struct LocalMaster {
  long pid = 0;
  std::string job_dir;
};
std::vector<LocalMaster> LocalMasters(const std::string& job_id);

}  // namespace bdmpi
