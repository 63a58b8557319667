// MPI_Type_create_darray (MPI-3.1 section 4.1.4): the part of a global
// array that one process of a process grid owns, as a datatype whose
// bounds are those of the whole array.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

namespace bdmpi {

// `length` consecutive indices of one dimension from `start`.
struct IndexBlock {
  std::int64_t start = 0;
  std::int64_t length = 0;
};

// The indices of a dimension of `size` elements that grid coordinate
// `coord` of `nprocs` owns under `distrib` (MPI_DISTRIBUTE_BLOCK, _CYCLIC or
// _NONE) with argument `darg` (or MPI_DISTRIBUTE_DFLT_DARG), in increasing
// order. Throws kErrArg for arguments MPI does not allow.
std::vector<IndexBlock> OwnedIndices(int size, int distrib, int darg, int nprocs, int coord);

// The darray type of process `rank` of `size` (row-major grid `psizes`).
MPI_Datatype NewDarrayType(int size, int rank, std::span<const int> gsizes,
                           std::span<const int> distribs, std::span<const int> dargs,
                           std::span<const int> psizes, int order, MPI_Datatype oldtype);

}  // namespace bdmpi
