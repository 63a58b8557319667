// How a rank's main thread waits for a generalized request that another
// thread of the rank completes (MPI_Grequest_complete) without spinning:
// the completion counts itself under a mutex and wakes the waiters. A
// single request's wait sleeps until then; a wait over an array (MPI_Waitany,
// MPI_Waitsome) sleeps until a completion or a short pause, since some of
// its requests may be the runtime's own (MPI_Buffer_iflush), which complete
// by polling. The rank keeps its running slot meanwhile, as before.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace bdmpi {

// MPI_Grequest_complete: runs `mark` (which sets the request's done flag)
// under the mutex and wakes every waiter.
void CompleteGeneralized(const std::function<void()>& mark);

// MPI_Wait: returns once `done` (which reads the request's done flag) is
// true, sleeping until a completion between looks.
void AwaitGeneralized(const std::function<bool()>& done);

// MPI_Waitany, MPI_Waitsome: calls `poll` until it returns true, sleeping
// between calls until a completion or a pause that grows from 20 us to
// 1 ms.
void PollUntilGeneralized(const std::function<bool()>& poll);

}  // namespace bdmpi
