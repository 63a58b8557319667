// Process topologies: what needs no master.
#pragma once

namespace bdmpi {

// MPI_Dims_create: fills the zero entries of dims[ndims] so that the
// product is nnodes, as balanced as possible and in non-increasing order.
void DimsCreate(int nnodes, int ndims, int dims[]);

}  // namespace bdmpi
