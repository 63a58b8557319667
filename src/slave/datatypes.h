// Datatypes as a slave sees them: the predefined ones and dense derived
// ones (MPI_Type_contiguous, and the other constructors when what they
// describe has no gaps). Each is `count` elements of one predefined `base`
// type laid end to end, or a run of bytes of mixed types. The master only
// ever sees the base type and the byte count, so a reduction on a
// contiguous type of MPI_INT is a reduction of count * n ints.
//
// Types with gaps (strided vectors, indexed types with holes, resized
// types, ...) are refused with MPI_ERR_TYPE: moving their bytes as one block
// would write the receiver's gaps, which MPI leaves untouched.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>

#include "common/datatype.h"
#include "common/handles.h"

namespace bdmpi {

struct TypeInfo {
  DatatypeId base = DatatypeId::kNull;  // kByte when `mixed`
  bool mixed = false;                   // of several predefined types
  bool predefined = true;
  bool committed = true;
  std::uint64_t count = 1;    // elements of base in one element of the type
  std::uint64_t size = 0;     // bytes of data (MPI_Type_size)
  std::uint64_t extent = 0;   // bytes in memory (lb is always 0)
  std::uint64_t true_extent = 0;
  std::string name;
};

// Throws kErrType for MPI_DATATYPE_NULL, freed types and non-datatypes.
const TypeInfo& LookupType(MPI_Datatype datatype);
// count elements of datatype in bytes, for a communication call: throws
// kErrCount for a negative count and kErrType for a type not committed.
std::uint64_t BufferBytes(int count, MPI_Datatype datatype);
// The predefined type a reduction works on (kErrOp for mixed types).
DatatypeId ReductionBase(MPI_Datatype datatype);
// MPI_Get_count / MPI_Get_elements of a received byte count.
int CountOf(std::uint64_t bytes, MPI_Datatype datatype);
int ElementsOf(std::uint64_t bytes, MPI_Datatype datatype);

// One block of a type constructor: `count` elements of `type` at byte
// displacement `displacement`.
struct TypeBlock {
  std::int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::int64_t displacement = 0;
};
// A new (uncommitted) type made of blocks that must lie end to end from
// displacement 0; throws kErrType naming `constructor` otherwise.
MPI_Datatype NewDenseType(std::span<const TypeBlock> blocks, const char* constructor);
// count blocks of blocklength elements, `stride` bytes apart: dense only
// when the stride is one block (or there is at most one block).
MPI_Datatype NewVectorType(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                           MPI_Datatype oldtype, const char* constructor);
MPI_Datatype DupType(MPI_Datatype datatype);
void CommitType(MPI_Datatype* datatype);
// Frees a derived type and sets the handle to MPI_DATATYPE_NULL.
void FreeType(MPI_Datatype* datatype);
void SetTypeName(MPI_Datatype datatype, const char* name);

}  // namespace bdmpi
