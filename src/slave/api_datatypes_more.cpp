// MPI_Type_create_darray, the external32 calls (MPI_Pack_external & co.)
// and MPI_Type_match_size.
#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/external32.h"
#include "slave/darray.h"
#include "slave/datatypes.h"
#include "slave/errors.h"

using bdmpi::Error;
using bdmpi::Guard;

namespace {

// Only "external32" is defined by MPI for these calls.
void CheckDatarep(const char* datarep, const char* call) {
  if (datarep == nullptr || std::strcmp(datarep, "external32") != 0)
    throw Error(bdmpi::kErrArg, std::string(call) + ": the data representation must be "
                                                    "\"external32\"");
}

// Bytes of one element of `type` in external32: its type signature's.
std::uint64_t External32Bytes(const bdmpi::TypeInfo& type) {
  std::uint64_t bytes = 0;
  for (const bdmpi::SignatureRun& run : type.signature)
    bytes += run.count * bdmpi::External32Size(run.type);
  return bytes;
}

// Converts `count` elements between their wire form and external32, run
// of the type signature by run.
template <class Convert>
void ConvertElements(const bdmpi::TypeInfo& type, int count, const std::byte* from,
                     std::byte* to, bool to_external, Convert convert) {
  for (int i = 0; i < count; ++i) {
    for (const bdmpi::SignatureRun& run : type.signature) {
      const std::uint64_t wire = run.count * bdmpi::FindPredefinedDatatype(run.type)->size;
      const std::uint64_t external = run.count * bdmpi::External32Size(run.type);
      convert(run.type, from, run.count, to);
      from += to_external ? wire : external;
      to += to_external ? external : wire;
    }
  }
}

}  // namespace

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                            const int distribs[], const int dargs[], const int psizes[],
                            int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_darray", MPI_COMM_WORLD, [&] {
    if (ndims <= 0) throw Error(bdmpi::kErrArg, "MPI_Type_create_darray: ndims must be positive");
    auto n = static_cast<std::size_t>(ndims);
    *newtype = bdmpi::NewDarrayType(size, rank, {gsizes, n}, {distribs, n}, {dargs, n},
                                    {psizes, n}, order, oldtype);
    std::vector<int> ints{size, rank, ndims};
    for (const int* array : {gsizes, distribs, dargs, psizes})
      ints.insert(ints.end(), array, array + n);
    ints.push_back(order);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_DARRAY, std::move(ints), {}, {oldtype});
  });
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint* size) {
  return Guard("MPI_Pack_external_size", MPI_COMM_WORLD, [&] {
    CheckDatarep(datarep, "MPI_Pack_external_size");
    const bdmpi::TypeInfo& type = bdmpi::CommType(incount, datatype);
    *size = static_cast<MPI_Aint>(static_cast<std::uint64_t>(incount) * External32Bytes(type));
  });
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount,
                       MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                       MPI_Aint* position) {
  return Guard("MPI_Pack_external", MPI_COMM_WORLD, [&] {
    CheckDatarep(datarep, "MPI_Pack_external");
    const bdmpi::TypeInfo& type = bdmpi::CommType(incount, datatype);
    const std::uint64_t bytes = static_cast<std::uint64_t>(incount) * External32Bytes(type);
    if (*position < 0 || static_cast<std::uint64_t>(*position) + bytes >
                             static_cast<std::uint64_t>(outsize))
      throw Error(bdmpi::kErrTruncate, "MPI_Pack_external: the output buffer is too small");
    std::vector<std::byte> wire(bdmpi::WireBytes(incount, datatype));
    bdmpi::PackElements(inbuf, incount, type, wire.data());
    ConvertElements(type, incount, wire.data(), static_cast<std::byte*>(outbuf) + *position,
                    true, bdmpi::ToExternal32);
    *position += static_cast<MPI_Aint>(bytes);
  });
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                         MPI_Aint* position, void* outbuf, int outcount,
                         MPI_Datatype datatype) {
  return Guard("MPI_Unpack_external", MPI_COMM_WORLD, [&] {
    CheckDatarep(datarep, "MPI_Unpack_external");
    const bdmpi::TypeInfo& type = bdmpi::CommType(outcount, datatype);
    const std::uint64_t bytes = static_cast<std::uint64_t>(outcount) * External32Bytes(type);
    if (*position < 0 ||
        static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(insize))
      throw Error(bdmpi::kErrTruncate, "MPI_Unpack_external: the input buffer is too short");
    std::vector<std::byte> wire(bdmpi::WireBytes(outcount, datatype));
    ConvertElements(type, outcount, static_cast<const std::byte*>(inbuf) + *position,
                    wire.data(), false, bdmpi::FromExternal32);
    bdmpi::UnpackElements(wire.data(), wire.size(), outbuf, outcount, type);
    *position += static_cast<MPI_Aint>(bytes);
  });
}

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  return Guard("MPI_Type_match_size", MPI_COMM_WORLD, [&] {
    // The Fortran-sized names, and long double for the 16-byte real.
    struct Match {
      int typeclass;
      int size;
      MPI_Datatype type;
    };
    static const Match kMatches[] = {
        {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
        {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
        {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
        {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4},
        {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_REAL, static_cast<int>(sizeof(long double)), MPI_LONG_DOUBLE},
        {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
        {MPI_TYPECLASS_COMPLEX, static_cast<int>(2 * sizeof(long double)),
         MPI_C_LONG_DOUBLE_COMPLEX},
    };
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
      throw Error(bdmpi::kErrArg, "MPI_Type_match_size: typeclass must be MPI_TYPECLASS_"
                                  "INTEGER, _REAL or _COMPLEX");
    for (const Match& match : kMatches) {
      if (match.typeclass == typeclass && match.size == size) {
        *datatype = match.type;
        return;
      }
    }
    throw Error(bdmpi::kErrArg,
                "MPI_Type_match_size: no predefined type of that class has " +
                    std::to_string(size) + " bytes");
  });
}

namespace {

// MPI_Type_create_f90_*: the predefined type of the smallest kind that has
// the precision and range asked for (gfortran's kinds), as a handle of its
// own whose envelope names the call (MPI-3.1 17.1.9). The same arguments
// give the same handle, which the program must not free.
MPI_Datatype F90Type(int combiner, int precision, int range, MPI_Datatype match,
                     std::vector<int> ints) {
  struct Made {
    int combiner, precision, range;
    MPI_Datatype type;
  };
  static std::vector<Made> made;
  for (const Made& m : made) {
    if (m.combiner == combiner && m.precision == precision && m.range == range) return m.type;
  }
  MPI_Datatype type = bdmpi::DupType(match);
  bdmpi::SetEnvelope(type, combiner, std::move(ints), {}, {});
  made.push_back({combiner, precision, range, type});
  return type;
}

// The real kind of at least `precision` decimal digits and exponent range
// `range` (MPI_UNDEFINED: any): 4, 8 or 16 bytes.
int RealKind(int precision, int range, const char* call) {
  struct Kind {
    int precision, range, bytes;
  };
  static const Kind kKinds[] = {{6, 37, 4}, {15, 307, 8}, {18, 4931, 16}};
  for (const Kind& kind : kKinds) {
    if ((precision == MPI_UNDEFINED || precision <= kind.precision) &&
        (range == MPI_UNDEFINED || range <= kind.range))
      return kind.bytes;
  }
  throw Error(bdmpi::kErrArg, std::string(call) + ": no real type has precision " +
                                  std::to_string(precision) + " and range " +
                                  std::to_string(range));
}

}  // namespace

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_f90_real", MPI_COMM_WORLD, [&] {
    int bytes = RealKind(p, r, "MPI_Type_create_f90_real");
    MPI_Datatype match = bytes == 4 ? MPI_REAL4 : bytes == 8 ? MPI_REAL8 : MPI_LONG_DOUBLE;
    *newtype = F90Type(MPI_COMBINER_F90_REAL, p, r, match, {p, r});
  });
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_f90_complex", MPI_COMM_WORLD, [&] {
    int bytes = RealKind(p, r, "MPI_Type_create_f90_complex");
    MPI_Datatype match = bytes == 4   ? MPI_COMPLEX8
                         : bytes == 8 ? MPI_COMPLEX16
                                      : MPI_C_LONG_DOUBLE_COMPLEX;
    *newtype = F90Type(MPI_COMBINER_F90_COMPLEX, p, r, match, {p, r});
  });
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_f90_integer", MPI_COMM_WORLD, [&] {
    // Decimal digits each integer kind holds in full.
    MPI_Datatype match = r == MPI_UNDEFINED || r <= 2 ? MPI_INTEGER1
                         : r <= 4                     ? MPI_INTEGER2
                         : r <= 9                     ? MPI_INTEGER4
                         : r <= 18                    ? MPI_INTEGER8
                                                      : MPI_DATATYPE_NULL;
    if (match == MPI_DATATYPE_NULL)
      throw Error(bdmpi::kErrArg, "MPI_Type_create_f90_integer: no integer type has range " +
                                      std::to_string(r));
    *newtype = F90Type(MPI_COMBINER_F90_INTEGER, r, 0, match, {r});
  });
}
