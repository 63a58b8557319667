// Waiting for every process a launch started on this node, not only for the
// one bdmpiexec started itself. mpirun may return before the masters it
// started are gone (after a failure it signals them and does not wait for
// all of them), and a master removes its liveness file (common/
// job_liveness.h) a moment before it exits. So bdmpiexec makes itself the
// subreaper of its descendants (PR_SET_CHILD_SUBREAPER): one whose parent
// ends becomes its child, and once waitpid reports no child left, nothing
// of the launch runs on this node any more. Processes started elsewhere
// (srun's, by slurmstepd) are not descendants: for them the liveness files
// are all bdmpiexec has.
#pragma once

#include <string>
#include <vector>

namespace bdmpi {

// Before the launch: orphaned descendants become this process's children.
void AdoptOrphanedDescendants();

// After the launch's own child was reaped: reaps the children left (orphaned
// descendants) until there are none, for at most `wait_ms`. Returns those
// still alive then, each as "pid N (command line)"; empty: all gone.
std::vector<std::string> WaitForDescendants(int wait_ms);

// Kills (SIGKILL) and reaps every child left.
void KillDescendants();

}  // namespace bdmpi
