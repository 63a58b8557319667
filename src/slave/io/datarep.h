// Data representations of file views (MPI-4.1 14.5): how the data of a
// view lies in the file. "native" (and "internal", the same here) is the
// bytes as they travel (the wire form, datatypes.h); "external32" is every
// predefined item big-endian in the standard's sizes (common/external32.h);
// a representation registered with MPI_Register_datarep gives each
// predefined type's size in the file (its dtype_file_extent_fn) and
// converts with the program's functions.
//
// A view's etype and filetype describe the file, so where item sizes
// differ from memory their layout is rebuilt in file sizes (FileType):
// portable constructors (contiguous, vector, indexed, subarray, darray)
// scale with the items, byte displacements (hvector, hindexed, struct,
// resized) stay as given, as MPI-4.1 14.5.1 says.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/handles.h"
#include "slave/datatype/datatypes.h"

namespace bdmpi::io {

class Datarep {
 public:
  enum class Kind { kNative, kExternal32, kUser };
  struct UserFunctions {
    MPI_Datarep_conversion_function* read = nullptr;
    MPI_Datarep_conversion_function* write = nullptr;
    // MPI_Register_datarep_c's (MPI_Count counts); the others are null then.
    MPI_Datarep_conversion_function_c* read_c = nullptr;
    MPI_Datarep_conversion_function_c* write_c = nullptr;
    MPI_Datarep_extent_function* extent = nullptr;
    void* extra_state = nullptr;
  };

  Datarep(std::string name, Kind kind) : name_(std::move(name)), kind_(kind) {}
  Datarep(std::string name, Kind kind, const UserFunctions& user)
      : name_(std::move(name)), kind_(kind), user_(user) {}

  // "native", "internal", "external32" or a registered one; throws
  // MPI_ERR_UNSUPPORTED_DATAREP for any other name.
  static std::shared_ptr<const Datarep> Find(const char* name);
  static std::shared_ptr<const Datarep> Native();

  const std::string& name() const { return name_; }
  bool native() const { return kind_ == Kind::kNative; }

  // Bytes of one predefined item of `type` in the file.
  std::uint64_t ItemBytes(DatatypeId type) const;
  // Bytes `count` elements of `type` take in the file.
  std::uint64_t FileBytes(const TypeInfo& type, std::uint64_t count) const;
  // The extent `datatype` has in the file (MPI_File_get_type_extent).
  std::int64_t FileExtent(MPI_Datatype datatype) const;
  // `datatype` laid out in file sizes: the same handle where every item
  // has its memory extent in the file, else a new committed type the
  // caller frees (`*made` says which).
  MPI_Datatype FileType(MPI_Datatype datatype, bool* made) const;

  // `count` elements of `datatype` at `buffer` in the file representation
  // (FileBytes of them) at `out`.
  void ToFile(const void* buffer, std::int64_t count, MPI_Datatype datatype,
              std::byte* out) const;
  // The first `bytes` file bytes at `in` (whole items of them) into
  // `count` elements at `buffer`; returns the wire bytes they make.
  std::uint64_t FromFile(const std::byte* in, std::uint64_t bytes, void* buffer,
                         std::int64_t count, MPI_Datatype datatype) const;

 private:
  std::string name_;
  Kind kind_;
  UserFunctions user_;
  mutable std::mutex sizes_mutex_;
  mutable std::map<DatatypeId, std::uint64_t> sizes_;  // asked of extent
};

// MPI_Register_datarep(_c): MPI_ERR_DUP_DATAREP for a name already known,
// kErrArg for a name too long or a null extent function.
void RegisterDatarep(const char* name, const Datarep::UserFunctions& functions);

}  // namespace bdmpi::io
