// The extern "C" MPI-IO entry points (MPI-3.1 chapter 13): thin wrappers
// over src/slave/io. Errors go to the file's error handler (MPI_FILE_NULL's
// for MPI_File_open, MPI_File_delete and invalid handles), which is
// MPI_ERRORS_RETURN unless the program set another, as the standard says.
#include <mpi.h>

#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "slave/datatype/datatypes.h"
#include "slave/io/errhandlers.h"
#include "slave/io/file.h"
#include "slave/io/operations.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"
#include "slave/runtime/objects.h"

using bdmpi::Error;
using bdmpi::io::Access;
using bdmpi::io::FileInfo;
using bdmpi::io::Pointer;

namespace {

MPI_Errhandler HandlerOf(MPI_File file) {
  try {
    return bdmpi::io::LookupFile(file).errhandler;
  } catch (const Error&) {
    return bdmpi::io::DefaultFileErrhandler();
  }
}

// An error of `file` through its handler (MPI_FILE_NULL's for no file).
int Raise(MPI_File file, const char* function, int error_class, const char* detail) {
  return bdmpi::io::ApplyFileErrhandler(HandlerOf(file), file, function, error_class, detail);
}

// Runs `body` on the open file `file` under its error handler.
template <class Body>
int FileCall(const char* function, MPI_File file, Body&& body) {
  return bdmpi::GuardWith(
      [&](int error_class, const char* detail) {
        return Raise(file, function, error_class, detail);
      },
      [&] {
        bdmpi::RequireInitialized();
        body(bdmpi::io::LookupFile(file));
      });
}

// Runs `body`, which has no open file, under MPI_FILE_NULL's handler.
template <class Body>
int NullFileCall(const char* function, Body&& body) {
  return bdmpi::GuardWith(
      [&](int error_class, const char* detail) {
        return Raise(MPI_FILE_NULL, function, error_class, detail);
      },
      body);
}

// A non-blocking call's request: the I/O is done, the request complete.
MPI_Request DoneRequest(const MPI_Status& status) {
  return bdmpi::NewDoneRequest(MPI_COMM_SELF, status);
}

// The non-blocking calls: the access at once, then a complete request.
int StartRead(const char* function, MPI_File fh, const Access& access, void* buf, int count,
              MPI_Datatype datatype, MPI_Request* request) {
  return FileCall(function, fh, [&](FileInfo& f) {
    MPI_Status status;
    bdmpi::io::Read(f, access, buf, count, datatype, &status);
    *request = DoneRequest(status);
  });
}

int StartWrite(const char* function, MPI_File fh, const Access& access, const void* buf,
               int count, MPI_Datatype datatype, MPI_Request* request) {
  return FileCall(function, fh, [&](FileInfo& f) {
    MPI_Status status;
    bdmpi::io::Write(f, access, buf, count, datatype, &status);
    *request = DoneRequest(status);
  });
}

Access At(MPI_Offset offset, bool collective = false) {
  return Access{Pointer::kExplicit, offset, collective};
}
Access Individual(bool collective = false) { return Access{Pointer::kIndividual, 0, collective}; }
Access Shared() { return Access{Pointer::kShared, 0, false}; }

// A split collective: _begin does the work, _end hands out its status.
template <class Work>
int BeginSplit(const char* function, MPI_File fh, Work&& work) {
  return FileCall(function, fh, [&](FileInfo& f) {
    if (f.split_pending)
      throw Error(bdmpi::kErrOther, "a split collective is already active on this file");
    work(f);
    f.split_pending = true;
  });
}

int EndSplit(const char* function, MPI_File fh, MPI_Status* status) {
  return FileCall(function, fh, [&](FileInfo& f) {
    if (!f.split_pending)
      throw Error(bdmpi::kErrOther, "no split collective is active on this file");
    f.split_pending = false;
    if (status != MPI_STATUS_IGNORE) *status = f.split_status;
  });
}

}  // namespace

extern "C" {

// ------------------------------------------------------- files as a whole

#pragma weak MPI_File_open = PMPI_File_open
int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                   MPI_File* fh) {
  *fh = MPI_FILE_NULL;
  return NullFileCall("MPI_File_open",
                      [&] { *fh = bdmpi::io::Open(comm, filename, amode, info); });
}

#pragma weak MPI_File_close = PMPI_File_close
int PMPI_File_close(MPI_File* fh) {
  return FileCall("MPI_File_close", *fh, [&](FileInfo&) { bdmpi::io::Close(fh); });
}

#pragma weak MPI_File_delete = PMPI_File_delete
int PMPI_File_delete(const char* filename, MPI_Info info) {
  return NullFileCall("MPI_File_delete", [&] {
    bdmpi::CheckInfoArgument(info);
    bdmpi::io::Delete(filename);
  });
}

#pragma weak MPI_File_set_size = PMPI_File_set_size
int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  return FileCall("MPI_File_set_size", fh, [&](FileInfo& f) { bdmpi::io::SetSize(f, size); });
}

#pragma weak MPI_File_preallocate = PMPI_File_preallocate
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  return FileCall("MPI_File_preallocate", fh,
                  [&](FileInfo& f) { bdmpi::io::Preallocate(f, size); });
}

#pragma weak MPI_File_get_size = PMPI_File_get_size
int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  return FileCall("MPI_File_get_size", fh, [&](FileInfo& f) { *size = bdmpi::io::GetSize(f); });
}

#pragma weak MPI_File_get_group = PMPI_File_get_group
int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  return FileCall("MPI_File_get_group", fh, [&](FileInfo& f) {
    *group = bdmpi::NewGroup(bdmpi::LookupComm(f.comm).WorldRanks());
  });
}

#pragma weak MPI_File_get_amode = PMPI_File_get_amode
int PMPI_File_get_amode(MPI_File fh, int* amode) {
  return FileCall("MPI_File_get_amode", fh, [&](FileInfo& f) { *amode = f.amode; });
}

#pragma weak MPI_File_set_info = PMPI_File_set_info
int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  return FileCall("MPI_File_set_info", fh, [&](FileInfo& f) {
    bdmpi::CheckInfoArgument(info);
    if (info == MPI_INFO_NULL) return;
    for (const auto& [key, value] : bdmpi::LookupInfo(info)) {
      bool replaced = false;
      for (auto& entry : f.info) {
        if (entry.first == key) {
          entry.second = value;
          replaced = true;
        }
      }
      if (!replaced) f.info.emplace_back(key, value);
    }
  });
}

#pragma weak MPI_File_get_info = PMPI_File_get_info
int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  return FileCall("MPI_File_get_info", fh,
                  [&](FileInfo& f) { *info_used = bdmpi::NewInfo(f.info); });
}

#pragma weak MPI_File_set_view = PMPI_File_set_view
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char* datarep, MPI_Info info) {
  return FileCall("MPI_File_set_view", fh, [&](FileInfo& f) {
    bdmpi::CheckInfoArgument(info);
    bdmpi::io::SetView(f, disp, etype, filetype, datarep);
  });
}

#pragma weak MPI_File_get_view = PMPI_File_get_view
int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype,
                       MPI_Datatype* filetype, char* datarep) {
  return FileCall("MPI_File_get_view", fh, [&](FileInfo& f) {
    // Derived types come out as new handles the program frees (MPI-3.1 13.3).
    auto handout = [](MPI_Datatype type) {
      return bdmpi::LookupType(type).predefined ? type : bdmpi::DupType(type);
    };
    *disp = f.view.disp();
    *etype = handout(f.view.etype());
    *filetype = handout(f.view.filetype());
    std::snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f.datarep->name().c_str());
  });
}

#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  return FileCall("MPI_File_get_type_extent", fh, [&](FileInfo& f) {
    *extent = static_cast<MPI_Aint>(f.datarep->FileExtent(datatype));
  });
}

#pragma weak MPI_Register_datarep = PMPI_Register_datarep
int PMPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                          MPI_Datarep_conversion_function* write_conversion_fn,
                          MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return NullFileCall("MPI_Register_datarep", [&] {
    bdmpi::RequireInitialized();
    bdmpi::io::Datarep::UserFunctions functions;
    functions.read = read_conversion_fn;
    functions.write = write_conversion_fn;
    functions.extent = dtype_file_extent_fn;
    functions.extra_state = extra_state;
    bdmpi::io::RegisterDatarep(datarep, functions);
  });
}

#pragma weak MPI_Register_datarep_c = PMPI_Register_datarep_c
int PMPI_Register_datarep_c(const char* datarep,
                            MPI_Datarep_conversion_function_c* read_conversion_fn,
                            MPI_Datarep_conversion_function_c* write_conversion_fn,
                            MPI_Datarep_extent_function* dtype_file_extent_fn,
                            void* extra_state) {
  return NullFileCall("MPI_Register_datarep_c", [&] {
    bdmpi::RequireInitialized();
    bdmpi::io::Datarep::UserFunctions functions;
    functions.read_c = read_conversion_fn;
    functions.write_c = write_conversion_fn;
    functions.extent = dtype_file_extent_fn;
    functions.extra_state = extra_state;
    bdmpi::io::RegisterDatarep(datarep, functions);
  });
}

#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity
int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  return FileCall("MPI_File_set_atomicity", fh,
                  [&](FileInfo& f) { bdmpi::io::SetAtomicity(f, flag != 0); });
}

#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity
int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  return FileCall("MPI_File_get_atomicity", fh, [&](FileInfo& f) { *flag = f.atomic ? 1 : 0; });
}

#pragma weak MPI_File_sync = PMPI_File_sync
int PMPI_File_sync(MPI_File fh) {
  return FileCall("MPI_File_sync", fh, [&](FileInfo& f) { bdmpi::io::Sync(f); });
}

#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  if (file == MPI_FILE_NULL) {
    return NullFileCall("MPI_File_set_errhandler", [&] {
      bdmpi::io::CheckFileErrhandler(errhandler);
      bdmpi::io::SetDefaultFileErrhandler(errhandler);
    });
  }
  return FileCall("MPI_File_set_errhandler", file, [&](FileInfo& f) {
    bdmpi::io::CheckFileErrhandler(errhandler);
    f.errhandler = errhandler;
  });
}

#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  if (file == MPI_FILE_NULL) {
    *errhandler = bdmpi::io::DefaultFileErrhandler();
    return MPI_SUCCESS;
  }
  return FileCall("MPI_File_get_errhandler", file,
                  [&](FileInfo& f) { *errhandler = f.errhandler; });
}

#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  Raise(fh, "MPI_File_call_errhandler", errorcode, "raised by the program");
  return MPI_SUCCESS;
}

#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
int PMPI_File_create_errhandler(MPI_File_errhandler_function* function,
                                MPI_Errhandler* errhandler) {
  return NullFileCall("MPI_File_create_errhandler",
                      [&] { *errhandler = bdmpi::io::NewFileErrhandler(function); });
}

// ------------------------------------------------------------ data access

// Non-blocking calls do their I/O at once (an independent access never
// blocks other ranks) and return a complete request; split collectives do
// theirs in _begin.

#pragma weak MPI_File_read_at = PMPI_File_read_at
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                      MPI_Status* status) {
  return FileCall("MPI_File_read_at", fh, [&](FileInfo& f) {
    bdmpi::io::Read(f, At(offset), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                          MPI_Datatype datatype, MPI_Status* status) {
  return FileCall("MPI_File_read_at_all", fh, [&](FileInfo& f) {
    bdmpi::io::Read(f, At(offset, true), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_write_at = PMPI_File_write_at
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                       MPI_Datatype datatype, MPI_Status* status) {
  return FileCall("MPI_File_write_at", fh, [&](FileInfo& f) {
    bdmpi::io::Write(f, At(offset), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                           MPI_Datatype datatype, MPI_Status* status) {
  return FileCall("MPI_File_write_at_all", fh, [&](FileInfo& f) {
    bdmpi::io::Write(f, At(offset, true), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_read = PMPI_File_read
int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return FileCall("MPI_File_read", fh, [&](FileInfo& f) {
    bdmpi::io::Read(f, Individual(), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_read_all = PMPI_File_read_all
int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                       MPI_Status* status) {
  return FileCall("MPI_File_read_all", fh, [&](FileInfo& f) {
    bdmpi::io::Read(f, Individual(true), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_write = PMPI_File_write
int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                    MPI_Status* status) {
  return FileCall("MPI_File_write", fh, [&](FileInfo& f) {
    bdmpi::io::Write(f, Individual(), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_write_all = PMPI_File_write_all
int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                        MPI_Status* status) {
  return FileCall("MPI_File_write_all", fh, [&](FileInfo& f) {
    bdmpi::io::Write(f, Individual(true), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_read_shared = PMPI_File_read_shared
int PMPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status) {
  return FileCall("MPI_File_read_shared", fh,
                  [&](FileInfo& f) { bdmpi::io::Read(f, Shared(), buf, count, datatype, status); });
}

#pragma weak MPI_File_write_shared = PMPI_File_write_shared
int PMPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return FileCall("MPI_File_write_shared", fh, [&](FileInfo& f) {
    bdmpi::io::Write(f, Shared(), buf, count, datatype, status);
  });
}

#pragma weak MPI_File_iread_at = PMPI_File_iread_at
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                       MPI_Request* request) {
  return StartRead("MPI_File_iread_at", fh, At(offset), buf, count, datatype, request);
}

#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                        MPI_Datatype datatype, MPI_Request* request) {
  return StartWrite("MPI_File_iwrite_at", fh, At(offset), buf, count, datatype, request);
}

#pragma weak MPI_File_iread = PMPI_File_iread
int PMPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                    MPI_Request* request) {
  return StartRead("MPI_File_iread", fh, Individual(), buf, count, datatype, request);
}

#pragma weak MPI_File_iwrite = PMPI_File_iwrite
int PMPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                     MPI_Request* request) {
  return StartWrite("MPI_File_iwrite", fh, Individual(), buf, count, datatype, request);
}

#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared
int PMPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                           MPI_Request* request) {
  return StartRead("MPI_File_iread_shared", fh, Shared(), buf, count, datatype, request);
}

#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared
int PMPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                            MPI_Request* request) {
  return StartWrite("MPI_File_iwrite_shared", fh, Shared(), buf, count, datatype, request);
}

// A non-blocking collective: the collective access, done at once.
#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                           MPI_Datatype datatype, MPI_Request* request) {
  return StartRead("MPI_File_iread_at_all", fh, At(offset, true), buf, count, datatype, request);
}

// A non-blocking collective: the collective access, done at once.
#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                            MPI_Datatype datatype, MPI_Request* request) {
  return StartWrite("MPI_File_iwrite_at_all", fh, At(offset, true), buf, count, datatype, request);
}

// A non-blocking collective: the collective access, done at once.
#pragma weak MPI_File_iread_all = PMPI_File_iread_all
int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                        MPI_Request* request) {
  return StartRead("MPI_File_iread_all", fh, Individual(true), buf, count, datatype, request);
}

// A non-blocking collective: the collective access, done at once.
#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all
int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                         MPI_Request* request) {
  return StartWrite("MPI_File_iwrite_all", fh, Individual(true), buf, count, datatype, request);
}

#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered
int PMPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return FileCall("MPI_File_read_ordered", fh,
                  [&](FileInfo& f) { bdmpi::io::ReadOrdered(f, buf, count, datatype, status); });
}

#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered
int PMPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                            MPI_Status* status) {
  return FileCall("MPI_File_write_ordered", fh,
                  [&](FileInfo& f) { bdmpi::io::WriteOrdered(f, buf, count, datatype, status); });
}

#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                MPI_Datatype datatype) {
  return BeginSplit("MPI_File_read_at_all_begin", fh, [&](FileInfo& f) {
    bdmpi::io::Read(f, At(offset, true), buf, count, datatype, &f.split_status);
  });
}

#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end
int PMPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return EndSplit("MPI_File_read_at_all_end", fh, status);
}

#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                 MPI_Datatype datatype) {
  return BeginSplit("MPI_File_write_at_all_begin", fh, [&](FileInfo& f) {
    bdmpi::io::Write(f, At(offset, true), buf, count, datatype, &f.split_status);
  });
}

#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end
int PMPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return EndSplit("MPI_File_write_at_all_end", fh, status);
}

#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin
int PMPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return BeginSplit("MPI_File_read_all_begin", fh, [&](FileInfo& f) {
    bdmpi::io::Read(f, Individual(true), buf, count, datatype, &f.split_status);
  });
}

#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end
int PMPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return EndSplit("MPI_File_read_all_end", fh, status);
}

#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin
int PMPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return BeginSplit("MPI_File_write_all_begin", fh, [&](FileInfo& f) {
    bdmpi::io::Write(f, Individual(true), buf, count, datatype, &f.split_status);
  });
}

#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end
int PMPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return EndSplit("MPI_File_write_all_end", fh, status);
}

#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin
int PMPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return BeginSplit("MPI_File_read_ordered_begin", fh, [&](FileInfo& f) {
    bdmpi::io::ReadOrdered(f, buf, count, datatype, &f.split_status);
  });
}

#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end
int PMPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return EndSplit("MPI_File_read_ordered_end", fh, status);
}

#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin
int PMPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return BeginSplit("MPI_File_write_ordered_begin", fh, [&](FileInfo& f) {
    bdmpi::io::WriteOrdered(f, buf, count, datatype, &f.split_status);
  });
}

#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end
int PMPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return EndSplit("MPI_File_write_ordered_end", fh, status);
}

#pragma weak MPI_File_seek = PMPI_File_seek
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  return FileCall("MPI_File_seek", fh, [&](FileInfo& f) { bdmpi::io::Seek(f, offset, whence); });
}

#pragma weak MPI_File_get_position = PMPI_File_get_position
int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  return FileCall("MPI_File_get_position", fh,
                  [&](FileInfo& f) { *offset = static_cast<MPI_Offset>(f.position); });
}

#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  return FileCall("MPI_File_seek_shared", fh,
                  [&](FileInfo& f) { bdmpi::io::SeekShared(f, offset, whence); });
}

#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  return FileCall("MPI_File_get_position_shared", fh,
                  [&](FileInfo& f) { *offset = bdmpi::io::GetPositionShared(f); });
}

#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  return FileCall("MPI_File_get_byte_offset", fh,
                  [&](FileInfo& f) { *disp = bdmpi::io::GetByteOffset(f, offset); });
}

}  // extern "C"
