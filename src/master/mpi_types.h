// Open MPI's handles for BDMPI's predefined datatypes and operations, for
// the inter-node steps of reductions.
#pragma once

#include <mpi.h>

#include "common/handles.h"

namespace bdmpi {

// MPI_DATATYPE_NULL / MPI_OP_NULL when Open MPI has no equivalent.
MPI_Datatype OpenMpiDatatype(DatatypeId id);
MPI_Op OpenMpiOp(OpId id);

}  // namespace bdmpi
