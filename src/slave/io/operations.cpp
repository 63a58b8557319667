#include "slave/io/operations.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/job_names.h"
#include "common/rank_wiring.h"
#include "slave/coll/collectives.h"
#include "slave/comm/comm.h"
#include "slave/io/transfer.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"

namespace bdmpi::io {

namespace {

constexpr int kAccessModes = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR;

// The amode rules of MPI-3.1 13.2.1; 0 or MPI_ERR_AMODE with `why`.
int CheckAmode(int amode, std::string* why) {
  int access = amode & kAccessModes;
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
    *why = "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is needed";
  else if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)) != 0)
    *why = "MPI_MODE_RDONLY cannot be combined with MPI_MODE_CREATE or MPI_MODE_EXCL";
  else if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL) != 0)
    *why = "MPI_MODE_RDWR cannot be combined with MPI_MODE_SEQUENTIAL";
  else if ((amode & ~(kAccessModes | MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE |
                      MPI_MODE_UNIQUE_OPEN | MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND)) != 0)
    *why = "unknown MPI_MODE_ bits";
  else
    return 0;
  *why = "invalid amode " + std::to_string(amode) + ": " + *why;
  return MPI_ERR_AMODE;
}

int OpenFlags(int amode) {
  int flags = O_CLOEXEC;
  if ((amode & MPI_MODE_RDONLY) != 0) flags |= O_RDONLY;
  if ((amode & MPI_MODE_WRONLY) != 0) flags |= O_WRONLY;
  if ((amode & MPI_MODE_RDWR) != 0) flags |= O_RDWR;
  return flags;
}

int Rank(MPI_Comm comm) { return LookupComm(comm).rank; }

// Runs `step` on every rank (or on rank 0 only, after a barrier: what it
// does alone comes after the others' earlier calls), then agrees on the
// outcome with the other ranks of `comm` (an MPI_Allreduce, which also
// synchronises): if any failed, every rank throws, the failing ones their
// own error, the others the error of the lowest rank with the worst class,
// named. Whichever rank's fatal handler ends the job first then says what
// went wrong (a missing file's name), not only its class.
void Agree(MPI_Comm comm, bool rank0_only, const std::function<void()>& step) {
  if (rank0_only) Barrier(comm);
  std::optional<Error> failure;
  if (!rank0_only || Rank(comm) == 0) {
    try {
      step();
    } catch (const Error& error) {
      failure = error;
    }
  }
  struct {
    int error_class;
    int rank;
  } mine{failure ? failure->error_class() : 0, Rank(comm)}, worst{};
  Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, comm);
  if (worst.error_class == 0) return;
  char text[512] = {};
  if (worst.rank == mine.rank) std::snprintf(text, sizeof text, "%s", failure->what());
  Bcast(text, sizeof text, MPI_CHAR, worst.rank, comm);
  if (failure) throw *failure;
  // The class's text follows wherever the error is reported.
  throw Error(worst.error_class,
              "failed on rank " + std::to_string(worst.rank) + " of the file: " + text);
}

// A collective data access waits for the file's other ranks first (a
// blocking point), then does this rank's part as independent I/O. Waiting
// first orders it after everything the other ranks did before the call,
// as ROMIO's two-phase I/O does (no rank's collective write overtakes
// another's earlier read); see docs/mpi-io.md for why no
// aggregation.
void Collectively(FileInfo& file, bool collective, const std::function<void()>& access) {
  if (collective) Barrier(file.comm);
  access();
}

std::uint64_t FileSize(const FileInfo& file) {
  struct stat st {};
  if (fstat(file.fd.get(), &st) != 0) ThrowFileError("fstat of", file.path, errno);
  return static_cast<std::uint64_t>(st.st_size);
}

// The view's end of file in etypes (the first etype not wholly before it).
std::uint64_t EndInEtypes(const FileInfo& file) {
  std::uint64_t bytes = file.view.StreamBytesBefore(FileSize(file));
  return (bytes + file.view.etype_size() - 1) / file.view.etype_size();
}

std::string SharedPointerPath(const std::string& path, MPI_Comm comm) {
  const char* job = wiring::Find(Wire::kJobId);
  char id[32];
  std::snprintf(id, sizeof id, "%x", static_cast<unsigned>(LookupComm(comm).id));
  return path + ".bdmpi-shfp-" + (job ? job : "0") + "-" + id;
}

void CheckOffset(MPI_Offset offset) {
  if (offset < 0) throw Error(kErrArg, "negative file offset " + std::to_string(offset));
}

void SetIoStatus(MPI_Status* status, std::uint64_t bytes) {
  SetStatus(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, bytes);
}

// Where an access starts, in stream bytes, and the pointer moved past it.
std::uint64_t StartOf(FileInfo& file, const Access& access, std::uint64_t bytes) {
  std::uint64_t etype = file.view.etype_size();
  switch (access.pointer) {
    case Pointer::kExplicit:
      if ((file.amode & MPI_MODE_SEQUENTIAL) != 0)
        throw Error(MPI_ERR_UNSUPPORTED_OPERATION,
                    "explicit offsets on a file opened MPI_MODE_SEQUENTIAL");
      CheckOffset(access.offset);
      return static_cast<std::uint64_t>(access.offset) * etype;
    case Pointer::kIndividual:
      return file.position * etype;
    case Pointer::kShared:
      return file.shared.FetchAdd(bytes / etype) * etype;
  }
  return 0;
}

template <class Buffer, class Transfer>
void Move(FileInfo& file, const Access& access, Buffer buffer, int count, MPI_Datatype datatype,
          MPI_Status* status, Transfer transfer) {
  Collectively(file, access.collective, [&] {
    std::uint64_t bytes = AccessBytes(file, count, datatype);
    std::uint64_t start = StartOf(file, access, bytes);
    Moved done = transfer(file, start, buffer, count, datatype);
    if (access.pointer == Pointer::kIndividual)
      file.position += done.stream / file.view.etype_size();
    SetIoStatus(status, done.wire);
  });
}

// MPI_File_read/write_ordered: the ranks' parts follow each other in rank
// order from the shared pointer, which rank 0 advances past all of them.
template <class Buffer, class Transfer>
void Ordered(FileInfo& file, Buffer buffer, int count, MPI_Datatype datatype,
             MPI_Status* status, Transfer transfer) {
  std::uint64_t etype = file.view.etype_size();
  long long mine = static_cast<long long>(AccessBytes(file, count, datatype) / etype);
  const CommInfo& comm = LookupComm(file.comm);
  std::vector<long long> parts(static_cast<std::size_t>(comm.size));
  Allgather(&mine, 1, MPI_LONG_LONG, parts.data(), 1, MPI_LONG_LONG, file.comm);
  long long before = 0, total = 0;
  for (int r = 0; r < comm.size; ++r) {
    if (r < comm.rank) before += parts[static_cast<std::size_t>(r)];
    total += parts[static_cast<std::size_t>(r)];
  }
  long long base = 0;
  Agree(file.comm, true, [&] {
    base = static_cast<long long>(file.shared.FetchAdd(static_cast<std::uint64_t>(total)));
  });
  Bcast(&base, 1, MPI_LONG_LONG, 0, file.comm);
  std::uint64_t start = static_cast<std::uint64_t>(base + before) * etype;
  SetIoStatus(status, transfer(file, start, buffer, count, datatype).wire);
}

}  // namespace

MPI_File Open(MPI_Comm comm, const char* filename, int amode, MPI_Info info) {
  RequireInitialized();
  LookupComm(comm);
  CheckInfoArgument(info);
  if (filename == nullptr) throw Error(MPI_ERR_BAD_FILE, "the file name is NULL");
  std::string why;
  int amode_error = CheckAmode(amode, &why);
  auto file = std::make_unique<FileInfo>();
  file->path = filename;
  file->amode = amode;
  if (info != MPI_INFO_NULL) file->info = LookupInfo(info);
  file->comm = CommDup(comm);
  auto open_file = [&](int extra) {
    if (amode_error != 0) throw Error(amode_error, why);
    file->fd.reset(open(filename, OpenFlags(amode) | extra, 0666));
    if (!file->fd.valid()) ThrowFileError("cannot open", file->path, errno);
  };
  try {
    // Rank 0 creates the file (and alone sees MPI_MODE_EXCL fail), then
    // the others open what it made.
    int create = ((amode & MPI_MODE_CREATE) != 0 ? O_CREAT : 0) |
                 ((amode & MPI_MODE_EXCL) != 0 ? O_EXCL : 0);
    Agree(file->comm, false, [&] {
      if (amode_error != 0 || Rank(file->comm) == 0) open_file(create);
    });
    Agree(file->comm, false, [&] {
      if (Rank(file->comm) != 0) open_file(0);
    });
  } catch (const Error&) {
    CommFree(&file->comm);
    throw;
  }
  std::uint64_t start = (amode & MPI_MODE_APPEND) != 0 ? FileSize(*file) : 0;
  file->position = start;
  file->shared = SharedPointer(SharedPointerPath(file->path, file->comm), start);
  return AddFile(std::move(file));
}

void Close(MPI_File* handle) {
  FileInfo& file = LookupFile(*handle);
  // Every rank is done with the file (and its shared pointer) before rank
  // 0 removes what it removes, and that is done when any rank returns.
  Barrier(file.comm);
  if (Rank(file.comm) == 0) {
    file.shared.Remove();
    if ((file.amode & MPI_MODE_DELETE_ON_CLOSE) != 0) unlink(file.path.c_str());
  }
  Barrier(file.comm);
  CommFree(&file.comm);
  RemoveFile(*handle);
  *handle = MPI_FILE_NULL;
}

void Delete(const char* filename) {
  RequireInitialized();
  if (filename == nullptr) throw Error(MPI_ERR_BAD_FILE, "the file name is NULL");
  if (unlink(filename) != 0) ThrowFileError("cannot delete", filename, errno);
}

void SetSize(FileInfo& file, MPI_Offset size) {
  CheckOffset(size);
  Agree(file.comm, true, [&] {
    if (ftruncate(file.fd.get(), static_cast<off_t>(size)) != 0)
      ThrowFileError("ftruncate of", file.path, errno);
  });
}

void Preallocate(FileInfo& file, MPI_Offset size) {
  CheckOffset(size);
  Agree(file.comm, true, [&] {
    if (static_cast<std::uint64_t>(size) <= FileSize(file)) return;
    int err = posix_fallocate(file.fd.get(), 0, static_cast<off_t>(size));
    if (err == EOPNOTSUPP || err == EINVAL) {  // no fallocate here: grow the file
      if (ftruncate(file.fd.get(), static_cast<off_t>(size)) == 0) return;
      err = errno;
    }
    if (err != 0) ThrowFileError("preallocating", file.path, err);
  });
}

MPI_Offset GetSize(const FileInfo& file) { return static_cast<MPI_Offset>(FileSize(file)); }

void SetView(FileInfo& file, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
             const char* datarep) {
  Agree(file.comm, false, [&] {
    std::shared_ptr<const Datarep> rep = Datarep::Find(datarep);
    if (disp == MPI_DISPLACEMENT_CURRENT) {
      if ((file.amode & MPI_MODE_SEQUENTIAL) == 0)
        throw Error(kErrArg, "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
      disp = static_cast<MPI_Offset>(file.view.FileOffset(file.shared.Get() *
                                                          file.view.etype_size()));
    }
    file.view = View(disp, etype, filetype, (file.amode & MPI_MODE_RDONLY) == 0, *rep);
    file.datarep = std::move(rep);
    file.position = 0;
  });
  Agree(file.comm, true, [&] { file.shared.Set(0); });
}

void Sync(FileInfo& file) {
  Agree(file.comm, false, [&] {
    if ((file.amode & MPI_MODE_RDONLY) == 0 && fdatasync(file.fd.get()) != 0)
      ThrowFileError("fdatasync of", file.path, errno);
  });
}

void SetAtomicity(FileInfo& file, bool atomic) {
  file.atomic = atomic;
  Barrier(file.comm);
}

void Read(FileInfo& file, const Access& access, void* buffer, int count, MPI_Datatype datatype,
          MPI_Status* status) {
  Move(file, access, buffer, count, datatype, status, ReadStream);
}

void Write(FileInfo& file, const Access& access, const void* buffer, int count,
           MPI_Datatype datatype, MPI_Status* status) {
  Move(file, access, buffer, count, datatype, status, WriteStream);
}

void ReadOrdered(FileInfo& file, void* buffer, int count, MPI_Datatype datatype,
                 MPI_Status* status) {
  Ordered(file, buffer, count, datatype, status, ReadStream);
}

void WriteOrdered(FileInfo& file, const void* buffer, int count, MPI_Datatype datatype,
                  MPI_Status* status) {
  Ordered(file, buffer, count, datatype, status, WriteStream);
}

namespace {

std::uint64_t NewPosition(const FileInfo& file, std::uint64_t current, MPI_Offset offset,
                          int whence) {
  long long base = 0;
  switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = static_cast<long long>(current); break;
    case MPI_SEEK_END: base = static_cast<long long>(EndInEtypes(file)); break;
    default: throw Error(kErrArg, "whence " + std::to_string(whence) +
                                      " is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END");
  }
  long long position = base + offset;
  if (position < 0)
    throw Error(kErrArg, "the seek would move the file pointer before the start of the view");
  return static_cast<std::uint64_t>(position);
}

}  // namespace

void Seek(FileInfo& file, MPI_Offset offset, int whence) {
  if ((file.amode & MPI_MODE_SEQUENTIAL) != 0)
    throw Error(MPI_ERR_UNSUPPORTED_OPERATION,
                "MPI_File_seek on a file opened MPI_MODE_SEQUENTIAL");
  file.position = NewPosition(file, file.position, offset, whence);
}

void SeekShared(FileInfo& file, MPI_Offset offset, int whence) {
  // (Agree: every rank's earlier shared accesses are done before rank 0
  // moves it.)
  Agree(file.comm, true, [&] {
    file.shared.Set(NewPosition(file, file.shared.Get(), offset, whence));
  });
}

MPI_Offset GetPositionShared(FileInfo& file) {
  return static_cast<MPI_Offset>(file.shared.Get());
}

MPI_Offset GetByteOffset(const FileInfo& file, MPI_Offset offset) {
  CheckOffset(offset);
  return static_cast<MPI_Offset>(
      file.view.FileOffset(static_cast<std::uint64_t>(offset) * file.view.etype_size()));
}

}  // namespace bdmpi::io
