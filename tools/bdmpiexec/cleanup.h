// Removing what a job left behind on this node: its message queues,
// shared-memory objects and spill directory, only once its processes there
// are gone (common/job_liveness.h says how that is known).
#pragma once

#include <string>

namespace bdmpi {

// After a launch: waits up to `wait_ms` for the processes of this launch
// (its job id and secret) on this node to go, then removes what they left.
// Returns how many objects it removed, or -1 if processes outlived the wait.
int RemoveLaunchLeftovers(const std::string& job_id, const std::string& launch_secret,
                          int nnodes, int wait_ms);

// Before a launch: removes every object of this user's jobs whose
// processes on this node are all gone, saying so on stderr.
void CollectDeadJobs();

}  // namespace bdmpi
