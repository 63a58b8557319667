// File descriptors and file I/O: an owning descriptor, positioned reads and
// writes that survive EINTR and short counts, and spill files (whole-file
// writes and reads, owners that unlink, mappings).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/unique_fd.h"

namespace bdmpi {

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

// Throws for a failed write (or create, or allocation) of `path`. A full
// disk names the directory and what to do about it, since every spill
// file of a job lands in the one scratch directory the user chose.
[[noreturn]] void ThrowWriteError(const std::string& what, const std::string& path,
                                  int err);

// Reads up to `capacity` bytes from the start of `path`; returns the count.
std::size_t ReadFilePrefix(const std::string& path, void* data,
                           std::size_t capacity);

// The same on an open file, from its start; `path` only names it in errors.
void WriteAll(int fd, const std::string& path, const void* data, std::size_t size);
std::size_t ReadAll(int fd, const std::string& path, void* data, std::size_t capacity);

// Owns a file on disk: unlinks it when destroyed (after the last reader).
// `inode` (0: unknown) lets readers check they open the file that was
// written (SpillDir::Open).
class OwnedFile {
 public:
  explicit OwnedFile(std::string path, std::uint64_t inode = 0, bool remove = true)
      : path_(std::move(path)), inode_(inode), remove_(remove) {}
  OwnedFile(const OwnedFile&) = delete;
  OwnedFile& operator=(const OwnedFile&) = delete;
  ~OwnedFile();
  const std::string& path() const { return path_; }
  std::uint64_t inode() const { return inode_; }

 private:
  std::string path_;
  std::uint64_t inode_;
  bool remove_;  // false: a file reused by its owner (a payload segment)
};

// A read-only or read-write mapping of a whole file, unmapped on destruction.
class MappedFile {
 public:
  static MappedFile OpenRead(const std::string& path, std::size_t size);
  static MappedFile OpenReadWrite(const std::string& path, std::size_t size);
  // Creates `path` exclusively with `size` bytes (zero-filled), allocated
  // up front: a full disk is an error here, not a SIGBUS at the first
  // write through the mapping.
  static MappedFile CreateReadWrite(const std::string& path, std::size_t size);
  // The first `size` bytes of the open file `fd` (`path` names it in errors).
  static MappedFile Map(const std::string& path, int fd, std::size_t size,
                        bool writable);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  MappedFile(std::byte* data, std::size_t size) : data_(data), size_(size) {}
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// Creates a directory with mode 0700; fails if it exists.
void MakePrivateDir(const std::string& path);
// Removes a directory tree; never throws (used on cleanup paths).
void RemoveTree(const std::string& path) noexcept;

}  // namespace bdmpi
