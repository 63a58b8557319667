// The shared file pointer of an open file: one 8-byte counter (in etypes)
// in a small file next to the data file, read and advanced under an fcntl
// lock. Chosen over a counter held by a master because it is right for any
// number of nodes that share the directory (the same condition the data
// file already needs) without a new message type or master state, and a
// rank holds the lock only for a read and a write, never across a blocking
// MPI call, so cooperative scheduling cannot deadlock on it.
//
// The lock file is made on first use by whichever rank comes first; rank 0
// removes it at MPI_File_close (and MPI_File_set_view, which resets the
// pointer, removes nothing: it rewrites the counter).
#pragma once

#include <cstdint>
#include <string>

#include "common/unique_fd.h"

namespace bdmpi::io {

class SharedPointer {
 public:
  SharedPointer() = default;
  // `path`: the lock file's; `initial`: the pointer's value before any
  // shared access (the end of file under MPI_MODE_APPEND).
  SharedPointer(std::string path, std::uint64_t initial)
      : path_(std::move(path)), initial_(initial) {}

  // Returns the pointer and advances it by `advance`, atomically for all
  // the file's ranks.
  std::uint64_t FetchAdd(std::uint64_t advance);
  std::uint64_t Get() { return FetchAdd(0); }
  void Set(std::uint64_t value);
  // Rank 0 at MPI_File_close.
  void Remove();

 private:
  int Fd();
  std::string path_;
  std::uint64_t initial_ = 0;
  UniqueFd fd_;
};

}  // namespace bdmpi::io
