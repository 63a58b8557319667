// The live status of a running job (issue 14): `bdmpiexec --status JOBID`
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

// Writes the status of job `job_id` to `out`. `fallback_master`: the
// master to signal when no rank has started yet (> 0 only for bdmpiexec's
// own child); it then prints on the job's standard error. Returns 0 when
// the status was printed, 1 with a message on stderr when not.
int AskStatus(const std::string& job_id, pid_t fallback_master, std::FILE* out);

}  // namespace bdmpi
