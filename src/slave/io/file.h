// MPI-IO's open files as a slave holds them: each rank of a file has its
// own descriptor on the same path (the ranks of a file may be on several
// nodes that share the directory), its view, its individual file pointer
// and its error handler. Collective calls synchronise on a private
// duplicate of the communicator the file was opened on.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/unique_fd.h"
#include "slave/io/datarep.h"
#include "slave/io/shared_pointer.h"
#include "slave/io/view.h"
#include "slave/runtime/info.h"

namespace bdmpi::io {

struct FileInfo {
  UniqueFd fd;
  std::string path;
  MPI_Comm comm = MPI_COMM_NULL;  // our duplicate of the user's
  int amode = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  InfoEntries info;
  View view;
  // The view's data representation: what the view's positions count
  // (bytes in the file), and how the data converts.
  std::shared_ptr<const Datarep> datarep = Datarep::Native();
  std::uint64_t position = 0;  // individual file pointer, in etypes of the view
  SharedPointer shared;
  bool atomic = false;
  // A split collective begun and not yet ended: its status.
  bool split_pending = false;
  MPI_Status split_status{};
};

// Throws kErrFile for MPI_FILE_NULL and anything that is not an open file.
FileInfo& LookupFile(MPI_File file);
MPI_File AddFile(std::unique_ptr<FileInfo> file);
// Forgets an open file (its descriptors close).
void RemoveFile(MPI_File file);

// The handler errors go to when no file is open (MPI_File_open,
// MPI_File_delete): MPI_FILE_NULL's, MPI_ERRORS_RETURN unless set.
MPI_Errhandler DefaultFileErrhandler();
void SetDefaultFileErrhandler(MPI_Errhandler errhandler);

// The MPI error class of a failed file system call.
int FileErrorClass(int err);
// Throws an Error of FileErrorClass(err): "<what> <path>: <errno text>".
[[noreturn]] void ThrowFileError(const std::string& what, const std::string& path, int err);

}  // namespace bdmpi::io
