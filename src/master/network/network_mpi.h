// What the network thread's halves (network_transport.h, network_control.h)
// share in calling Open MPI.
#pragma once

#include <mpi.h>

#include <chrono>
#include <span>
#include <string>
#include <thread>

#include "common/error.h"

namespace bdmpi {

// The communicators are MPI_ERRORS_RETURN: a failed call throws, and the
// network thread tells the other masters before it leaves.
inline void CheckMpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(kErrIntern, std::string(what) + ": " + text);
}

// True when `request` is done (or null).
inline bool TestRequest(MPI_Request& request) {
  if (request == MPI_REQUEST_NULL) return true;
  int done = 0;
  CheckMpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}

// For a job that is ending: tests `requests` until each is done (null) or
// `deadline` passes, a failed test counting as done. True when all are.
inline bool WaitUntil(std::span<MPI_Request* const> requests,
                      std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    bool open = false;
    for (MPI_Request* request : requests) {
      int done = 0;
      if (*request != MPI_REQUEST_NULL && MPI_Test(request, &done, MPI_STATUS_IGNORE) ==
                                              MPI_SUCCESS && !done)
        open = true;
    }
    if (!open) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace bdmpi
