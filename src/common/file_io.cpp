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
namespace {

// Closes a descriptor on every path out of a function.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

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
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) ThrowWriteError("open", path, errno);
  FdCloser closer{fd};
  try {
    WriteAll(fd, path, data, size);
  } catch (...) {
    unlink(path.c_str());
    throw;
  }
}

void WriteAll(int fd, const std::string& path, const void* data, std::size_t size) {
  const char* cursor = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, cursor, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowWriteError("write", path, errno);
    }
    cursor += n;
    size -= static_cast<std::size_t>(n);
  }
}

std::size_t ReadFilePrefix(const std::string& path, void* data,
                           std::size_t capacity) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowSystemError("open " + path, errno);
  FdCloser closer{fd};
  return ReadAll(fd, path, data, capacity);
}

std::size_t ReadAll(int fd, const std::string& path, void* data, std::size_t capacity) {
  char* cursor = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < capacity) {
    ssize_t n = read(fd, cursor + done, capacity - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowSystemError("read " + path, errno);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

OwnedFile::~OwnedFile() { unlink(path_.c_str()); }

MappedFile MappedFile::Map(const std::string& path, int fd, std::size_t size,
                           bool writable) {
  if (size == 0) return MappedFile(nullptr, 0);
  int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
  void* data = mmap(nullptr, size, prot, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) ThrowSystemError("mmap " + path, errno);
  // Reductions stream through the file once.
  madvise(data, size, MADV_SEQUENTIAL);
  return MappedFile(static_cast<std::byte*>(data), size);
}

MappedFile MappedFile::OpenRead(const std::string& path, std::size_t size) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowSystemError("open " + path, errno);
  FdCloser closer{fd};
  return Map(path, fd, size, /*writable=*/false);
}

MappedFile MappedFile::OpenReadWrite(const std::string& path,
                                     std::size_t size) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) ThrowSystemError("open " + path, errno);
  FdCloser closer{fd};
  return Map(path, fd, size, /*writable=*/true);
}

MappedFile MappedFile::CreateReadWrite(const std::string& path,
                                       std::size_t size) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) ThrowWriteError("open", path, errno);
  FdCloser closer{fd};
  if (size > 0) {
    if (int err = posix_fallocate(fd, 0, static_cast<off_t>(size)); err != 0) {
      unlink(path.c_str());
      ThrowWriteError("allocate", path, err);
    }
  }
  return Map(path, fd, size, /*writable=*/true);
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
