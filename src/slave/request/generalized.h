// Generalized requests (MPI_Grequest_start), a kind of request (request.h)
// that something other than the master completes: MPI_Test says complete
// once MPI_Grequest_complete was called; MPI_Wait waits for that, asleep
// (another thread of the program completes it; generalized_wait.h). On
// completion the status comes from the query function, then the free
// function runs. The runtime makes requests of this kind too, completed by
// polling instead of by the program (MPI_Buffer_iflush).
#pragma once

#include <mpi.h>

#include <functional>

namespace bdmpi {

MPI_Request GrequestStart(MPI_Grequest_query_function* query,
                          MPI_Grequest_free_function* free,
                          MPI_Grequest_cancel_function* cancel, void* extra_state);
void GrequestComplete(MPI_Request request);

// A request on `comm` that completes when `progress` says so: it makes
// progress, waiting when `wait`, and returns true once complete. It has no
// callbacks and cannot be cancelled.
MPI_Request NewPolledRequest(std::function<bool(bool wait)> progress, MPI_Comm comm);

}  // namespace bdmpi
