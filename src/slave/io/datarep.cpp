#include "slave/io/datarep.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "common/datatype.h"
#include "common/error.h"
#include "common/external32.h"
#include "slave/datatype/darray.h"

namespace bdmpi::io {

namespace {

// Registered representations by name; they stay to the end of the run.
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Datarep>> reps;
};

Registry& Reps() {
  static Registry* registry = new Registry();  // outlives static destructors
  return *registry;
}

MPI_Datatype HandleOf(DatatypeId id) {
  return static_cast<MPI_Datatype>(MakeHandle(HandleKind::kDatatype, static_cast<int>(id)));
}

std::uint64_t WireItemBytes(DatatypeId id) { return FindPredefinedDatatype(id)->size; }

std::string TypeName(DatatypeId id) { return FindPredefinedDatatype(id)->name; }

// Calls fn(type, items) for the type signature of `count` elements of
// `type`, in order, while fn returns true.
template <class Fn>
void ForEachItems(const TypeInfo& type, std::int64_t count, Fn&& fn) {
  for (std::int64_t i = 0; i < count; ++i)
    for (const SignatureRun& run : type.signature)
      if (!fn(run.type, run.count)) return;
}

std::uint64_t ItemCount(const TypeInfo& type, std::int64_t count) {
  std::uint64_t items = 0;
  for (const SignatureRun& run : type.signature) items += run.count;
  return items * static_cast<std::uint64_t>(count);
}

}  // namespace

std::shared_ptr<const Datarep> Datarep::Native() {
  static const auto* native = new std::shared_ptr<const Datarep>(
      std::make_shared<Datarep>("native", Kind::kNative));
  return *native;
}

std::shared_ptr<const Datarep> Datarep::Find(const char* name) {
  if (name == nullptr)
    throw Error(MPI_ERR_UNSUPPORTED_DATAREP, "the data representation is NULL");
  if (std::strcmp(name, "native") == 0) return Native();
  // MPI leaves "internal" to the implementation: here it is "native".
  if (std::strcmp(name, "internal") == 0) return std::make_shared<Datarep>(name, Kind::kNative);
  if (std::strcmp(name, "external32") == 0)
    return std::make_shared<Datarep>(name, Kind::kExternal32);
  Registry& registry = Reps();
  std::lock_guard lock(registry.mutex);
  auto it = registry.reps.find(name);
  if (it == registry.reps.end())
    throw Error(MPI_ERR_UNSUPPORTED_DATAREP,
                std::string("unknown data representation \"") + name +
                    "\": \"native\", \"internal\", \"external32\" or one registered with "
                    "MPI_Register_datarep");
  return it->second;
}

void RegisterDatarep(const char* name, const Datarep::UserFunctions& functions) {
  if (name == nullptr) throw Error(kErrArg, "the data representation's name is NULL");
  if (std::strlen(name) >= MPI_MAX_DATAREP_STRING)
    throw Error(kErrArg, std::string("the data representation's name \"") + name +
                             "\" is longer than MPI_MAX_DATAREP_STRING - 1 (" +
                             std::to_string(MPI_MAX_DATAREP_STRING - 1) + ") characters");
  if (functions.extent == nullptr)
    throw Error(kErrArg, std::string("data representation \"") + name +
                             "\": dtype_file_extent_fn must not be NULL");
  Registry& registry = Reps();
  std::lock_guard lock(registry.mutex);
  if (std::strcmp(name, "native") == 0 || std::strcmp(name, "internal") == 0 ||
      std::strcmp(name, "external32") == 0 || registry.reps.count(name) != 0)
    throw Error(MPI_ERR_DUP_DATAREP,
                std::string("data representation \"") + name + "\" is already defined");
  registry.reps.emplace(name, std::make_shared<Datarep>(name, Datarep::Kind::kUser, functions));
}

std::uint64_t Datarep::ItemBytes(DatatypeId type) const {
  switch (kind_) {
    case Kind::kNative:
      return WireItemBytes(type);
    case Kind::kExternal32:
      return External32Size(type);
    case Kind::kUser:
      break;
  }
  std::lock_guard lock(sizes_mutex_);
  auto it = sizes_.find(type);
  if (it != sizes_.end()) return it->second;
  MPI_Aint extent = 0;
  int error = user_.extent(HandleOf(type), &extent, user_.extra_state);
  if (error != MPI_SUCCESS || extent < 0)
    throw Error(MPI_ERR_CONVERSION,
                "the dtype_file_extent_fn of data representation \"" + name_ + "\" failed for " +
                    TypeName(type) + " (returned " + std::to_string(error) + ", extent " +
                    std::to_string(extent) + ")");
  sizes_.emplace(type, static_cast<std::uint64_t>(extent));
  return static_cast<std::uint64_t>(extent);
}

std::uint64_t Datarep::FileBytes(const TypeInfo& type, std::uint64_t count) const {
  if (native()) return count * type.size;
  std::uint64_t bytes = 0;
  for (const SignatureRun& run : type.signature) bytes += run.count * ItemBytes(run.type);
  return count * bytes;
}

std::int64_t Datarep::FileExtent(MPI_Datatype datatype) const {
  bool made = false;
  MPI_Datatype file_type = FileType(datatype, &made);
  std::int64_t extent = LookupType(file_type).extent;
  if (made) FreeType(&file_type);
  return extent;
}

MPI_Datatype Datarep::FileType(MPI_Datatype datatype, bool* made) const {
  *made = false;
  const TypeInfo& info = LookupType(datatype);
  if (native()) return datatype;
  // A copy: making types below may move the table the envelope is in.
  const TypeEnvelope envelope = EnvelopeOf(datatype);
  const int combiner = envelope.combiner;
  if (combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
      combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER) {
    // One predefined item (or a bound marker, no data): the same type
    // where it is as wide in the file as in memory, else its file bytes.
    if (info.signature.size() != 1 || info.signature[0].count != 1) return datatype;
    std::uint64_t bytes = ItemBytes(info.signature[0].type);
    if (info.lb == 0 && info.extent == static_cast<std::int64_t>(bytes)) return datatype;
    TypeBlock block{static_cast<std::int64_t>(bytes), MPI_BYTE, 0};
    MPI_Datatype type = NewType(std::span(&block, 1), false, "MPI_File_set_view");
    CommitType(&type);
    *made = true;
    return type;
  }
  if (!envelope.counts.empty())
    throw Error(kErrType, "a type made by a large-count (_c) constructor with items of "
                          "another size in data representation \"" + name_ +
                          "\" cannot describe a view; build it with the int constructor");
  // The inner types may have been freed by the program (the envelope keeps
  // them): held as MPI_Type_get_contents hands them out, for the
  // constructors below, and released at the end.
  TakeContentTypes(datatype);
  struct ReleaseContents {
    std::vector<MPI_Datatype> types;
    ~ReleaseContents() {
      for (MPI_Datatype type : types) {
        try {
          if (!LookupType(type).predefined) FreeType(&type);
        } catch (const Error&) {
        }
      }
    }
  } contents{envelope.types};
  // The inner types in file sizes; nothing to rebuild if none changed.
  std::vector<MPI_Datatype> inner(envelope.types.size());
  std::vector<char> inner_made(envelope.types.size(), 0);
  bool changed = false;
  struct FreeInner {
    std::vector<MPI_Datatype>& types;
    std::vector<char>& made;
    ~FreeInner() {
      for (std::size_t i = 0; i < types.size(); ++i)
        if (made[i]) FreeType(&types[i]);
    }
  } free_inner{inner, inner_made};
  for (std::size_t i = 0; i < inner.size(); ++i) {
    bool m = false;
    inner[i] = FileType(envelope.types[i], &m);
    inner_made[i] = m ? 1 : 0;
    changed = changed || m;
  }
  if (!changed) return datatype;

  const std::vector<int>& n = envelope.ints;
  const std::vector<MPI_Aint>& a = envelope.aints;
  auto extent_of = [](MPI_Datatype type) { return LookupType(type).extent; };
  std::vector<TypeBlock> blocks;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const char* call = "MPI_File_set_view";
  switch (combiner) {
    case MPI_COMBINER_DUP:
      type = DupType(inner[0]);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      blocks.push_back({n[0], inner[0], 0});
      break;
    case MPI_COMBINER_VECTOR:
      type = NewVectorType(n[0], n[1], n[2] * extent_of(inner[0]), inner[0], call);
      break;
    case MPI_COMBINER_HVECTOR:
      type = NewVectorType(n[0], n[1], a[0], inner[0], call);
      break;
    case MPI_COMBINER_INDEXED:
      for (int i = 0; i < n[0]; ++i)
        blocks.push_back({n[static_cast<std::size_t>(1 + i)], inner[0],
                          n[static_cast<std::size_t>(1 + n[0] + i)] * extent_of(inner[0])});
      break;
    case MPI_COMBINER_HINDEXED:
      for (int i = 0; i < n[0]; ++i)
        blocks.push_back({n[static_cast<std::size_t>(1 + i)], inner[0],
                          a[static_cast<std::size_t>(i)]});
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      for (int i = 0; i < n[0]; ++i)
        blocks.push_back({n[1], inner[0], n[static_cast<std::size_t>(2 + i)] * extent_of(inner[0])});
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      for (int i = 0; i < n[0]; ++i) blocks.push_back({n[1], inner[0], a[static_cast<std::size_t>(i)]});
      break;
    case MPI_COMBINER_STRUCT:
      for (int i = 0; i < n[0]; ++i)
        blocks.push_back({n[static_cast<std::size_t>(1 + i)], inner[static_cast<std::size_t>(i)],
                          a[static_cast<std::size_t>(i)]});
      type = NewType(blocks, true, call);
      blocks.clear();
      break;
    case MPI_COMBINER_SUBARRAY: {
      const std::size_t dims = static_cast<std::size_t>(n[0]);
      std::vector<std::int64_t> sizes(n.begin() + 1, n.begin() + 1 + static_cast<long>(dims));
      std::vector<std::int64_t> subsizes(n.begin() + 1 + static_cast<long>(dims),
                                         n.begin() + 1 + 2 * static_cast<long>(dims));
      std::vector<std::int64_t> starts(n.begin() + 1 + 2 * static_cast<long>(dims),
                                       n.begin() + 1 + 3 * static_cast<long>(dims));
      type = NewSubarrayType(sizes, subsizes, starts, n[1 + 3 * dims] == MPI_ORDER_C, inner[0]);
      break;
    }
    case MPI_COMBINER_DARRAY: {
      const std::size_t dims = static_cast<std::size_t>(n[2]);
      std::span<const int> all(n);
      type = NewDarrayType(n[0], n[1], all.subspan(3, dims), all.subspan(3 + dims, dims),
                           all.subspan(3 + 2 * dims, dims), all.subspan(3 + 3 * dims, dims),
                           n[3 + 4 * dims], inner[0]);
      break;
    }
    case MPI_COMBINER_RESIZED:
      type = NewResizedType(inner[0], a[0], a[1]);
      break;
    default:
      throw Error(kErrType, "a view's type made by combiner " + std::to_string(combiner) +
                                " cannot be laid out in data representation \"" + name_ + "\"");
  }
  if (type == MPI_DATATYPE_NULL) type = NewType(blocks, false, call);
  CommitType(&type);
  *made = true;
  return type;
}

void Datarep::ToFile(const void* buffer, std::int64_t count, MPI_Datatype datatype,
                     std::byte* out) const {
  const TypeInfo& type = LookupType(datatype);
  std::vector<std::byte> staging;
  const std::byte* wire = static_cast<const std::byte*>(buffer);
  auto pack = [&] {
    if (type.Dense()) return;
    staging.resize(WireBytes(count, datatype));
    PackElements(buffer, count, type, staging.data());
    wire = staging.data();
  };
  if (kind_ == Kind::kUser && (user_.write != nullptr || user_.write_c != nullptr)) {
    std::uint64_t items = ItemCount(type, count);
    int error = MPI_SUCCESS;
    if (user_.write_c != nullptr) {
      error = user_.write_c(const_cast<void*>(buffer), datatype, static_cast<MPI_Count>(items),
                            out, 0, user_.extra_state);
    } else {
      if (items > INT_MAX)
        throw Error(kErrCount, "data representation \"" + name_ + "\": " +
                                   std::to_string(items) +
                                   " items are more than an int conversion function takes "
                                   "(register it with MPI_Register_datarep_c)");
      error = user_.write(const_cast<void*>(buffer), datatype, static_cast<int>(items), out, 0,
                          user_.extra_state);
    }
    if (error != MPI_SUCCESS)
      throw Error(MPI_ERR_CONVERSION, "the write conversion function of data representation \"" +
                                          name_ + "\" returned " + std::to_string(error));
    return;
  }
  pack();
  ForEachItems(type, count, [&](DatatypeId id, std::uint64_t items) {
    const std::uint64_t from = WireItemBytes(id), to = ItemBytes(id);
    if (kind_ == Kind::kExternal32) {
      ToExternal32(id, wire, items, out);
    } else {  // no conversion function: the bytes as they are
      if (from != to)
        throw Error(MPI_ERR_CONVERSION,
                    "data representation \"" + name_ + "\" has no write conversion function "
                    "but gives " + TypeName(id) + " " + std::to_string(to) +
                    " bytes in the file, not its native " + std::to_string(from));
      std::memcpy(out, wire, items * from);
    }
    wire += items * from;
    out += items * to;
    return true;
  });
}

std::uint64_t Datarep::FromFile(const std::byte* in, std::uint64_t bytes, void* buffer,
                                std::int64_t count, MPI_Datatype datatype) const {
  const TypeInfo& type = LookupType(datatype);
  // The whole items among the bytes read, and the wire bytes they make.
  std::uint64_t items = 0, wire_bytes = 0;
  {
    std::uint64_t left = bytes;
    ForEachItems(type, count, [&](DatatypeId id, std::uint64_t run) {
      const std::uint64_t size = ItemBytes(id);
      const std::uint64_t whole = size == 0 ? run : std::min(run, left / size);
      items += whole;
      wire_bytes += whole * WireItemBytes(id);
      left -= whole * size;
      return whole == run;
    });
  }
  if (kind_ == Kind::kUser && (user_.read != nullptr || user_.read_c != nullptr)) {
    int error = MPI_SUCCESS;
    if (items == 0) return 0;
    if (user_.read_c != nullptr) {
      error = user_.read_c(buffer, datatype, static_cast<MPI_Count>(items),
                           const_cast<std::byte*>(in), 0, user_.extra_state);
    } else {
      if (items > INT_MAX)
        throw Error(kErrCount, "data representation \"" + name_ + "\": " +
                                   std::to_string(items) +
                                   " items are more than an int conversion function takes "
                                   "(register it with MPI_Register_datarep_c)");
      error = user_.read(buffer, datatype, static_cast<int>(items), const_cast<std::byte*>(in),
                         0, user_.extra_state);
    }
    if (error != MPI_SUCCESS)
      throw Error(MPI_ERR_CONVERSION, "the read conversion function of data representation \"" +
                                          name_ + "\" returned " + std::to_string(error));
    return wire_bytes;
  }
  std::vector<std::byte> staging;
  std::byte* wire = static_cast<std::byte*>(buffer);
  if (!type.Dense()) {
    staging.resize(wire_bytes);
    wire = staging.data();
  }
  std::byte* at = wire;
  std::uint64_t left = items;
  ForEachItems(type, count, [&](DatatypeId id, std::uint64_t run) {
    const std::uint64_t take = std::min(run, left);
    const std::uint64_t from = ItemBytes(id), to = WireItemBytes(id);
    if (kind_ == Kind::kExternal32) {
      FromExternal32(id, in, take, at);
    } else {
      if (from != to)
        throw Error(MPI_ERR_CONVERSION,
                    "data representation \"" + name_ + "\" has no read conversion function "
                    "but gives " + TypeName(id) + " " + std::to_string(from) +
                    " bytes in the file, not its native " + std::to_string(to));
      std::memcpy(at, in, take * from);
    }
    in += take * from;
    at += take * to;
    left -= take;
    return left > 0;
  });
  if (!type.Dense()) UnpackElements(staging.data(), wire_bytes, buffer, count, type);
  return wire_bytes;
}

}  // namespace bdmpi::io
