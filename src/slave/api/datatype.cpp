// The extern "C" entry points of datatypes (MPI-3.1 chapter 4): type
// constructors and queries, addresses, MPI_Pack and its external32 form,
// the element counts of a status, MPI_Type_match_size and the Fortran 90
// parameterized types, MPI-4.1's MPI_Type_get_value_index. See
// datatype/datatypes.h.
#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/external32.h"
#include "slave/comm/attributes.h"
#include "slave/datatype/darray.h"
#include "slave/datatype/datatypes.h"
#include "slave/runtime/errors.h"

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
void ConvertElements(const bdmpi::TypeInfo& type, std::int64_t count, const std::byte* from,
                     std::byte* to, bool to_external, Convert convert) {
  for (std::int64_t i = 0; i < count; ++i) {
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

extern "C" {

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void* location, MPI_Aint* address) {
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  return Guard("MPI_Type_size", MPI_COMM_WORLD, [&] {
    std::uint64_t bytes = bdmpi::LookupType(datatype).size;
    *size = bytes > INT_MAX ? MPI_UNDEFINED : static_cast<int>(bytes);
  });
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return Guard("MPI_Type_size_x", MPI_COMM_WORLD, [&] {
    *size = static_cast<MPI_Count>(bdmpi::LookupType(datatype).size);
  });
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return Guard("MPI_Type_get_extent", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *lb = static_cast<MPI_Aint>(type.lb);
    *extent = static_cast<MPI_Aint>(type.extent);
  });
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return Guard("MPI_Type_get_extent_x", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *lb = static_cast<MPI_Count>(type.lb);
    *extent = static_cast<MPI_Count>(type.extent);
  });
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                             MPI_Aint* true_extent) {
  return Guard("MPI_Type_get_true_extent", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *true_lb = static_cast<MPI_Aint>(type.true_lb);
    *true_extent = static_cast<MPI_Aint>(type.true_extent);
  });
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                               MPI_Count* true_extent) {
  return Guard("MPI_Type_get_true_extent_x", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *true_lb = static_cast<MPI_Count>(type.true_lb);
    *true_extent = static_cast<MPI_Count>(type.true_extent);
  });
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_contiguous", MPI_COMM_WORLD, [&] {
    bdmpi::TypeBlock block{count, oldtype, 0};
    *newtype = bdmpi::NewType({&block, 1}, false, "MPI_Type_contiguous");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_CONTIGUOUS, {count}, {}, {oldtype});
  });
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype* newtype) {
  return Guard("MPI_Type_vector", MPI_COMM_WORLD, [&] {
    std::int64_t extent = static_cast<std::int64_t>(bdmpi::LookupType(oldtype).extent);
    *newtype = bdmpi::NewVectorType(count, blocklength, std::int64_t{stride} * extent,
                                    oldtype, "MPI_Type_vector");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_VECTOR, {count, blocklength, stride}, {},
                       {oldtype});
  });
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                            MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hvector", MPI_COMM_WORLD, [&] {
    *newtype = bdmpi::NewVectorType(count, blocklength, stride, oldtype,
                                    "MPI_Type_create_hvector");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HVECTOR, {count, blocklength}, {stride},
                       {oldtype});
  });
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_indexed", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_indexed");
    std::int64_t extent = static_cast<std::int64_t>(bdmpi::LookupType(oldtype).extent);
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], oldtype, displacements[i] * extent});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_indexed");
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    ints.insert(ints.end(), displacements, displacements + count);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_INDEXED, std::move(ints), {}, {oldtype});
  });
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_indexed_block", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_create_indexed_block");
    std::int64_t extent = static_cast<std::int64_t>(bdmpi::LookupType(oldtype).extent);
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({blocklength, oldtype, displacements[i] * extent});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_indexed_block");
    std::vector<int> ints{count, blocklength};
    ints.insert(ints.end(), displacements, displacements + count);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_INDEXED_BLOCK, std::move(ints), {},
                       {oldtype});
  });
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int blocklengths[],
                             const MPI_Aint displacements[], MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hindexed", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_create_hindexed");
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], oldtype, displacements[i]});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_hindexed");
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HINDEXED, std::move(ints),
                       {displacements, displacements + count}, {oldtype});
  });
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int blocklengths[],
                           const MPI_Aint displacements[], const MPI_Datatype types[],
                           MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_struct", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_create_struct");
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], types[i], displacements[i]});
    *newtype = bdmpi::NewType(blocks, true, "MPI_Type_create_struct");
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_STRUCT, std::move(ints),
                       {displacements, displacements + count}, {types, types + count});
  });
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_resized", MPI_COMM_WORLD, [&] {
    *newtype = bdmpi::NewResizedType(oldtype, lb, extent);
  });
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hindexed_block", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_create_hindexed_block");
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i) blocks.push_back({blocklength, oldtype, displacements[i]});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_hindexed_block");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HINDEXED_BLOCK, {count, blocklength},
                       {displacements, displacements + count}, {oldtype});
  });
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                             const int starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_subarray", MPI_COMM_WORLD, [&] {
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_create_subarray: order must be MPI_ORDER_C or MPI_ORDER_FORTRAN");
    if (ndims <= 0)
      throw Error(bdmpi::kErrArg, "MPI_Type_create_subarray: ndims must be positive");
    auto n = static_cast<std::size_t>(ndims);
    std::vector<std::int64_t> wide_sizes(sizes, sizes + n), wide_subsizes(subsizes, subsizes + n),
        wide_starts(starts, starts + n);
    *newtype = bdmpi::NewSubarrayType(wide_sizes, wide_subsizes, wide_starts,
                                      order == MPI_ORDER_C, oldtype);
    std::vector<int> ints{ndims};
    for (const int* array : {sizes, subsizes, starts}) ints.insert(ints.end(), array, array + n);
    ints.push_back(order);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_SUBARRAY, std::move(ints), {}, {oldtype});
  });
}

// MPI-1 names (deprecated, removed in MPI-3.0, still in Open MPI 4.1).
#pragma weak MPI_Type_hvector = PMPI_Type_hvector
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed
int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[],
                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}

#pragma weak MPI_Type_struct = PMPI_Type_struct
int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[],
                    MPI_Datatype types[], MPI_Datatype* newtype) {
  return PMPI_Type_create_struct(count, blocklengths, displacements, types, newtype);
}

#pragma weak MPI_Address = PMPI_Address
int PMPI_Address(void* location, MPI_Aint* address) {
  return PMPI_Get_address(location, address);
}

#pragma weak MPI_Type_extent = PMPI_Type_extent
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  return PMPI_Type_get_extent(datatype, &lb, extent);
}

#pragma weak MPI_Type_lb = PMPI_Type_lb
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint extent = 0;
  return PMPI_Type_get_extent(datatype, displacement, &extent);
}

#pragma weak MPI_Type_ub = PMPI_Type_ub
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint lb = 0, extent = 0;
  int error = PMPI_Type_get_extent(datatype, &lb, &extent);
  if (error == MPI_SUCCESS) *displacement = lb + extent;
  return error;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                          int* num_datatypes, int* combiner) {
  return Guard("MPI_Type_get_envelope", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeEnvelope& envelope = bdmpi::EnvelopeOf(datatype);
    if (!envelope.counts.empty())
      throw Error(bdmpi::kErrType, "MPI_Type_get_envelope: the datatype was made by a "
                                   "large-count constructor; use MPI_Type_get_envelope_c");
    *num_integers = static_cast<int>(envelope.ints.size());
    *num_addresses = static_cast<int>(envelope.aints.size());
    *num_datatypes = static_cast<int>(envelope.types.size());
    *combiner = envelope.combiner;
  });
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int integers[], MPI_Aint addresses[],
                          MPI_Datatype datatypes[]) {
  return Guard("MPI_Type_get_contents", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeEnvelope& envelope = bdmpi::EnvelopeOf(datatype);
    if (envelope.combiner == MPI_COMBINER_NAMED)
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_get_contents: a predefined datatype has no contents");
    if (!envelope.counts.empty())
      throw Error(bdmpi::kErrType, "MPI_Type_get_contents: the datatype was made by a "
                                   "large-count constructor; use MPI_Type_get_contents_c");
    if (static_cast<std::size_t>(max_integers) < envelope.ints.size() ||
        static_cast<std::size_t>(max_addresses) < envelope.aints.size() ||
        static_cast<std::size_t>(max_datatypes) < envelope.types.size())
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_get_contents: the arrays are smaller than "
                  "MPI_Type_get_envelope's counts");
    std::copy(envelope.ints.begin(), envelope.ints.end(), integers);
    std::copy(envelope.aints.begin(), envelope.aints.end(), addresses);
    std::copy(envelope.types.begin(), envelope.types.end(), datatypes);
    bdmpi::TakeContentTypes(datatype);
  });
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_dup", MPI_COMM_WORLD, [&] {
    *newtype = bdmpi::DupType(oldtype);
    bdmpi::CopyAttrs(bdmpi::AttrKind::kType, oldtype, *newtype);
  });
}

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype* datatype) {
  return Guard("MPI_Type_commit", MPI_COMM_WORLD, [&] { bdmpi::CommitType(datatype); });
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype* datatype) {
  return Guard("MPI_Type_free", MPI_COMM_WORLD, [&] {
    bdmpi::LookupType(*datatype);
    bdmpi::DeleteAllAttrs(bdmpi::AttrKind::kType, *datatype);
    bdmpi::FreeType(datatype);
  });
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  return Guard("MPI_Type_get_name", MPI_COMM_WORLD, [&] {
    // MPI-4.1 7.8: the null handle is named too.
    std::snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s",
                  datatype == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                : bdmpi::LookupType(datatype).name.c_str());
    *resultlen = static_cast<int>(std::strlen(type_name));
  });
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  return Guard("MPI_Type_set_name", MPI_COMM_WORLD,
               [&] { bdmpi::SetTypeName(datatype, type_name); });
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
             int outsize, int* position, MPI_Comm comm) {
  return Guard("MPI_Pack", comm, [&] {
    const bdmpi::TypeInfo& type = bdmpi::CommType(incount, datatype);
    std::uint64_t bytes = bdmpi::WireBytes(incount, datatype);
    if (*position < 0 || static_cast<std::uint64_t>(*position) + bytes >
                             static_cast<std::uint64_t>(outsize))
      throw Error(bdmpi::kErrTruncate, "MPI_Pack: the output buffer is too small");
    bdmpi::PackElements(inbuf, incount, type, static_cast<std::byte*>(outbuf) + *position);
    *position += static_cast<int>(bytes);
  });
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) {
  return Guard("MPI_Unpack", comm, [&] {
    const bdmpi::TypeInfo& type = bdmpi::CommType(outcount, datatype);
    std::uint64_t bytes = bdmpi::WireBytes(outcount, datatype);
    if (*position < 0 ||
        static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(insize))
      throw Error(bdmpi::kErrTruncate, "MPI_Unpack: the input buffer is too short");
    bdmpi::UnpackElements(static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf,
                          outcount, type);
    *position += static_cast<int>(bytes);
  });
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  return Guard("MPI_Pack_size", comm, [&] {
    std::uint64_t bytes = bdmpi::WireBytes(incount, datatype);
    if (bytes > INT_MAX) throw Error(bdmpi::kErrCount, "MPI_Pack_size: more than 2 GiB");
    *size = static_cast<int>(bytes);
  });
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return Guard("MPI_Get_count", MPI_COMM_WORLD, [&] {
    *count = bdmpi::CountOf(static_cast<std::uint64_t>(status->bdmpi_count), datatype);
  });
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return Guard("MPI_Get_elements", MPI_COMM_WORLD, [&] {
    std::int64_t elements =
        bdmpi::ElementsOf(static_cast<std::uint64_t>(status->bdmpi_count), datatype);
    *count = elements > INT_MAX ? MPI_UNDEFINED : static_cast<int>(elements);
  });
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return Guard("MPI_Get_elements_x", MPI_COMM_WORLD, [&] {
    *count = bdmpi::ElementsOf(static_cast<std::uint64_t>(status->bdmpi_count), datatype);
  });
}

}  // extern "C"

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
    // The Fortran-sized names, as Open MPI answers (REAL(16) is binary128,
    // not long double).
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
        {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16},
        {MPI_TYPECLASS_REAL, 16, MPI_REAL16},
        {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
        {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
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

// gfortran's real kind of at least `precision` decimal digits and exponent
// range `range` (MPI_UNDEFINED: any): 4, 8, 10 (x87, long double) or 16
// (binary128).
int RealKind(int precision, int range, const char* call) {
  struct Kind {
    int precision, range, bytes;
  };
  static const Kind kKinds[] = {{6, 37, 4}, {15, 307, 8}, {18, 4931, 10}, {33, 4931, 16}};
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
    MPI_Datatype match = bytes == 4    ? MPI_REAL4
                         : bytes == 8  ? MPI_REAL8
                         : bytes == 10 ? MPI_LONG_DOUBLE
                                       : MPI_REAL16;
    *newtype = F90Type(MPI_COMBINER_F90_REAL, p, r, match, {p, r});
  });
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_f90_complex", MPI_COMM_WORLD, [&] {
    int bytes = RealKind(p, r, "MPI_Type_create_f90_complex");
    MPI_Datatype match = bytes == 4    ? MPI_COMPLEX8
                         : bytes == 8  ? MPI_COMPLEX16
                         : bytes == 10 ? MPI_C_LONG_DOUBLE_COMPLEX
                                       : MPI_COMPLEX32;
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
                         : r <= 38                    ? MPI_INTEGER16
                                                      : MPI_DATATYPE_NULL;
    if (match == MPI_DATATYPE_NULL)
      throw Error(bdmpi::kErrArg, "MPI_Type_create_f90_integer: no integer type has range " +
                                      std::to_string(r));
    *newtype = F90Type(MPI_COMBINER_F90_INTEGER, r, 0, match, {r});
  });
}

// ------------------------------------------------ large counts (MPI-4.1 _c)
// The constructors record their counts as large counts (MPI-4.1 5.1.13:
// MPI_Type_get_envelope_c's num_large_counts), and every size is 64-bit.

namespace {

std::vector<MPI_Count> Counts(std::initializer_list<MPI_Count> head, MPI_Count n = 0,
                              const MPI_Count* a = nullptr, const MPI_Count* b = nullptr) {
  std::vector<MPI_Count> counts(head);
  if (a != nullptr) counts.insert(counts.end(), a, a + n);
  if (b != nullptr) counts.insert(counts.end(), b, b + n);
  return counts;
}

void CheckArrayCount(MPI_Count count, const char* call) {
  bdmpi::CheckTypeCount(count, call);
  if (count > INT_MAX)
    throw Error(bdmpi::kErrCount, std::string(call) + ": more than INT_MAX blocks given as an "
                                                      "array (use a vector or nested types)");
}

// MPI_Pack_c and MPI_Unpack_c; `position` in bytes from the buffer.
void PackTo(const char* call, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
            void* outbuf, MPI_Count outsize, MPI_Count* position) {
  const bdmpi::TypeInfo& type = bdmpi::CommType(incount, datatype);
  std::uint64_t bytes = bdmpi::WireBytes(incount, datatype);
  if (*position < 0 || outsize < 0 ||
      static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(outsize))
    throw Error(bdmpi::kErrTruncate, std::string(call) + ": the output buffer is too small");
  bdmpi::PackElements(inbuf, incount, type, static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<MPI_Count>(bytes);
}

}  // namespace

extern "C" {

#pragma weak MPI_Type_size_c = PMPI_Type_size_c
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  return Guard("MPI_Type_size_c", MPI_COMM_WORLD, [&] {
    *size = static_cast<MPI_Count>(bdmpi::LookupType(datatype).size);
  });
}

#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return Guard("MPI_Type_get_extent_c", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *lb = static_cast<MPI_Count>(type.lb);
    *extent = static_cast<MPI_Count>(type.extent);
  });
}

#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                                MPI_Count* true_extent) {
  return Guard("MPI_Type_get_true_extent_c", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *true_lb = static_cast<MPI_Count>(type.true_lb);
    *true_extent = static_cast<MPI_Count>(type.true_extent);
  });
}

#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_contiguous_c", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_contiguous_c");
    bdmpi::TypeBlock block{count, oldtype, 0};
    *newtype = bdmpi::NewType({&block, 1}, false, "MPI_Type_contiguous_c");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_CONTIGUOUS, {}, {}, {oldtype}, {count});
  });
}

#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_vector_c", MPI_COMM_WORLD, [&] {
    std::int64_t extent = bdmpi::LookupType(oldtype).extent;
    *newtype = bdmpi::NewVectorType(count, blocklength, stride * extent, oldtype,
                                    "MPI_Type_vector_c");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_VECTOR, {}, {}, {oldtype},
                       {count, blocklength, stride});
  });
}

#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hvector_c", MPI_COMM_WORLD, [&] {
    *newtype = bdmpi::NewVectorType(count, blocklength, stride, oldtype,
                                    "MPI_Type_create_hvector_c");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HVECTOR, {}, {}, {oldtype},
                       {count, blocklength, stride});
  });
}

#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count blocklengths[],
                        const MPI_Count displacements[], MPI_Datatype oldtype,
                        MPI_Datatype* newtype) {
  return Guard("MPI_Type_indexed_c", MPI_COMM_WORLD, [&] {
    CheckArrayCount(count, "MPI_Type_indexed_c");
    std::int64_t extent = bdmpi::LookupType(oldtype).extent;
    std::vector<bdmpi::TypeBlock> blocks;
    for (MPI_Count i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], oldtype, displacements[i] * extent});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_indexed_c");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_INDEXED, {}, {}, {oldtype},
                       Counts({count}, count, blocklengths, displacements));
  });
}

#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count blocklengths[],
                                const MPI_Count displacements[], MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hindexed_c", MPI_COMM_WORLD, [&] {
    CheckArrayCount(count, "MPI_Type_create_hindexed_c");
    std::vector<bdmpi::TypeBlock> blocks;
    for (MPI_Count i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], oldtype, displacements[i]});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_hindexed_c");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HINDEXED, {}, {}, {oldtype},
                       Counts({count}, count, blocklengths, displacements));
  });
}

#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_indexed_block_c", MPI_COMM_WORLD, [&] {
    CheckArrayCount(count, "MPI_Type_create_indexed_block_c");
    std::int64_t extent = bdmpi::LookupType(oldtype).extent;
    std::vector<bdmpi::TypeBlock> blocks;
    for (MPI_Count i = 0; i < count; ++i)
      blocks.push_back({blocklength, oldtype, displacements[i] * extent});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_indexed_block_c");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_INDEXED_BLOCK, {}, {}, {oldtype},
                       Counts({count, blocklength}, count, displacements));
  });
}

#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hindexed_block_c", MPI_COMM_WORLD, [&] {
    CheckArrayCount(count, "MPI_Type_create_hindexed_block_c");
    std::vector<bdmpi::TypeBlock> blocks;
    for (MPI_Count i = 0; i < count; ++i)
      blocks.push_back({blocklength, oldtype, displacements[i]});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_hindexed_block_c");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HINDEXED_BLOCK, {}, {}, {oldtype},
                       Counts({count, blocklength}, count, displacements));
  });
}

#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count blocklengths[],
                              const MPI_Count displacements[], const MPI_Datatype types[],
                              MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_struct_c", MPI_COMM_WORLD, [&] {
    CheckArrayCount(count, "MPI_Type_create_struct_c");
    std::vector<bdmpi::TypeBlock> blocks;
    for (MPI_Count i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], types[i], displacements[i]});
    *newtype = bdmpi::NewType(blocks, true, "MPI_Type_create_struct_c");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_STRUCT, {}, {}, {types, types + count},
                       Counts({count}, count, blocklengths, displacements));
  });
}

#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_resized_c", MPI_COMM_WORLD, [&] {
    *newtype = bdmpi::NewResizedType(oldtype, lb, extent);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_RESIZED, {}, {}, {oldtype}, {lb, extent});
  });
}

#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                                const MPI_Count starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_subarray_c", MPI_COMM_WORLD, [&] {
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_create_subarray_c: order must be MPI_ORDER_C or MPI_ORDER_FORTRAN");
    if (ndims <= 0)
      throw Error(bdmpi::kErrArg, "MPI_Type_create_subarray_c: ndims must be positive");
    auto n = static_cast<std::size_t>(ndims);
    std::vector<std::int64_t> wide_sizes(sizes, sizes + n), wide_subsizes(subsizes, subsizes + n),
        wide_starts(starts, starts + n);
    *newtype = bdmpi::NewSubarrayType(wide_sizes, wide_subsizes, wide_starts,
                                      order == MPI_ORDER_C, oldtype);
    std::vector<MPI_Count> counts;
    for (const MPI_Count* array : {sizes, subsizes, starts})
      counts.insert(counts.end(), array, array + n);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_SUBARRAY, {ndims, order}, {}, {oldtype},
                       std::move(counts));
  });
}

#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[],
                              const int distribs[], const int dargs[], const int psizes[],
                              int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_darray_c", MPI_COMM_WORLD, [&] {
    if (ndims <= 0)
      throw Error(bdmpi::kErrArg, "MPI_Type_create_darray_c: ndims must be positive");
    auto n = static_cast<std::size_t>(ndims);
    std::vector<int> narrow;
    for (std::size_t d = 0; d < n; ++d) {
      if (gsizes[d] > INT_MAX)
        throw Error(bdmpi::kErrCount, "MPI_Type_create_darray_c: a global size beyond "
                                      "INT_MAX is not supported");
      narrow.push_back(static_cast<int>(gsizes[d]));
    }
    *newtype = bdmpi::NewDarrayType(size, rank, narrow, {distribs, n}, {dargs, n}, {psizes, n},
                                    order, oldtype);
    std::vector<int> ints{size, rank, ndims};
    for (const int* array : {distribs, dargs, psizes}) ints.insert(ints.end(), array, array + n);
    ints.push_back(order);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_DARRAY, std::move(ints), {}, {oldtype},
                       {gsizes, gsizes + n});
  });
}

#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers,
                             MPI_Count* num_addresses, MPI_Count* num_large_counts,
                             MPI_Count* num_datatypes, int* combiner) {
  return Guard("MPI_Type_get_envelope_c", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeEnvelope& envelope = bdmpi::EnvelopeOf(datatype);
    *num_integers = static_cast<MPI_Count>(envelope.ints.size());
    *num_addresses = static_cast<MPI_Count>(envelope.aints.size());
    *num_large_counts = static_cast<MPI_Count>(envelope.counts.size());
    *num_datatypes = static_cast<MPI_Count>(envelope.types.size());
    *combiner = envelope.combiner;
  });
}

#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int integers[], MPI_Aint addresses[],
                             MPI_Count large_counts[], MPI_Datatype datatypes[]) {
  return Guard("MPI_Type_get_contents_c", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeEnvelope& envelope = bdmpi::EnvelopeOf(datatype);
    if (envelope.combiner == MPI_COMBINER_NAMED)
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_get_contents_c: a predefined datatype has no contents");
    if (max_integers < static_cast<MPI_Count>(envelope.ints.size()) ||
        max_addresses < static_cast<MPI_Count>(envelope.aints.size()) ||
        max_large_counts < static_cast<MPI_Count>(envelope.counts.size()) ||
        max_datatypes < static_cast<MPI_Count>(envelope.types.size()))
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_get_contents_c: the arrays are smaller than "
                  "MPI_Type_get_envelope_c's counts");
    std::copy(envelope.ints.begin(), envelope.ints.end(), integers);
    std::copy(envelope.aints.begin(), envelope.aints.end(), addresses);
    std::copy(envelope.counts.begin(), envelope.counts.end(), large_counts);
    std::copy(envelope.types.begin(), envelope.types.end(), datatypes);
    bdmpi::TakeContentTypes(datatype);
  });
}

#pragma weak MPI_Pack_c = PMPI_Pack_c
int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  return Guard("MPI_Pack_c", comm, [&] {
    PackTo("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position);
  });
}

#pragma weak MPI_Unpack_c = PMPI_Unpack_c
int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  return Guard("MPI_Unpack_c", comm, [&] {
    const bdmpi::TypeInfo& type = bdmpi::CommType(outcount, datatype);
    std::uint64_t bytes = bdmpi::WireBytes(outcount, datatype);
    if (*position < 0 || insize < 0 ||
        static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(insize))
      throw Error(bdmpi::kErrTruncate, "MPI_Unpack_c: the input buffer is too short");
    bdmpi::UnpackElements(static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf,
                          outcount, type);
    *position += static_cast<MPI_Count>(bytes);
  });
}

#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return Guard("MPI_Pack_size_c", comm, [&] {
    std::uint64_t bytes = bdmpi::WireBytes(incount, datatype);
    if (bytes > static_cast<std::uint64_t>(INT64_MAX))
      throw Error(bdmpi::kErrCount, "MPI_Pack_size_c: more than 2^63 bytes");
    *size = static_cast<MPI_Count>(bytes);
  });
}

#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c
int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count* size) {
  return Guard("MPI_Pack_external_size_c", MPI_COMM_WORLD, [&] {
    CheckDatarep(datarep, "MPI_Pack_external_size_c");
    const bdmpi::TypeInfo& type = bdmpi::CommType(incount, datatype);
    *size = static_cast<MPI_Count>(static_cast<std::uint64_t>(incount) * External32Bytes(type));
  });
}

#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c
int PMPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                         MPI_Count* position) {
  return Guard("MPI_Pack_external_c", MPI_COMM_WORLD, [&] {
    CheckDatarep(datarep, "MPI_Pack_external_c");
    const bdmpi::TypeInfo& type = bdmpi::CommType(incount, datatype);
    const std::uint64_t bytes = static_cast<std::uint64_t>(incount) * External32Bytes(type);
    if (*position < 0 || outsize < 0 ||
        static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(outsize))
      throw Error(bdmpi::kErrTruncate, "MPI_Pack_external_c: the output buffer is too small");
    std::vector<std::byte> wire(bdmpi::WireBytes(incount, datatype));
    bdmpi::PackElements(inbuf, incount, type, wire.data());
    ConvertElements(type, incount, wire.data(), static_cast<std::byte*>(outbuf) + *position,
                    true, bdmpi::ToExternal32);
    *position += static_cast<MPI_Count>(bytes);
  });
}

#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c
int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize,
                           MPI_Count* position, void* outbuf, MPI_Count outcount,
                           MPI_Datatype datatype) {
  return Guard("MPI_Unpack_external_c", MPI_COMM_WORLD, [&] {
    CheckDatarep(datarep, "MPI_Unpack_external_c");
    const bdmpi::TypeInfo& type = bdmpi::CommType(outcount, datatype);
    const std::uint64_t bytes = static_cast<std::uint64_t>(outcount) * External32Bytes(type);
    if (*position < 0 || insize < 0 ||
        static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(insize))
      throw Error(bdmpi::kErrTruncate, "MPI_Unpack_external_c: the input buffer is too short");
    std::vector<std::byte> wire(bdmpi::WireBytes(outcount, datatype));
    ConvertElements(type, outcount, static_cast<const std::byte*>(inbuf) + *position,
                    wire.data(), false, bdmpi::FromExternal32);
    bdmpi::UnpackElements(wire.data(), wire.size(), outbuf, outcount, type);
    *position += static_cast<MPI_Count>(bytes);
  });
}

#pragma weak MPI_Get_count_c = PMPI_Get_count_c
int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return Guard("MPI_Get_count_c", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    const auto bytes = static_cast<std::uint64_t>(status->bdmpi_count);
    if (type.size == 0)
      *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else
      *count = bytes % type.size != 0 ? MPI_UNDEFINED : static_cast<MPI_Count>(bytes / type.size);
  });
}

#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c
int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const bdmpi::CallName name("MPI_Get_elements_c");
  return PMPI_Get_elements_x(status, datatype, count);
}

#pragma weak MPI_Type_get_value_index = PMPI_Type_get_value_index
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype* pair_type) {
  return Guard("MPI_Type_get_value_index", MPI_COMM_WORLD, [&] {
    bdmpi::LookupType(value_type);
    bdmpi::LookupType(index_type);
    if (pair_type == nullptr) throw Error(bdmpi::kErrArg, "no place for the pair type given");
    // MPI-4.1 5.9.4: the predefined pair types of MINLOC and MAXLOC; any
    // other combination has none.
    struct Pair {
      MPI_Datatype value, index, pair;
    };
    static const Pair kPairs[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},
        {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
    };
    *pair_type = MPI_DATATYPE_NULL;
    for (const Pair& pair : kPairs) {
      if (pair.value == value_type && pair.index == index_type) *pair_type = pair.pair;
    }
  });
}

}  // extern "C"
