// Guard for the calls whose error handler is that of a request's
// communicator (MPI_Wait, MPI_Start, MPI_Pready, ...): the communicator is
// looked up in the request table under the rank's lock, at the start of
// the guarded body, since at MPI_THREAD_MULTIPLE another thread may be
// adding a request, which can move the table (ThreadSanitizer found the
// lookup racing with MPI_Irecv when it ran before the lock).
#pragma once

#include <mpi.h>

#include "slave/runtime/errors.h"

namespace bdmpi {

template <class CommOf, class Body>
int GuardRequest(const char *function, CommOf &&comm_of, Body &&body) {
  MPI_Comm comm = MPI_COMM_WORLD;
  return GuardWith(
      [&](int error_class, const char *detail) {
        return RaiseError(function, comm, error_class, detail);
      },
      [&] {
        comm = comm_of();
        body();
      });
}

} // namespace bdmpi
