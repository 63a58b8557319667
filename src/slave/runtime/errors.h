// The extern "C" boundary: every MPI entry point runs its body through
// Guard, which turns exceptions into MPI error classes and hands them to the
// communicator's error handler. No exception reaches user code.
#pragma once

#include <mpi.h>

#include <exception>
#include <new>

#include "common/error.h"
#include "slave/memory/allocation_route.h"
#include "slave/runtime/threads.h"
#include "slave/tool/events.h"

namespace bdmpi {

// Applies `comm`'s error handler (MPI_COMM_WORLD's if comm is invalid) to
// an error: returns error_class under MPI_ERRORS_RETURN, otherwise prints
// the error naming the rank and function and aborts the job.
int RaiseError(const char* function, MPI_Comm comm, int error_class,
               const char* detail);

// The same with the handler given (a file's, src/slave/io).
int ApplyErrhandler(MPI_Errhandler handler, const char* function, int error_class,
                    const char* detail);

const char* ErrorClassString(int error_class);

// While one lives, errors name `name` instead of the entry point that
// raises them: a large-count call (MPI_Send_c) that hands its work to the
// int one (MPI_Send) reports as itself.
class CallName {
 public:
  explicit CallName(const char* name);
  ~CallName();
  CallName(const CallName&) = delete;
  CallName& operator=(const CallName&) = delete;

 private:
  const char* previous_;
};

// Throws unless between MPI_Init and MPI_Finalize.
void RequireInitialized();

// Runs `body`, turning its exceptions into MPI error classes handed to
// raise(error_class, detail), whose result is returned. At
// MPI_THREAD_MULTIPLE both run under the rank's lock (threads.h). The
// thread's tool events are delivered after that, as its outermost call
// ends (slave/tool/events.h).
template <class Raise, class Body>
int GuardWith(Raise&& raise, Body&& body) {
  tool::EventScope events;
  threads::Entry entry;
  memory::RuntimeAllocations runtime_state;
  try {
    body();
    return MPI_SUCCESS;
  } catch (const Error& error) {
    return raise(error.error_class(), error.what());
  } catch (const std::bad_alloc&) {
    return raise(MPI_ERR_NO_MEM, "out of memory");
  } catch (const std::exception& error) {
    return raise(MPI_ERR_INTERN, error.what());
  }
}

// How many communicators between two jobs the rank holds
// (slave/comm/cross_job.h); while there are any, Guard refuses the calls
// they do not serve with RequireCrossJobCall (kErrComm).
extern int cross_job_comms;
void RequireCrossJobCall(const char* function, MPI_Comm comm);

template <class Body>
int Guard(const char* function, MPI_Comm comm, Body&& body) {
  return GuardWith([&](int error_class, const char* detail) {
    return RaiseError(function, comm, error_class, detail);
  }, [&] {
    if (cross_job_comms > 0) RequireCrossJobCall(function, comm);
    body();
  });
}

}  // namespace bdmpi
