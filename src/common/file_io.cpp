#include "common/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <utility>

#include "common/error.h"

namespace bdmpi {

UniqueFd OpenFile(const std::string& path, int flags, mode_t mode) {
  UniqueFd fd(open(path.c_str(), flags, mode));
  if (!fd) ThrowSystemError("open " + path, errno);
  return fd;
}

ssize_t PreadFull(int fd, void* data, std::size_t size, std::uint64_t offset) noexcept {
  char* cursor = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, cursor + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;  // end of file
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

ssize_t PwriteFull(int fd, const void* data, std::size_t size,
                   std::uint64_t offset) noexcept {
  const char* cursor = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, cursor + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) {  // no progress: the file system is full
      errno = ENOSPC;
      return -1;
    }
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

void ReadExactlyAt(int fd, void* data, std::size_t size, std::uint64_t offset,
                   const std::string& path) {
  ssize_t n = PreadFull(fd, data, size, offset);
  if (n < 0) ThrowSystemError("pread " + path, errno);
  if (static_cast<std::size_t>(n) < size)
    throw Error(kErrIo, "pread " + path + ": the file ends " +
                            std::to_string(size - static_cast<std::size_t>(n)) +
                            " bytes early (at byte " + std::to_string(offset + n) + ")");
}

void WriteAllAt(int fd, const void* data, std::size_t size, std::uint64_t offset,
                const std::string& path) {
  if (PwriteFull(fd, data, size, offset) < 0) ThrowSystemError("pwrite " + path, errno);
}

void ThrowWriteError(const std::string& what, const std::string& path, int err) {
  if (err != ENOSPC && err != EDQUOT) ThrowSystemError(what + " " + path, err);
  std::string dir = std::filesystem::path(path).parent_path().string();
  throw Error(kErrNoSpace, std::string(err == ENOSPC ? "no space left on device (ENOSPC)"
                                                     : "disk quota exceeded (EDQUOT)") +
                               " in the scratch directory " + dir + " (" + what + " " +
                               std::filesystem::path(path).filename().string() +
                               "): free space there or choose another --scratch-dir");
}

void WriteNewFile(const std::string& path, const void* data, std::size_t size) {
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) ThrowWriteError("open", path, errno);
  try {
    WriteAll(fd.get(), path, data, size);
  } catch (...) {
    unlink(path.c_str());
    throw;
  }
}

void WriteAll(int fd, const std::string& path, const void* data, std::size_t size) {
  if (PwriteFull(fd, data, size, 0) < 0) ThrowWriteError("write", path, errno);
}

std::size_t ReadFilePrefix(const std::string& path, void* data,
                           std::size_t capacity) {
  UniqueFd fd = OpenFile(path, O_RDONLY | O_CLOEXEC);
  return ReadAll(fd.get(), path, data, capacity);
}

std::size_t ReadAll(int fd, const std::string& path, void* data, std::size_t capacity) {
  ssize_t n = PreadFull(fd, data, capacity, 0);
  if (n < 0) ThrowSystemError("read " + path, errno);
  return static_cast<std::size_t>(n);
}

OwnedFile::~OwnedFile() {
  if (remove_) unlink(path_.c_str());
}

MappedFile MappedFile::Map(const std::string& path, int fd, std::size_t size,
                           bool writable) {
  if (size == 0) return MappedFile(nullptr, 0);
  int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
  void* data = mmap(nullptr, size, prot, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) ThrowSystemError("mmap " + path, errno);
  // Reductions stream through the file once (advice only: a failure is harmless).
  madvise(data, size, MADV_SEQUENTIAL);
  return MappedFile(static_cast<std::byte*>(data), size);
}

MappedFile MappedFile::OpenRead(const std::string& path, std::size_t size) {
  UniqueFd fd = OpenFile(path, O_RDONLY | O_CLOEXEC);
  return Map(path, fd.get(), size, /*writable=*/false);
}

MappedFile MappedFile::OpenReadWrite(const std::string& path,
                                     std::size_t size) {
  UniqueFd fd = OpenFile(path, O_RDWR | O_CLOEXEC);
  return Map(path, fd.get(), size, /*writable=*/true);
}

MappedFile MappedFile::CreateReadWrite(const std::string& path,
                                       std::size_t size) {
  UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd) ThrowWriteError("open", path, errno);
  if (size > 0) {
    if (int err = posix_fallocate(fd.get(), 0, static_cast<off_t>(size)); err != 0) {
      unlink(path.c_str());
      ThrowWriteError("allocate", path, err);
    }
  }
  return Map(path, fd.get(), size, /*writable=*/true);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile::~MappedFile() {
  if (data_ != nullptr) munmap(data_, size_);
}

void MakePrivateDir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0) ThrowSystemError("mkdir " + path, errno);
}

void RemoveTree(const std::string& path) noexcept {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

}  // namespace bdmpi
