// Datatypes as a slave sees them. Every type, predefined or derived, is
// kept as the runs of bytes one element occupies (relative to the buffer
// address, so a negative lower bound gives negative offsets), its bounds,
// and its type signature as runs of predefined types. A run may repeat at
// a stride and nest the runs of an inner type (TypeRun), so that a vector
// of 2^31 blocks costs one run, not 2^31: packing walks them lazily.
//
// On the wire (to the master and between ranks) an element is its runs
// concatenated: a predefined element travels as its size (a value-index
// pair packed, without its padding, so that it matches a struct of the
// same type signature; the master's reduction kernels read that form). A
// `dense` type, whose element is one run from offset 0 filling its extent,
// travels as the user's buffer as is; any other type is packed once into a
// contiguous staging buffer and unpacked on receipt (see PackElements).
//
// The master only ever sees bytes and, for reductions, one predefined base
// type. Point-to-point and every collective pack and unpack (wire_data.h);
// user-defined operations see their operands as laid out in memory
// (ApplyOpWire, coll_p2p.h).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/datatype.h"
#include "common/handles.h"

namespace bdmpi {

// Bytes [offset, offset + length) of one element, `count` times, `stride`
// bytes apart. With `inner` set, each repetition is instead the runs
// `inner` lists (relative to offset + k * stride, `length` bytes of data in
// all): a constructor of many elements of a type with gaps keeps one run
// for them rather than a copy of the type's runs per element.
struct TypeRun {
  std::int64_t offset = 0;
  std::uint64_t length = 0;
  std::uint64_t count = 1;
  std::int64_t stride = 0;
  std::shared_ptr<const std::vector<TypeRun>> inner;

  bool Simple() const { return count == 1 && inner == nullptr; }
  std::uint64_t Bytes() const { return count * length; }
};

// `count` consecutive predefined elements of `type` in the type signature.
struct SignatureRun {
  DatatypeId type = DatatypeId::kNull;
  std::uint64_t count = 0;
};

// How a type was made (MPI_Type_get_envelope / get_contents). Derived
// types named here are kept alive by this reference (`inner_uses`).
struct TypeEnvelope {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Count> counts;  // a large-count (_c) constructor's
  std::vector<MPI_Datatype> types;
};

struct TypeInfo {
  DatatypeId base = DatatypeId::kNull;  // kByte when `mixed`
  bool mixed = false;                   // of several predefined types
  bool predefined = true;
  bool committed = true;
  // The bounds come from MPI_LB / MPI_UB markers or MPI_Type_create_resized
  // (which sets both): they stick through further constructors (the MPI-1
  // rules, MPI-3.1 4.1.7), and MPI_Type_create_struct adds no padding.
  bool lb_marker = false;
  bool ub_marker = false;
  std::uint64_t count = 1;    // elements of base in one element of the type
  std::uint64_t size = 0;     // bytes of data (MPI_Type_size), and of one element on the wire
  std::int64_t lb = 0;
  std::int64_t extent = 0;    // ub - lb: negative after a resize to one
  std::int64_t true_lb = 0;
  std::uint64_t true_extent = 0;
  std::uint64_t alignment = 1;  // largest alignof of its predefined types
  std::vector<TypeRun> runs;    // in type-map order, adjacent runs merged
  std::vector<SignatureRun> signature;
  std::string name;
  TypeEnvelope envelope;
  // MPI_Type_free drops a user handle; the type lives on while another
  // type's envelope names it (MPI_Type_get_contents may hand it out again).
  int user_handles = 1;
  int inner_uses = 0;

  // One run from offset 0 that fills the extent: the buffer moves as is.
  bool Dense() const {
    return lb == 0 && extent >= 0 && size == static_cast<std::uint64_t>(extent) &&
           (runs.empty() || (runs.size() == 1 && runs[0].Simple() && runs[0].offset == 0));
  }
};

// Throws kErrType for MPI_DATATYPE_NULL, freed types and non-datatypes.
const TypeInfo& LookupType(MPI_Datatype datatype);
// A committed type, for a communication call: throws kErrCount for a
// negative count and kErrType for a type not committed.
const TypeInfo& CommType(std::int64_t count, MPI_Datatype datatype);
// Bytes `count` elements of `datatype` take on the wire (see above).
std::uint64_t WireBytes(std::int64_t count, MPI_Datatype datatype);
// count elements of a dense datatype in bytes, for the calls that move the
// user's buffer as is (collectives, reductions): like CommType, and throws
// kErrType for a type with gaps, naming `call`.
std::uint64_t BufferBytes(int count, MPI_Datatype datatype,
                          const char* call = "this collective");
// The predefined type a reduction works on (kErrOp for mixed types).
DatatypeId ReductionBase(MPI_Datatype datatype);
// MPI_Get_count / MPI_Get_elements of a received byte count (wire bytes).
int CountOf(std::uint64_t bytes, MPI_Datatype datatype);
std::int64_t ElementsOf(std::uint64_t bytes, MPI_Datatype datatype);

// Calls fn(offset, length) for each contiguous piece of `runs` placed at
// `origin`, in type-map order, while fn returns true; false if stopped.
template <class Fn>
bool ForEachRun(const std::vector<TypeRun>& runs, std::int64_t origin, Fn&& fn) {
  for (const TypeRun& run : runs) {
    for (std::uint64_t k = 0; k < run.count; ++k) {
      const std::int64_t at = origin + run.offset + static_cast<std::int64_t>(k) * run.stride;
      if (run.inner != nullptr ? !ForEachRun(*run.inner, at, fn) : !fn(at, run.length))
        return false;
    }
  }
  return true;
}
// The runs of one element as simple runs (one per block): for the calls
// that need random access into them (file views, one-sided transfers).
std::vector<TypeRun> FlatRuns(const TypeInfo& type);

// Copies `count` elements at `buffer` into `out` (WireBytes of them).
void PackElements(const void* buffer, std::int64_t count, const TypeInfo& type,
                  std::byte* out);
// Copies the first `bytes` wire bytes of `in` into `count` elements at
// `buffer`, leaving the rest (and every gap) untouched.
void UnpackElements(const std::byte* in, std::uint64_t bytes, void* buffer, std::int64_t count,
                    const TypeInfo& type);

// One block of a type constructor: `count` elements of `type` at byte
// displacement `displacement`.
struct TypeBlock {
  std::int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::int64_t displacement = 0;
};
// A new (uncommitted) type made of blocks, in type-map order. `pad_to_alignment`
// (MPI_Type_create_struct) rounds the extent up to the largest alignment of
// its predefined types, as MPI-3.1 section 4.1.6 and Open MPI do.
MPI_Datatype NewType(std::span<const TypeBlock> blocks, bool pad_to_alignment,
                     const char* constructor);
// kErrCount for a constructor's negative count.
void CheckTypeCount(std::int64_t count, const char* constructor);
// count blocks of blocklength elements, `stride` bytes apart.
MPI_Datatype NewVectorType(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                           MPI_Datatype oldtype, const char* constructor);
MPI_Datatype NewResizedType(MPI_Datatype oldtype, std::int64_t lb, std::int64_t extent);
// MPI_Type_create_subarray: the subarray's elements, with the bounds of
// the whole array (lb 0, extent its bytes). `row_major` is MPI_ORDER_C.
MPI_Datatype NewSubarrayType(std::span<const std::int64_t> sizes,
                             std::span<const std::int64_t> subsizes,
                             std::span<const std::int64_t> starts, bool row_major,
                             MPI_Datatype oldtype);
MPI_Datatype DupType(MPI_Datatype datatype);
void CommitType(MPI_Datatype* datatype);
// Frees a derived type and sets the handle to MPI_DATATYPE_NULL.
void FreeType(MPI_Datatype* datatype);
void SetTypeName(MPI_Datatype datatype, const char* name);
// Records how `datatype` was made; derived `types` are kept alive by it.
void SetEnvelope(MPI_Datatype datatype, int combiner, std::vector<int> ints,
                 std::vector<MPI_Aint> aints, std::vector<MPI_Datatype> types,
                 std::vector<MPI_Count> counts = {});
// MPI_Type_get_envelope (kErrType for a type that is not there).
const TypeEnvelope& EnvelopeOf(MPI_Datatype datatype);
// MPI_Type_get_contents' datatypes: each derived one counts as a new
// handle the program must free.
void TakeContentTypes(MPI_Datatype datatype);

}  // namespace bdmpi
