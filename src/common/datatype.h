// Properties of the predefined datatypes, as both halves need them: the
// slave to turn (count, datatype) into bytes, the master to reduce.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/handles.h"

namespace bdmpi {

// The groups of MPI-3.1 section 5.9.2, which decide what an op applies to.
enum class TypeClass : std::uint8_t {
  kInteger,   // C integer (and MPI_AINT/OFFSET/COUNT)
  kFloating,  // float, double, long double
  kComplex,   // C and C++ complex
  kLogical,   // C _Bool, C++ bool
  kByte,      // MPI_BYTE
  kPair,      // value-index pairs for MINLOC/MAXLOC
  kOther,     // MPI_CHAR, MPI_WCHAR, MPI_PACKED: no reductions
};

// On the wire (between slaves, through the master, in MPI_Pack's buffer)
// an element takes `size` bytes: a value-index pair travels as its value
// followed at once by its index, without the padding it has in memory, so
// that it matches a struct of the same type signature (MPI-3.1 3.3.1).
// The reduction kernels (common/reduce.h) work on this packed form.
struct DatatypeInfo {
  const char* name;     // "MPI_INT"
  std::uint32_t size;   // bytes of data (MPI_Type_size), and on the wire
  std::uint32_t extent; // bytes one element occupies in memory
  std::uint32_t alignment;  // alignof the C type: pads MPI_Type_create_struct
  TypeClass type_class;
  // A pair's index: where it lies in memory, and its bytes (0 for others).
  std::uint32_t index_offset = 0;
  std::uint32_t index_size = 0;
};

// The properties of a predefined datatype, or nullptr for kNull and ids out
// of range.
const DatatypeInfo* FindPredefinedDatatype(DatatypeId id);

}  // namespace bdmpi
