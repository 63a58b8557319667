// Removing what a job left behind: its message queues, shared-memory
// windows and spill directory. Returns how many objects it removed.
#pragma once

#include <string>

namespace bdmpi {

int RemoveJobLeftovers(const std::string& job_id, const std::string& scratch_dir,
                       int nnodes, int nslaves);

}  // namespace bdmpi
