#include "common/spill_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/file_io.h"
#include "common/job_names.h"
#include "common/private_dir.h"

namespace bdmpi {
namespace {

// The name inside the directory: SpillFileName without a directory.
std::string FileName(std::uint64_t file_id) { return SpillFileName("", file_id).substr(1); }

}  // namespace

SpillDir::SpillDir(UniqueFd fd, std::string path)
    : fd_(std::move(fd)), path_(std::move(path)), inode_(InodeOf(fd_.get())) {}

SpillDir SpillDir::OpenExisting(const std::string& path, std::uint64_t inode) {
  SpillDir dir(OpenPrivateDir(path), path);
  if (dir.inode_ != inode)
    throw Error(kErrIo, "the spill directory " + path +
                            " is not the one the master created: it was replaced "
                            "while the job ran");
  return dir;
}

std::string SpillDir::FilePath(std::uint64_t file_id) const {
  return SpillFileName(path_, file_id);
}

void SpillDir::CheckStillInPlace() const {
  struct stat info {};
  if (lstat(path_.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
      static_cast<std::uint64_t>(info.st_ino) != inode_)
    throw Error(kErrIo, "the spill directory " + path_ +
                            " was replaced or moved while the job ran");
}

UniqueFd SpillDir::Create(std::uint64_t file_id, int access, std::uint64_t* inode) const {
  CheckStillInPlace();
  UniqueFd fd(openat(fd_.get(), FileName(file_id).c_str(),
                     access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) ThrowWriteError("create", FilePath(file_id), errno);
  *inode = InodeOf(fd.get());
  return fd;
}

UniqueFd SpillDir::CreateReserved(std::uint64_t file_id, std::uint64_t bytes,
                                  std::uint64_t* inode) const {
  UniqueFd fd = Create(file_id, O_RDWR, inode);
  if (bytes > 0) {
    if (int err = posix_fallocate(fd.get(), 0, static_cast<off_t>(bytes)); err != 0) {
      Unlink(file_id);
      ThrowWriteError("allocate", FilePath(file_id), err);
    }
  }
  return fd;
}

UniqueFd SpillDir::Open(std::uint64_t file_id, int access, std::uint64_t inode) const {
  CheckStillInPlace();
  std::string path = FilePath(file_id);
  UniqueFd fd(openat(fd_.get(), FileName(file_id).c_str(), access | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ELOOP) throw Error(kErrIo, "the spill file " + path + " was replaced by a symlink");
    ThrowSystemError("open " + path, errno);
  }
  struct stat info {};
  if (fstat(fd.get(), &info) != 0) ThrowSystemError("fstat " + path, errno);
  if (!S_ISREG(info.st_mode) || info.st_uid != geteuid() || info.st_nlink != 1 ||
      (inode != 0 && static_cast<std::uint64_t>(info.st_ino) != inode))
    throw Error(kErrIo, "the spill file " + path +
                            " is not the file the job wrote: it was replaced while the "
                            "job ran");
  return fd;
}

std::uint64_t SpillDir::Write(std::uint64_t file_id, const void* data, std::size_t size) const {
  std::uint64_t inode = 0;
  UniqueFd fd = Create(file_id, O_WRONLY, &inode);
  try {
    WriteAll(fd.get(), FilePath(file_id), data, size);
  } catch (...) {
    Unlink(file_id);
    throw;
  }
  return inode;
}

void SpillDir::ReadPrefix(std::uint64_t file_id, std::uint64_t inode, void* data,
                          std::size_t capacity) const {
  UniqueFd fd = Open(file_id, O_RDONLY, inode);
  ReadAll(fd.get(), FilePath(file_id), data, capacity);
}

void SpillDir::Unlink(std::uint64_t file_id) const noexcept {
  unlinkat(fd_.get(), FileName(file_id).c_str(), 0);
}

void SpillDir::RecordJobFile(const std::string& path) const {
  UniqueFd fd(openat(fd_.get(), kJobFilesRecord,
                     O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  std::string line = path + "\n";
  // O_APPEND: each rank's line lands whole (one write of a short line).
  if (!fd.valid() || write(fd.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw Error(kErrIo, "cannot record " + path + " in " + path_ + "/" + kJobFilesRecord +
                            ": " + std::strerror(errno));
}

std::vector<std::string> SpillDir::RecordedJobFiles() const {
  std::vector<std::string> paths;
  UniqueFd fd(openat(fd_.get(), kJobFilesRecord, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return paths;
  std::string text;
  char buffer[4096];
  for (off_t offset = 0;;) {
    ssize_t n = PreadFull(fd.get(), buffer, sizeof buffer, offset);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1)
    paths.push_back(text.substr(start, end - start));
  return paths;
}

}  // namespace bdmpi
