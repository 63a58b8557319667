// Large counts (MPI-4's _c calls): a count beyond INT_MAX travels as one
// element of a contiguous type of that many elements, so the int paths
// below the entry points carry it unchanged; their byte counts are 64-bit.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace bdmpi {

// `count` elements of `datatype` as an int call takes them.
struct IntCount {
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};

// As they are when count fits in an int; otherwise one element of
// CountedType(count, datatype). Never throws: a negative count, an invalid
// or uncommitted type come back such that the int call raises the error
// (MPI_ERR_COUNT, MPI_ERR_TYPE) through the right error handler.
IntCount NarrowCount(MPI_Count count, MPI_Datatype datatype) noexcept;

// A committed contiguous type of `count` elements of `datatype`, made once
// per (datatype, count) and kept to the end of the run (a non-blocking
// call may still use it after its _c call returns). Its runs are one
// repeated run whatever `count` (datatypes.h).
MPI_Datatype CountedType(std::int64_t count, MPI_Datatype datatype);

// Whether `datatype` was made by CountedType, and of what: a user-defined
// reduction is handed the elements in the program's type, never ours.
bool CountedOf(MPI_Datatype datatype, MPI_Datatype* element, std::int64_t* count);

}  // namespace bdmpi
