// Reduction kernels for the predefined operations on predefined datatypes.
// Used by the master, which reduces on behalf of its slaves.
#pragma once

#include <cstddef>

#include "common/handles.h"

namespace bdmpi {

// True when MPI defines `op` on `type` (MPI-3.1 section 5.9.2): e.g. MPI_SUM
// on integers, floating and complex types; MPI_BAND on integers and
// MPI_BYTE; MPI_MAXLOC only on the pair types; MPI_REPLACE/MPI_NO_OP on all.
bool ReductionDefined(OpId op, DatatypeId type);

// inout[i] = in[i] op inout[i] for i < count (elements, not bytes), as an
// MPI_User_function would, on elements in their wire form (datatype.h):
// value-index pairs packed, every other type as in memory.  MINLOC/MAXLOC
// keep the smaller index on ties.
// Requires ReductionDefined(op, type).
void Reduce(OpId op, DatatypeId type, const void* in, void* inout,
            std::size_t count);

}  // namespace bdmpi
