// The live status of a running job: `bdmpiexec --status JOBID`
// from another shell, SIGUSR1 to bdmpiexec, and the time limit's last word.
// One master of the job on this host is asked (not through mpirun, which
// would signal the ranks too); it gathers every node's ranks and answers
// through the job's private directory (common/status_reply.h).
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <string>

namespace bdmpi {

// How long the asker waits for the answer: above the masters' own wait for
// the other nodes (StatusExchange::kAnswerWait).
inline constexpr int kStatusAnswerWaitMs = 8000;

// Writes the status of job `job_id` to `out`: a master that has not
// started its ranks yet answers with their "starting" state. `launched`:
// bdmpiexec's own child (master, mpirun or srun), > 0 only when bdmpiexec
// asks for its own job; it then waits (while the child lives, at most
// kStatusAnswerWaitMs) for a master that is still starting. Returns 0 when
// the status was printed, 1 with a message on stderr when not.
int AskStatus(const std::string& job_id, pid_t launched, std::FILE* out);

}  // namespace bdmpi
