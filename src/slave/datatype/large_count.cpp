#include "slave/datatype/large_count.h"

#include <climits>
#include <map>
#include <utility>

#include "common/error.h"
#include "slave/datatype/datatypes.h"

namespace bdmpi {
namespace {

struct Counted {
  MPI_Datatype element;
  std::int64_t count;
};

// (datatype, count) -> the type, and back.
std::map<std::pair<MPI_Datatype, std::int64_t>, MPI_Datatype>& Made() {
  static std::map<std::pair<MPI_Datatype, std::int64_t>, MPI_Datatype> made;
  return made;
}
std::map<MPI_Datatype, Counted>& Origins() {
  static std::map<MPI_Datatype, Counted> origins;
  return origins;
}

}  // namespace

MPI_Datatype CountedType(std::int64_t count, MPI_Datatype datatype) {
  auto key = std::make_pair(datatype, count);
  auto it = Made().find(key);
  if (it != Made().end()) return it->second;
  TypeBlock block{count, datatype, 0};
  MPI_Datatype type = NewType({&block, 1}, false, "a large-count call");
  // The envelope keeps `datatype` alive (and its handle unused) while the
  // counted type exists, so the key stays this type's.
  SetEnvelope(type, MPI_COMBINER_CONTIGUOUS, {}, {}, {datatype});
  CommitType(&type);
  Made().emplace(key, type);
  Origins().emplace(type, Counted{datatype, count});
  return type;
}

IntCount NarrowCount(MPI_Count count, MPI_Datatype datatype) noexcept {
  if (count < 0) return {-1, datatype};
  if (count <= INT_MAX) return {static_cast<int>(count), datatype};
  try {
    const TypeInfo& type = LookupType(datatype);
    if (!type.committed) return {1, datatype};
    return {1, CountedType(count, datatype)};
  } catch (const Error& error) {
    // An invalid type: the int call refuses it (MPI_ERR_TYPE). More than
    // 2^64 bytes: a count it refuses too (MPI_ERR_COUNT).
    return {error.error_class() == kErrType ? 1 : -1, datatype};
  } catch (const std::exception&) {
    return {-1, datatype};
  }
}

bool CountedOf(MPI_Datatype datatype, MPI_Datatype* element, std::int64_t* count) {
  auto it = Origins().find(datatype);
  if (it == Origins().end()) return false;
  *element = it->second.element;
  *count = it->second.count;
  return true;
}

}  // namespace bdmpi
