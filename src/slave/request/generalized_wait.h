// Generalized requests that the program completes (MPI_Grequest_complete),
// possibly from another thread of the rank, and how the rank's main thread
// waits for them without spinning.
//
// Shared between threads: only what this file keeps under its one mutex,
// the request's `complete` and `freed` flags (GeneralizedState) and a
// registry from handle to request. The completing thread never touches the
// request table (request.h), which the main thread may change at the same
// moment; it finds the request in the registry, and a request
// the program freed before completing it is handed back to the main thread
// (TakeReleasedGeneralized) to release its table slot. The main thread
// reads the flag under the mutex (GeneralizedComplete) and caches it in
// the request's `done`, which only it touches.
//
// A single request's wait sleeps until a completion; a wait over an array
// (MPI_Waitany, MPI_Waitsome) sleeps until a completion or a short pause,
// since some of its requests may be the runtime's own (MPI_Buffer_iflush),
// which complete by polling. The rank keeps its running slot meanwhile.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <mpi.h>

namespace bdmpi {

// MPI_Grequest_start's callbacks: an operation the program completes
// itself (MPI_Grequest_complete); see generalized.h.
struct GeneralizedState {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  // Guarded by this file's mutex: MPI_Grequest_complete may come from
  // another thread.
  bool complete = false;
  bool freed = false;  // MPI_Request_free came before MPI_Grequest_complete
  // One the runtime completes itself (MPI_Buffer_iflush), with no
  // callbacks: makes progress, waiting when asked; true when complete.
  std::function<bool(bool wait)> progress;
};

// MPI_Grequest_start, main thread: `request` may be completed from now on.
void RegisterGeneralized(MPI_Request request, std::shared_ptr<GeneralizedState> generalized);

// MPI_Grequest_complete, any thread: marks `request` complete and wakes
// every waiter. Returns the request when the program freed it already: the
// caller then runs its free function. Throws Error(kErrRequest) for a
// handle that is no generalized request, or one completed already.
std::shared_ptr<GeneralizedState> CompleteGeneralized(MPI_Request request);

// Main thread: whether the program completed it.
bool GeneralizedComplete(const GeneralizedState& generalized);

// MPI_Request_free, main thread: true when it is complete, so that the
// caller frees it now; else it is marked freed and CompleteGeneralized
// hands it back.
bool FreeGeneralizedLater(MPI_Request request);

// The request is retired (or freed) by the main thread: no longer
// completable.
void ForgetGeneralized(MPI_Request request);

// Main thread: requests freed by the program and completed since, whose
// table slots it releases.
std::vector<MPI_Request> TakeReleasedGeneralized();

// MPI_Wait: returns once `generalized` is complete, sleeping until a
// completion between looks.
void AwaitGeneralized(const GeneralizedState& generalized);

// MPI_Waitany, MPI_Waitsome: calls `poll` until it returns true, sleeping
// between calls until a completion or a pause that grows from 20 us to
// 1 ms.
void PollUntilGeneralized(const std::function<bool()>& poll);

}  // namespace bdmpi
