// File descriptors and file I/O: an owning descriptor, positioned reads and
// writes that survive EINTR and short counts, and spill files (whole-file
// writes and reads, owners that unlink, mappings).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bdmpi {

// Owns a file descriptor: closes it when destroyed. Move-only; -1 is empty.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }
  // Gives the descriptor up without closing it.
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the descriptor held (if any) and holds `fd` instead.
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

// open(2) that throws "open <path>: <errno text>" on failure.
UniqueFd OpenFile(const std::string& path, int flags, mode_t mode = 0);

// The two loops every positioned transfer needs: they retry on EINTR and
// continue after short counts. They neither allocate nor throw, so the
// storage allocator (inside malloc) uses them too.
//
// Reads until `size` bytes or the end of the file: returns the count read,
// or -1 with errno set.
ssize_t PreadFull(int fd, void* data, std::size_t size, std::uint64_t offset) noexcept;
// Writes all `size` bytes: returns `size`, or -1 with errno set (ENOSPC when
// the file system accepts no byte at all).
ssize_t PwriteFull(int fd, const void* data, std::size_t size,
                   std::uint64_t offset) noexcept;

// Throwing forms, for callers that report a failure by exception: the
// message names the call and `path`. ReadExactlyAt treats an early end of
// file as an error (EIO).
void ReadExactlyAt(int fd, void* data, std::size_t size, std::uint64_t offset,
                   const std::string& path);
void WriteAllAt(int fd, const void* data, std::size_t size, std::uint64_t offset,
                const std::string& path);

// Creates `path` exclusively (0600) and writes `size` bytes into it.
void WriteNewFile(const std::string& path, const void* data, std::size_t size);

// Reads up to `capacity` bytes from the start of `path`; returns the count.
std::size_t ReadFilePrefix(const std::string& path, void* data,
                           std::size_t capacity);

// Owns a file on disk: unlinks it when destroyed (after the last reader).
class OwnedFile {
 public:
  explicit OwnedFile(std::string path) : path_(std::move(path)) {}
  OwnedFile(const OwnedFile&) = delete;
  OwnedFile& operator=(const OwnedFile&) = delete;
  ~OwnedFile();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A read-only or read-write mapping of a whole file, unmapped on destruction.
class MappedFile {
 public:
  static MappedFile OpenRead(const std::string& path, std::size_t size);
  static MappedFile OpenReadWrite(const std::string& path, std::size_t size);
  // Creates `path` exclusively with `size` bytes (zero-filled).
  static MappedFile CreateReadWrite(const std::string& path, std::size_t size);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  MappedFile(std::byte* data, std::size_t size) : data_(data), size_(size) {}
  static MappedFile Map(const std::string& path, int fd, std::size_t size,
                        bool writable);
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// Creates a directory with mode 0700; fails if it exists.
void MakePrivateDir(const std::string& path);
// Removes a directory tree; never throws (used on cleanup paths).
void RemoveTree(const std::string& path) noexcept;

}  // namespace bdmpi
