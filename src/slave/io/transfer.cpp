#include "slave/io/transfer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstddef>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "slave/datatype/datatypes.h"
#include "slave/memory/arena.h"

namespace bdmpi::io {

namespace {

constexpr std::uint64_t kPage = 4096;
// The most one pread/pwrite moves (Linux moves at most 2 GiB - 4 KiB).
constexpr std::uint64_t kMaxRequest = 1ull << 30;

// Moves file bytes [offset, offset + length) to or from `data` in steps:
// whole pages of storage-backed memory with storage(at, file offset, left),
// which goes through the rank's backing file and returns the bytes moved
// (0: not here), everything else with plain(at, file offset, chunk) in
// requests of up to kMaxRequest, or up to the next page boundary before
// storage-backed pages. Stops at a short plain step (the end of the file);
// returns the bytes moved.
template <class Byte, class Storage, class Plain>
std::uint64_t Steps(Byte* data, std::uint64_t offset, std::uint64_t length, Storage storage,
                    Plain plain) {
  std::uint64_t done = 0;
  while (done < length) {
    Byte* at = data + done;
    std::uint64_t left = length - done;
    auto address = reinterpret_cast<std::uintptr_t>(at);
    bool backed = memory::Owns(at);
    if (backed && address % kPage == 0 && left >= kPage) {
      std::uint64_t moved = storage(at, offset + done, left);
      if (moved > 0) {
        done += moved;
        continue;
      }
    }
    std::uint64_t chunk = std::min(left, kMaxRequest);
    if (backed) chunk = std::min(left, kPage - address % kPage);
    std::uint64_t moved = plain(at, offset + done, chunk);
    done += moved;
    if (moved < chunk) break;
  }
  return done;
}

// Reads; returns the count (short at the end of the file).
std::uint64_t ReadPiece(const FileInfo& file, std::uint64_t offset, std::byte* data,
                        std::uint64_t length) {
  int fd = file.fd.get();
  return Steps(
      data, offset, length,
      [&](std::byte* at, std::uint64_t from, std::uint64_t left) -> std::uint64_t {
        return memory::ReadFileInto(fd, from, at, static_cast<std::size_t>(left));
      },
      [&](std::byte* at, std::uint64_t from, std::uint64_t chunk) -> std::uint64_t {
        ssize_t n = PreadFull(fd, at, static_cast<std::size_t>(chunk), from);
        if (n < 0) ThrowFileError("read of", file.path, errno);
        return static_cast<std::uint64_t>(n);
      });
}

void WritePiece(const FileInfo& file, std::uint64_t offset, const std::byte* data,
                std::uint64_t length) {
  int fd = file.fd.get();
  Steps(
      data, offset, length,
      [&](const std::byte* at, std::uint64_t to, std::uint64_t left) -> std::uint64_t {
        std::int64_t n = memory::WriteFileFrom(fd, to, at, static_cast<std::size_t>(left));
        if (n < 0) ThrowFileError("write of", file.path, errno);
        return static_cast<std::uint64_t>(n);
      },
      [&](const std::byte* at, std::uint64_t to, std::uint64_t chunk) -> std::uint64_t {
        if (PwriteFull(fd, at, static_cast<std::size_t>(chunk), to) < 0)
          ThrowFileError("write of", file.path, errno);
        return chunk;
      });
}

// Data sieving for reads, as ROMIO does: file pieces close together (a
// view with small gaps) are read with one request over the span that
// holds them, up to kSieveSpan, and copied out; a piece alone is read
// straight into the buffer (through the backing file where it can).
// Pieces come in stream order; reading stops at the end of the file.
class Sieve {
 public:
  static constexpr std::uint64_t kSieveSpan = 4 << 20;

  // Stream byte `stream` goes to `data`, the ones after it behind it.
  Sieve(const FileInfo& file, std::byte* data, std::uint64_t stream)
      : file_(file), data_(data), stream_(stream) {}

  void Add(std::uint64_t offset, std::uint64_t length, std::uint64_t stream) {
    if (ended_) return;
    if (!pieces_.empty() && offset + length - pieces_.front().offset > kSieveSpan) Flush();
    if (ended_) return;
    pieces_.push_back({offset, length, stream});
  }

  // Reads what is pending; returns the bytes read in all (the stream's
  // prefix up to the end of the file).
  std::uint64_t Finish() {
    if (!ended_) Flush();
    return got_;
  }

 private:
  struct Piece {
    std::uint64_t offset, length, stream;
  };

  void Flush() {
    if (pieces_.size() == 1) {
      const Piece& piece = pieces_.front();
      std::uint64_t n = ReadPiece(file_, piece.offset, Out(piece), piece.length);
      got_ += n;
      ended_ = n < piece.length;
    } else if (!pieces_.empty()) {
      std::uint64_t first = pieces_.front().offset;
      std::uint64_t span = pieces_.back().offset + pieces_.back().length - first;
      window_.resize(span);
      ssize_t n = PreadFull(file_.fd.get(), window_.data(), span, first);
      if (n < 0) ThrowFileError("read of", file_.path, errno);
      std::uint64_t end = first + static_cast<std::uint64_t>(n);
      for (const Piece& piece : pieces_) {
        std::uint64_t have = end > piece.offset ? std::min(piece.length, end - piece.offset) : 0;
        std::memcpy(Out(piece), window_.data() + (piece.offset - first), have);
        got_ += have;
        if (have < piece.length) {
          ended_ = true;
          break;
        }
      }
    }
    pieces_.clear();
  }

  std::byte* Out(const Piece& piece) const { return data_ + (piece.stream - stream_); }

  const FileInfo& file_;
  std::byte* data_;
  std::uint64_t stream_;
  std::vector<Piece> pieces_;
  std::vector<std::byte> window_;
  std::uint64_t got_ = 0;
  bool ended_ = false;
};

// Atomic mode (MPI_File_set_atomicity): an fcntl lock on the file range
// an access touches, shared for reads, exclusive for writes, so that
// concurrent accesses of the file's ranks (on any node) do not interleave
// inside one MPI call. Nothing in non-atomic mode.
class RangeLock {
 public:
  RangeLock(const FileInfo& file, std::uint64_t stream, std::uint64_t bytes, bool write)
      : file_(file) {
    if (!file.atomic || bytes == 0) return;
    std::uint64_t first = file.view.FileOffset(stream);
    std::uint64_t last = file.view.FileOffset(stream + bytes - 1);
    lock_.l_type = static_cast<short>(write ? F_WRLCK : F_RDLCK);
    lock_.l_whence = SEEK_SET;
    lock_.l_start = static_cast<off_t>(first);
    lock_.l_len = static_cast<off_t>(last - first + 1);
    while (fcntl(file.fd.get(), F_OFD_SETLKW, &lock_) != 0) {
      if (errno != EINTR)
        ThrowFileError("fcntl(F_OFD_SETLKW) for atomic mode on", file.path, errno);
    }
    held_ = true;
  }
  ~RangeLock() {
    if (!held_) return;
    lock_.l_type = F_UNLCK;
    fcntl(file_.fd.get(), F_OFD_SETLK, &lock_);
  }
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;

 private:
  const FileInfo& file_;
  struct flock lock_ {};
  bool held_ = false;
};

}  // namespace

std::uint64_t AccessBytes(const FileInfo& file, int count, MPI_Datatype datatype) {
  const TypeInfo& type = CommType(count, datatype);
  std::uint64_t bytes = file.datarep->FileBytes(type, static_cast<std::uint64_t>(count));
  if (bytes % file.view.etype_size() != 0)
    throw Error(kErrArg, "the access is " + std::to_string(bytes) +
                             " bytes, not a whole number of the view's etypes (" +
                             std::to_string(file.view.etype_size()) + " bytes each)");
  return bytes;
}

Moved ReadStream(FileInfo& file, std::uint64_t stream, void* buffer, int count,
                 MPI_Datatype datatype) {
  if ((file.amode & MPI_MODE_WRONLY) != 0)
    throw Error(MPI_ERR_ACCESS, "read from " + file.path + ", opened MPI_MODE_WRONLY");
  std::uint64_t bytes = AccessBytes(file, count, datatype);
  const TypeInfo& type = LookupType(datatype);
  const bool convert = !file.datarep->native();
  std::vector<std::byte> staging;
  std::byte* data = static_cast<std::byte*>(buffer);
  if (!type.Dense() || convert) {
    staging.resize(bytes);
    data = staging.data();
  }
  RangeLock lock(file, stream, bytes, false);
  Sieve sieve(file, data, stream);
  file.view.ForEachPiece(stream, bytes, [&](std::uint64_t offset, std::uint64_t length,
                                            std::uint64_t at) { sieve.Add(offset, length, at); });
  std::uint64_t got = sieve.Finish();
  if (convert) return {got, file.datarep->FromFile(staging.data(), got, buffer, count, datatype)};
  if (!type.Dense()) UnpackElements(staging.data(), got, buffer, count, type);
  return {got, got};
}

Moved WriteStream(FileInfo& file, std::uint64_t stream, const void* buffer, int count,
                  MPI_Datatype datatype) {
  if ((file.amode & MPI_MODE_RDONLY) != 0)
    throw Error(MPI_ERR_READ_ONLY, "write to " + file.path + ", opened MPI_MODE_RDONLY");
  std::uint64_t bytes = AccessBytes(file, count, datatype);
  const TypeInfo& type = LookupType(datatype);
  std::vector<std::byte> staging;
  const std::byte* data = static_cast<const std::byte*>(buffer);
  if (!file.datarep->native()) {
    staging.resize(bytes);
    file.datarep->ToFile(buffer, count, datatype, staging.data());
    data = staging.data();
  } else if (!type.Dense()) {
    staging.resize(bytes);
    PackElements(buffer, count, type, staging.data());
    data = staging.data();
  }
  RangeLock lock(file, stream, bytes, true);
  file.view.ForEachPiece(stream, bytes, [&](std::uint64_t offset, std::uint64_t length,
                                            std::uint64_t at) {
    WritePiece(file, offset, data + (at - stream), length);
  });
  return {bytes, WireBytes(count, datatype)};
}

}  // namespace bdmpi::io
