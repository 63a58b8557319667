// MPI_Comm_idup and MPI_Comm_idup_with_info: a duplicate made without
// waiting. The call joins the masters' split of the parent at once (so it
// keeps its place among the parent's collectives) and returns; the master
// completes a receive with the new communicator when every member has
// joined, which MPI_Wait, MPI_Test, MPI_Waitany ... absorb like any
// collective's step (nbc.h). Several may be outstanding on one parent or
// several, completed in any order. The handle given back names the new
// communicator, usable once the request completes.
#pragma once

#include <mpi.h>

#include <optional>

#include "slave/runtime/info.h"

namespace bdmpi {

// `hints`: MPI_Comm_idup_with_info's; none for MPI_Comm_idup.
MPI_Request CommIdup(MPI_Comm comm, std::optional<InfoEntries> hints, MPI_Comm* newcomm);

}  // namespace bdmpi
