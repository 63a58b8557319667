#include "slave/datatype/datatypes.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "slave/runtime/handle_table.h"

namespace bdmpi {
namespace {

constexpr int kFirstDerived = static_cast<int>(DatatypeId::kPredefinedEnd);

// The predefined types' flattened form (defined below, after the helpers
// that build runs).
std::vector<TypeInfo> MakePredefined();

std::vector<TypeInfo>& Predefined() {
  static std::vector<TypeInfo> types = MakePredefined();
  return types;
}

HandleTable<TypeInfo>& Derived() {
  static HandleTable<TypeInfo> types(HandleKind::kDatatype, kFirstDerived);
  return types;
}

// Also types the program has freed but another type's envelope still names.
TypeInfo* FindAnyType(MPI_Datatype datatype) {
  if (!HandleIs(datatype, HandleKind::kDatatype)) return nullptr;
  int index = HandleIndex(datatype);
  if (index > 0 && index < kFirstDerived) return &Predefined()[index];
  return Derived().Find(datatype);
}

TypeInfo* FindType(MPI_Datatype datatype) {
  TypeInfo* type = FindAnyType(datatype);
  return type != nullptr && type->user_handles > 0 ? type : nullptr;
}

// Drops one envelope reference to each derived type in `envelope`.
void ReleaseInner(const TypeEnvelope& envelope);

void RemoveIfUnused(MPI_Datatype datatype) {
  TypeInfo* type = Derived().Find(datatype);
  if (type == nullptr || type->user_handles > 0 || type->inner_uses > 0) return;
  TypeEnvelope envelope = std::move(type->envelope);
  Derived().Remove(datatype);
  ReleaseInner(envelope);
}

void ReleaseInner(const TypeEnvelope& envelope) {
  for (MPI_Datatype inner : envelope.types) {
    TypeInfo* type = FindAnyType(inner);
    if (type == nullptr || type->predefined) continue;
    --type->inner_uses;
    RemoveIfUnused(inner);
  }
}

TypeInfo& LookupDerived(MPI_Datatype datatype) {
  TypeInfo* type = FindType(datatype);
  if (type == nullptr) throw Error(kErrType, "invalid datatype");
  if (type->predefined)
    throw Error(kErrType, "a predefined datatype cannot be freed");
  return *type;
}

MPI_Datatype AddDerived(TypeInfo type) {
  type.predefined = false;
  type.committed = false;
  type.envelope = {};  // set by SetEnvelope
  type.user_handles = 1;
  type.inner_uses = 0;
  return Derived().Add(std::move(type));
}

std::uint64_t Times(std::uint64_t count, std::uint64_t bytes) {
  if (bytes != 0 && count > UINT64_MAX / bytes)
    throw Error(kErrCount, "datatype larger than 2^64 bytes");
  return count * bytes;
}

// Basic elements one predefined element counts for in MPI_Get_elements: a
// value-index pair is two (its value and its index), as in Open MPI.
std::uint64_t BasicElements(DatatypeId id) {
  return FindPredefinedDatatype(id)->type_class == TypeClass::kPair ? 2 : 1;
}

void AppendRun(std::vector<TypeRun>& runs, TypeRun run) {
  if (run.length == 0 || run.count == 0) return;
  if (run.Simple() && !runs.empty() && runs.back().Simple() &&
      runs.back().offset + static_cast<std::int64_t>(runs.back().length) == run.offset) {
    runs.back().length += run.length;
    return;
  }
  runs.push_back(std::move(run));
}

// Runs one element's copies expand to before a constructor keeps them as
// one repeated run instead: below it, merging adjacent runs keeps the
// common small types as flat as before (and Dense where they tile).
constexpr std::uint64_t kExpandRuns = 64;

std::vector<TypeInfo> MakePredefined() {
  std::vector<TypeInfo> types(kFirstDerived);
  for (int index = 1; index < kFirstDerived; ++index) {
    auto id = static_cast<DatatypeId>(index);
    const DatatypeInfo* info = FindPredefinedDatatype(id);
    TypeInfo& type = types[index];
    type.base = id;
    type.size = info->size;
    type.extent = info->extent;
    type.alignment = info->alignment;
    if (info->index_size == 0) {
      type.runs = {{0, info->extent, 1, 0, nullptr}};
    } else {
      // A pair travels packed: its value, then its index (datatype.h).
      AppendRun(type.runs, {0, info->size - info->index_size, 1, 0, nullptr});
      AppendRun(type.runs, {info->index_offset, info->index_size, 1, 0, nullptr});
    }
    type.signature = {{id, 1}};
    if (info->size == 0) {
      // MPI_LB, MPI_UB: a bound, no data.
      type.runs.clear();
      type.signature.clear();
      type.lb_marker = id == DatatypeId::kLb;
      type.ub_marker = id == DatatypeId::kUb;
    }
    // A value-index pair ends with its index: the padding after it (if
    // any) is not part of the true extent.
    type.true_extent = info->index_size != 0 ? info->index_offset + info->index_size
                                             : info->size;
    type.name = info->name;
  }
  return types;
}

void AppendSignature(std::vector<SignatureRun>& signature, SignatureRun run) {
  if (run.count == 0) return;
  if (!signature.empty() && signature.back().type == run.type) {
    signature.back().count += run.count;
    return;
  }
  signature.push_back(run);
}

// Adds `count` elements of `type` whose first starts at byte `origin`.
void AppendElements(TypeInfo& result, const TypeInfo& type, std::int64_t origin,
                    std::uint64_t count) {
  const std::int64_t extent = type.extent;
  if (type.runs.size() == 1 && type.runs[0].Simple() && extent > 0 &&
      type.runs[0].length == static_cast<std::uint64_t>(extent)) {
    // Elements that tile their extents: one run for all of them.
    AppendRun(result.runs, {origin + type.runs[0].offset, Times(count, type.runs[0].length), 1,
                            0, nullptr});
  } else if (count > 1 && type.size > 0 &&
             (type.runs.size() > kExpandRuns || count > kExpandRuns / type.runs.size())) {
    // Many elements: one run that repeats them, whatever their number.
    if (type.runs.size() == 1 && type.runs[0].Simple()) {
      AppendRun(result.runs,
                {origin + type.runs[0].offset, type.runs[0].length, count, extent, nullptr});
    } else {
      auto inner = std::make_shared<const std::vector<TypeRun>>(type.runs);
      AppendRun(result.runs, {origin, type.size, count, extent, std::move(inner)});
    }
  } else {
    for (std::uint64_t k = 0; k < count; ++k) {
      const std::int64_t at = origin + static_cast<std::int64_t>(k) * extent;
      for (TypeRun run : type.runs) {
        run.offset += at;
        AppendRun(result.runs, std::move(run));
      }
    }
  }
  if (type.signature.size() == 1) {
    AppendSignature(result.signature,
                    {type.signature[0].type, Times(count, type.signature[0].count)});
  } else {
    for (std::uint64_t k = 0; k < count; ++k)
      for (const SignatureRun& run : type.signature) AppendSignature(result.signature, run);
  }
}

// The base type and count of a signature, for reductions.
void SetBase(TypeInfo& type) {
  type.mixed = false;
  type.count = 0;
  type.base = type.signature.empty() ? DatatypeId::kByte : type.signature[0].type;
  for (const SignatureRun& run : type.signature) {
    if (run.type != type.base) type.mixed = true;
    type.count += run.count;
  }
  if (type.mixed) {
    type.base = DatatypeId::kByte;
    type.count = type.size;
  }
}

}  // namespace

const TypeInfo& LookupType(MPI_Datatype datatype) {
  const TypeInfo* type = FindType(datatype);
  if (type == nullptr) throw Error(kErrType, "invalid datatype");
  return *type;
}

const TypeInfo& CommType(std::int64_t count, MPI_Datatype datatype) {
  if (count < 0) throw Error(kErrCount, "negative count " + std::to_string(count));
  const TypeInfo& type = LookupType(datatype);
  if (!type.committed)
    throw Error(kErrType, "the datatype has not been committed (MPI_Type_commit)");
  return type;
}

std::uint64_t WireBytes(std::int64_t count, MPI_Datatype datatype) {
  return Times(static_cast<std::uint64_t>(count), CommType(count, datatype).size);
}

std::uint64_t BufferBytes(int count, MPI_Datatype datatype, const char* call) {
  const TypeInfo& type = CommType(count, datatype);
  if (!type.Dense())
    throw Error(kErrType, std::string(call) +
                              ": datatypes with gaps, or with a lower bound other than 0, "
                              "are not supported here yet (point-to-point calls, MPI_Bcast, "
                              "and reductions with predefined operations take them)");
  return Times(static_cast<std::uint64_t>(count), type.size);  // dense: size == extent
}

DatatypeId ReductionBase(MPI_Datatype datatype) {
  const TypeInfo& type = LookupType(datatype);
  if (type.mixed)
    throw Error(kErrOp, "reductions on a datatype of several predefined types are "
                        "not supported");
  return type.base;
}

int CountOf(std::uint64_t bytes, MPI_Datatype datatype) {
  const TypeInfo& type = LookupType(datatype);
  if (type.size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  if (bytes % type.size != 0 || bytes / type.size > INT_MAX) return MPI_UNDEFINED;
  return static_cast<int>(bytes / type.size);
}

std::int64_t ElementsOf(std::uint64_t bytes, MPI_Datatype datatype) {
  const TypeInfo& type = LookupType(datatype);
  if (type.size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  std::uint64_t per_element = 0;
  for (const SignatureRun& run : type.signature)
    per_element += run.count * BasicElements(run.type);
  std::uint64_t elements = bytes / type.size * per_element;
  std::uint64_t rest = bytes % type.size;
  // A partial element: count its whole predefined elements in order, and
  // the value of a pair whose index did not come.
  for (const SignatureRun& run : type.signature) {
    if (rest == 0) break;
    const DatatypeInfo* info = FindPredefinedDatatype(run.type);
    std::uint64_t whole = std::min<std::uint64_t>(run.count, rest / info->size);
    elements += whole * BasicElements(run.type);
    rest -= whole * info->size;
    if (whole < run.count) {
      const std::uint64_t value = info->size - info->index_size;
      if (info->index_size != 0 && rest >= value) {
        elements += 1;
        rest -= value;
      }
      break;
    }
  }
  if (rest != 0 || elements > INT64_MAX) return MPI_UNDEFINED;
  return static_cast<std::int64_t>(elements);
}

std::vector<TypeRun> FlatRuns(const TypeInfo& type) {
  std::vector<TypeRun> flat;
  ForEachRun(type.runs, 0, [&](std::int64_t offset, std::uint64_t length) {
    AppendRun(flat, {offset, length, 1, 0, nullptr});
    return true;
  });
  return flat;
}

void PackElements(const void* buffer, std::int64_t count, const TypeInfo& type,
                  std::byte* out) {
  const auto* origin = static_cast<const std::byte*>(buffer);
  for (std::int64_t i = 0; i < count; ++i) {
    ForEachRun(type.runs, i * type.extent, [&](std::int64_t offset, std::uint64_t length) {
      std::memcpy(out, origin + offset, length);
      out += length;
      return true;
    });
  }
}

void UnpackElements(const std::byte* in, std::uint64_t bytes, void* buffer, std::int64_t count,
                    const TypeInfo& type) {
  auto* origin = static_cast<std::byte*>(buffer);
  for (std::int64_t i = 0; i < count && bytes > 0; ++i) {
    ForEachRun(type.runs, i * type.extent, [&](std::int64_t offset, std::uint64_t length) {
      std::uint64_t n = std::min<std::uint64_t>(length, bytes);
      std::memcpy(origin + offset, in, n);
      in += n;
      bytes -= n;
      return bytes > 0;
    });
  }
}

namespace {

// The lowest lower bound and highest upper bound of some elements, kept
// apart for those with a marker (MPI_LB/MPI_UB or a resized type), which
// win over the others (MPI-1's rules for markers, MPI-3.1 4.1.7).
struct Bounds {
  std::int64_t low = INT64_MAX, high = INT64_MIN;
  std::int64_t marked_low = INT64_MAX, marked_high = INT64_MIN;
  bool lb_marker = false, ub_marker = false;

  // `count` elements of `type`, the first at `displacement`.
  void Add(const TypeInfo& type, std::int64_t displacement, std::int64_t count) {
    // With a negative extent the last element lies lowest.
    const std::int64_t span = (count - 1) * type.extent;
    const std::int64_t element_low = displacement + type.lb + std::min<std::int64_t>(0, span);
    const std::int64_t element_high =
        displacement + type.lb + type.extent + std::max<std::int64_t>(0, span);
    // A type without data (a marker, an empty type) bounds only the side
    // its marker is for, as in MPICH: { (LB, 10) } has lb 10, ub 0.
    const bool data = type.size > 0;
    if (type.lb_marker) {
      marked_low = std::min(marked_low, element_low);
    } else if (data) {
      low = std::min(low, element_low);
    }
    if (type.ub_marker) {
      marked_high = std::max(marked_high, element_high);
    } else if (data) {
      high = std::max(high, element_high);
    }
    lb_marker = lb_marker || type.lb_marker;
    ub_marker = ub_marker || type.ub_marker;
  }
  // An empty type has bounds 0.
  std::int64_t Lb() const { return lb_marker ? marked_low : low != INT64_MAX ? low : 0; }
  std::int64_t Ub() const { return ub_marker ? marked_high : high != INT64_MIN ? high : 0; }
};

}  // namespace

namespace {

// A derived type's bounds, size and alignment, block by block (its runs
// and signature are appended apart), then finished into a handle.
struct TypeBuilder {
  TypeInfo result;
  Bounds bounds;
  std::int64_t true_lb = INT64_MAX, true_ub = INT64_MIN;

  // The bounds of `count` elements of `type` at `displacement`.
  void Bound(const TypeInfo& type, std::int64_t displacement, std::int64_t count) {
    const std::int64_t last = displacement + (count - 1) * type.extent;
    bounds.Add(type, displacement, count);
    if (type.size > 0) {
      const auto true_extent = static_cast<std::int64_t>(type.true_extent);
      true_lb = std::min({true_lb, displacement + type.true_lb, last + type.true_lb});
      true_ub = std::max({true_ub, displacement + type.true_lb + true_extent,
                          last + type.true_lb + true_extent});
    }
    result.alignment = std::max(result.alignment, type.alignment);
  }

  MPI_Datatype Finish(bool pad_to_alignment) {
    if (true_lb > true_ub) true_lb = true_ub = 0;
    result.lb = bounds.Lb();
    result.extent = bounds.Ub() - result.lb;
    result.lb_marker = bounds.lb_marker;
    result.ub_marker = bounds.ub_marker;
    const auto alignment = static_cast<std::int64_t>(result.alignment);
    if (pad_to_alignment && !result.lb_marker && !result.ub_marker &&
        result.extent % alignment != 0)
      result.extent += alignment - result.extent % alignment;
    result.true_lb = true_lb;
    result.true_extent = static_cast<std::uint64_t>(true_ub - true_lb);
    SetBase(result);
    return AddDerived(std::move(result));
  }
};

}  // namespace

MPI_Datatype NewType(std::span<const TypeBlock> blocks, bool pad_to_alignment,
                     const char* constructor) {
  TypeBuilder builder;
  for (const TypeBlock& block : blocks) {
    if (block.count < 0)
      throw Error(kErrCount, std::string(constructor) + ": negative block length");
    const TypeInfo& type = LookupType(block.type);
    if (block.count == 0) continue;  // MPI: no part of the type map
    const auto count = static_cast<std::uint64_t>(block.count);
    AppendElements(builder.result, type, block.displacement, count);
    builder.Bound(type, block.displacement, block.count);
    builder.result.size += Times(count, type.size);
  }
  return builder.Finish(pad_to_alignment);
}

void CheckTypeCount(std::int64_t count, const char* constructor) {
  if (count < 0) throw Error(kErrCount, std::string(constructor) + ": negative count");
}

MPI_Datatype NewVectorType(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                           MPI_Datatype oldtype, const char* constructor) {
  CheckTypeCount(count, constructor);
  if (blocklength < 0)
    throw Error(kErrCount, std::string(constructor) + ": negative block length");
  const TypeInfo& old = LookupType(oldtype);
  TypeBuilder builder;
  if (count > 0 && blocklength > 0) {
    // One block, repeated at the stride: its runs are appended once per
    // block only while that stays small (AppendElements), so a vector's
    // cost does not grow with its number of blocks.
    TypeInfo block;
    AppendElements(block, old, 0, static_cast<std::uint64_t>(blocklength));
    block.size = Times(static_cast<std::uint64_t>(blocklength), old.size);
    block.extent = stride;
    AppendElements(builder.result, block, 0, static_cast<std::uint64_t>(count));
    builder.result.size = Times(static_cast<std::uint64_t>(count), block.size);
    // The bounds are linear in the block's index: the first and the last
    // block hold the extremes.
    builder.Bound(old, 0, blocklength);
    builder.Bound(old, (count - 1) * stride, blocklength);
  }
  return builder.Finish(false);
}

MPI_Datatype NewResizedType(MPI_Datatype oldtype, std::int64_t lb, std::int64_t extent) {
  TypeInfo type = LookupType(oldtype);
  type.name.clear();
  type.lb = lb;
  type.extent = extent;
  type.lb_marker = type.ub_marker = true;
  MPI_Datatype handle = AddDerived(std::move(type));
  SetEnvelope(handle, MPI_COMBINER_RESIZED, {}, {lb, extent}, {oldtype});
  return handle;
}

MPI_Datatype NewSubarrayType(std::span<const std::int64_t> sizes,
                             std::span<const std::int64_t> subsizes,
                             std::span<const std::int64_t> starts, bool row_major,
                             MPI_Datatype oldtype) {
  const char* what = "MPI_Type_create_subarray";
  if (sizes.empty()) throw Error(kErrArg, std::string(what) + ": ndims must be positive");
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] <= 0 || subsizes[d] <= 0 || starts[d] < 0 ||
        starts[d] > sizes[d] - subsizes[d])
      throw Error(kErrArg, std::string(what) + ": dimension " + std::to_string(d) +
                               " needs 0 < subsize <= size and 0 <= start <= size - "
                               "subsize");
  }
  // Innermost dimension first: the last in C order, the first in Fortran's.
  std::vector<std::size_t> order(sizes.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = row_major ? order.size() - 1 - i : i;
  auto stride = static_cast<std::int64_t>(LookupType(oldtype).extent);
  std::int64_t offset = 0;
  MPI_Datatype inner = oldtype;
  bool owned = false;  // inner is one of ours, to free once wrapped
  for (std::size_t d : order) {
    MPI_Datatype outer = NewVectorType(subsizes[d], 1, stride, inner, what);
    if (owned) FreeType(&inner);
    inner = outer;
    owned = true;
    offset += starts[d] * stride;
    stride *= sizes[d];
  }
  TypeBlock placed{1, inner, offset};
  MPI_Datatype shifted = NewType({&placed, 1}, false, what);
  FreeType(&inner);
  MPI_Datatype result = NewResizedType(shifted, 0, stride);
  FreeType(&shifted);
  return result;
}

MPI_Datatype DupType(MPI_Datatype datatype) {
  TypeInfo copy = LookupType(datatype);
  bool committed = copy.committed;
  copy.name.clear();
  MPI_Datatype handle = AddDerived(std::move(copy));
  LookupDerived(handle).committed = committed;  // MPI: dup keeps the state
  SetEnvelope(handle, MPI_COMBINER_DUP, {}, {}, {datatype});
  return handle;
}

void CommitType(MPI_Datatype* datatype) {
  TypeInfo* type = FindType(*datatype);
  if (type == nullptr) throw Error(kErrType, "invalid datatype");
  type->committed = true;  // predefined types always are
}

void FreeType(MPI_Datatype* datatype) {
  --LookupDerived(*datatype).user_handles;
  RemoveIfUnused(*datatype);
  *datatype = MPI_DATATYPE_NULL;
}

void SetEnvelope(MPI_Datatype datatype, int combiner, std::vector<int> ints,
                 std::vector<MPI_Aint> aints, std::vector<MPI_Datatype> types,
                 std::vector<MPI_Count> counts) {
  for (MPI_Datatype inner : types) {
    TypeInfo* type = FindAnyType(inner);
    if (type != nullptr && !type->predefined) ++type->inner_uses;
  }
  TypeEnvelope old = std::move(LookupDerived(datatype).envelope);
  LookupDerived(datatype).envelope = {combiner, std::move(ints), std::move(aints),
                                      std::move(counts), std::move(types)};
  ReleaseInner(old);
}

const TypeEnvelope& EnvelopeOf(MPI_Datatype datatype) {
  return LookupType(datatype).envelope;
}

void TakeContentTypes(MPI_Datatype datatype) {
  for (MPI_Datatype inner : LookupType(datatype).envelope.types) {
    TypeInfo* type = FindAnyType(inner);
    if (type != nullptr && !type->predefined) ++type->user_handles;
  }
}

void SetTypeName(MPI_Datatype datatype, const char* name) {
  // MPI-3.1 6.8: predefined types may be renamed too (in this process).
  TypeInfo* type = FindType(datatype);
  if (type == nullptr) throw Error(kErrType, "invalid datatype");
  type->name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
}

}  // namespace bdmpi
