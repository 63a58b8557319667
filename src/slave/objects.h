// The MPI objects a slave holds: communicators (with their error handlers)
// and requests, looked up by handle with MPI's error classes; datatypes are
// in datatypes.h.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "slave/datatypes.h"

namespace bdmpi {

struct CommInfo {
  int id = 0;  // the masters' name for it
  int rank = 0;
  int size = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
};

// Throws kErrComm for MPI_COMM_NULL and anything that is not a communicator.
CommInfo& LookupComm(MPI_Comm comm);
// Sets up MPI_COMM_WORLD (and forgets everything else) at MPI_Init.
void ResetComms(int world_rank, int world_size);

// A non-blocking operation in flight.
struct PendingRequest {
  bool is_recv = false;
  bool done = false;
  MPI_Comm comm = MPI_COMM_NULL;
  void* buffer = nullptr;
  std::uint64_t capacity = 0;
  std::uint64_t id = 0;  // the master's receive id
  MPI_Status status{};
};

MPI_Request NewRequest(const PendingRequest& request);
// Throws kErrRequest for handles that name no request in flight.
PendingRequest& LookupRequest(MPI_Request request);
void FreeRequest(MPI_Request request);

// Status helpers: `status` may be MPI_STATUS_IGNORE.
void SetStatus(MPI_Status* status, int source, int tag, int error,
               std::uint64_t bytes);
void SetEmptyStatus(MPI_Status* status);

}  // namespace bdmpi
