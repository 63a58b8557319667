#include "slave/io/file.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/error.h"
#include "common/handles.h"
#include "slave/runtime/handle_table.h"

namespace bdmpi::io {

static_assert(MPI_FILE_NULL == (MakeHandle(HandleKind::kFile, 0) & ~0x40000000));

namespace {

// Slot 0 stays empty so that no open file has the handle MakeHandle(kFile, 0).
HandleTable<std::unique_ptr<FileInfo>>& Files() {
  static HandleTable<std::unique_ptr<FileInfo>> files(HandleKind::kFile, 1);
  return files;
}

MPI_Errhandler& DefaultHandler() {
  static MPI_Errhandler handler = MPI_ERRORS_RETURN;
  return handler;
}

}  // namespace

FileInfo& LookupFile(MPI_File file) {
  std::unique_ptr<FileInfo>* info = Files().Find(file);
  if (info == nullptr || *info == nullptr)
    throw Error(MPI_ERR_FILE, "invalid file handle (MPI_FILE_NULL, closed, or not a file)");
  return **info;
}

MPI_File AddFile(std::unique_ptr<FileInfo> file) { return Files().Add(std::move(file)); }

void RemoveFile(MPI_File file) {
  LookupFile(file);
  Files().Remove(file);
}

MPI_Errhandler DefaultFileErrhandler() { return DefaultHandler(); }
void SetDefaultFileErrhandler(MPI_Errhandler errhandler) { DefaultHandler() = errhandler; }

int FileErrorClass(int err) {
  switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case EISDIR:
    case ENOTDIR:
    case ENAMETOOLONG:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    case EFAULT: return MPI_ERR_BUFFER;
    default: return MPI_ERR_IO;
  }
}

void ThrowFileError(const std::string& what, const std::string& path, int err) {
  throw Error(FileErrorClass(err), what + " " + path + ": " + std::strerror(err));
}

}  // namespace bdmpi::io
