#include "slave/datatypes.h"

#include <climits>
#include <vector>

#include "common/error.h"
#include "slave/handle_table.h"

namespace bdmpi {
namespace {

constexpr int kFirstDerived = static_cast<int>(DatatypeId::kPredefinedEnd);

std::vector<TypeInfo> MakePredefined() {
  std::vector<TypeInfo> types(kFirstDerived);
  for (int index = 1; index < kFirstDerived; ++index) {
    auto id = static_cast<DatatypeId>(index);
    const DatatypeInfo* info = FindPredefinedDatatype(id);
    TypeInfo& type = types[index];
    type.base = id;
    type.size = info->size;
    type.extent = info->extent;
    // A value-index pair ends with its int: the padding after it (if any)
    // is not part of the true extent. size = value bytes + 4.
    type.true_extent = info->type_class == TypeClass::kPair
                           ? (info->size - sizeof(int) + sizeof(int) - 1) /
                                     sizeof(int) * sizeof(int) + sizeof(int)
                           : info->size;
    type.name = info->name;
  }
  return types;
}

std::vector<TypeInfo>& Predefined() {
  static std::vector<TypeInfo> types = MakePredefined();
  return types;
}

HandleTable<TypeInfo>& Derived() {
  static HandleTable<TypeInfo> types(HandleKind::kDatatype, kFirstDerived);
  return types;
}

TypeInfo* FindType(MPI_Datatype datatype) {
  if (!HandleIs(datatype, HandleKind::kDatatype)) return nullptr;
  int index = HandleIndex(datatype);
  if (index > 0 && index < kFirstDerived) return &Predefined()[index];
  return Derived().Find(datatype);
}

TypeInfo& LookupDerived(MPI_Datatype datatype) {
  TypeInfo* type = FindType(datatype);
  if (type == nullptr) throw Error(kErrType, "invalid datatype");
  if (type->predefined)
    throw Error(kErrType, "a predefined datatype cannot be freed or renamed");
  return *type;
}

MPI_Datatype AddDerived(TypeInfo type) {
  type.predefined = false;
  type.committed = false;
  return Derived().Add(std::move(type));
}

std::uint64_t Times(std::uint64_t count, std::uint64_t bytes) {
  if (bytes != 0 && count > UINT64_MAX / bytes)
    throw Error(kErrCount, "datatype larger than 2^64 bytes");
  return count * bytes;
}

}  // namespace

const TypeInfo& LookupType(MPI_Datatype datatype) {
  const TypeInfo* type = FindType(datatype);
  if (type == nullptr) throw Error(kErrType, "invalid datatype");
  return *type;
}

std::uint64_t BufferBytes(int count, MPI_Datatype datatype) {
  if (count < 0) throw Error(kErrCount, "negative count " + std::to_string(count));
  const TypeInfo& type = LookupType(datatype);
  if (!type.committed)
    throw Error(kErrType, "the datatype has not been committed (MPI_Type_commit)");
  return Times(static_cast<std::uint64_t>(count), type.extent);
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
  if (type.extent == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  if (bytes % type.extent != 0 || bytes / type.extent > INT_MAX) return MPI_UNDEFINED;
  return static_cast<int>(bytes / type.extent);
}

int ElementsOf(std::uint64_t bytes, MPI_Datatype datatype) {
  const TypeInfo& type = LookupType(datatype);
  if (type.mixed) return CountOf(bytes, datatype);
  std::uint64_t base_extent = LookupType(MakeHandle(HandleKind::kDatatype,
                                                    static_cast<int>(type.base))).extent;
  if (bytes % base_extent != 0 || bytes / base_extent > INT_MAX) return MPI_UNDEFINED;
  return static_cast<int>(bytes / base_extent);
}

MPI_Datatype NewDenseType(std::span<const TypeBlock> blocks, const char* constructor) {
  TypeInfo result;
  result.count = 0;
  std::uint64_t offset = 0;
  bool first = true;
  for (const TypeBlock& block : blocks) {
    if (block.count < 0)
      throw Error(kErrCount, std::string(constructor) + ": negative block length");
    const TypeInfo& type = LookupType(block.type);
    if (block.count == 0 || type.extent == 0) continue;
    if (block.displacement < 0 || static_cast<std::uint64_t>(block.displacement) != offset)
      throw Error(kErrType, std::string(constructor) +
                                ": datatypes with gaps or overlaps are not supported "
                                "(BDMPI supports only types whose blocks lie end to end "
                                "from displacement 0)");
    std::uint64_t count = static_cast<std::uint64_t>(block.count);
    if (first) {
      result.base = type.base;
      result.mixed = type.mixed;
    } else if (type.mixed || type.base != result.base) {
      result.mixed = true;
    }
    first = false;
    result.count += Times(count, type.count);  // replaced below when mixed
    result.true_extent = offset + Times(count - 1, type.extent) + type.true_extent;
    result.size += Times(count, type.size);
    offset += Times(count, type.extent);
  }
  result.extent = offset;
  if (first) {  // empty: zero elements of MPI_BYTE
    result.base = DatatypeId::kByte;
    result.count = 0;
  } else if (result.mixed) {
    result.base = DatatypeId::kByte;
    result.count = result.extent;
  }
  return AddDerived(std::move(result));
}

MPI_Datatype NewVectorType(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                           MPI_Datatype oldtype, const char* constructor) {
  if (count < 0) throw Error(kErrCount, std::string(constructor) + ": negative count");
  std::int64_t block_bytes =
      blocklength * static_cast<std::int64_t>(LookupType(oldtype).extent);
  std::vector<TypeBlock> blocks;
  if (count <= 1 || stride == block_bytes) {
    blocks.push_back({count * blocklength, oldtype, 0});
  } else {
    // The first two blocks tell whether there is a gap (or an overlap).
    blocks.push_back({blocklength, oldtype, 0});
    blocks.push_back({blocklength, oldtype, stride});
  }
  return NewDenseType(blocks, constructor);
}

MPI_Datatype DupType(MPI_Datatype datatype) {
  TypeInfo copy = LookupType(datatype);
  bool committed = copy.committed;
  copy.name.clear();
  MPI_Datatype handle = AddDerived(std::move(copy));
  LookupDerived(handle).committed = committed;  // MPI: dup keeps the state
  return handle;
}

void CommitType(MPI_Datatype* datatype) {
  TypeInfo* type = FindType(*datatype);
  if (type == nullptr) throw Error(kErrType, "invalid datatype");
  type->committed = true;  // predefined types always are
}

void FreeType(MPI_Datatype* datatype) {
  LookupDerived(*datatype);
  Derived().Remove(*datatype);
  *datatype = MPI_DATATYPE_NULL;
}

void SetTypeName(MPI_Datatype datatype, const char* name) {
  LookupDerived(datatype).name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
}

}  // namespace bdmpi
