#include "slave/p2p/payload_segments.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/log.h"
#include "slave/memory/arena.h"

namespace bdmpi {
namespace {

// Segments grow in steps of this much, so that messages of slightly
// different sizes reuse one segment.
constexpr std::uint64_t kGrowthStep = 256 * 1024;

std::atomic_ref<std::uint32_t> FlagWord(std::uint32_t* word) {
  return std::atomic_ref<std::uint32_t>(*word);
}

// Copies the user's `bytes` at `data` to `out` through the kernel, so that
// an unmapped or unreadable send buffer is MPI_ERR_BUFFER (EFAULT), as it
// is when the payload goes to a spill file by write(2), and not a crash in
// memcpy. That costs 1.3-2x a memcpy's time (1-16 MiB, measured on the
// development VM: the kernel pins every page), so a buffer inside a live
// block of the storage-backed arena, which is readable by construction
// and where large buffers usually are, takes a plain copy. So does every
// buffer where the kernel refuses the call (a seccomp filter).
void CopyFromUser(void* out, const void* data, std::uint64_t bytes) {
  static bool plain_copy = false;
  if (memory::InLiveBlock(data, bytes)) {
    std::memcpy(out, data, bytes);
    return;
  }
  std::uint64_t done = 0;
  while (!plain_copy && done < bytes) {
    iovec local{static_cast<char*>(out) + done, bytes - done};
    iovec remote{const_cast<char*>(static_cast<const char*>(data)) + done, bytes - done};
    ssize_t copied = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (copied > 0) {
      done += static_cast<std::uint64_t>(copied);
    } else if (copied < 0 && (errno == ENOSYS || errno == EPERM)) {
      plain_copy = true;
    } else if (copied < 0 && errno != EINTR) {
      ThrowSystemError("send buffer", errno);
    } else if (copied == 0) {
      ThrowSystemError("send buffer", EFAULT);
    }
  }
  if (done < bytes)
    std::memcpy(static_cast<char*>(out) + done, static_cast<const char*>(data) + done,
                bytes - done);
}

}  // namespace

PayloadSegments::PayloadSegments(const SpillDir* dir, std::uint64_t owner)
    : dir_(dir), owner_(owner) {
  std::uint64_t id = SegmentFlagsFileId(owner);
  UniqueFd fd = dir->Open(id, O_RDWR, 0);
  flags_.emplace(MappedFile::Map(dir->FilePath(id), fd.get(), kSegmentFlagsBytes, true));
}

std::uint64_t PayloadSegments::Write(const void* data, std::uint64_t bytes) {
  // A free segment that is large enough, else a free one to grow, else a
  // new one.
  int pick = -1;
  std::uint32_t state = kSegmentFree;
  for (int index = 0; index < kMaxSegments; ++index) {
    std::uint32_t now = FlagWord(Flag(index)).load(std::memory_order_acquire);
    if (now != kSegmentFree && now != kSegmentFreeEmptied) continue;  // busy or trimming
    std::uint64_t capacity = segments_[index].capacity;
    bool fits = capacity >= bytes;
    if (pick < 0 || fits || (capacity > 0 && segments_[pick].capacity == 0)) {
      pick = index;
      state = now;
    }
    if (fits) break;
  }
  if (pick < 0) return 0;  // all busy: the caller uses a spill file
  // Claimed before the write: the master may be trimming a free segment's
  // pages for the node budget right now (then another one, or a spill file).
  if (!FlagWord(Flag(pick)).compare_exchange_strong(state, kSegmentBusy,
                                                    std::memory_order_acquire))
    return 0;
  struct Unclaim {  // a segment not used after all is free again as it was
    std::uint32_t* flag;
    std::uint32_t state;
    bool armed = true;
    ~Unclaim() {
      if (armed) FlagWord(flag).store(state, std::memory_order_release);
    }
  } unclaim{Flag(pick), state};
  // The master gave back its memory (moved the message to disk, trimmed
  // the segment): reserve it again, or a write through the mapping could
  // fault on a full tmpfs.
  Segment& segment = segments_[pick];
  if (state == kSegmentFreeEmptied) segment.mapped_here = false;
  if ((state == kSegmentFreeEmptied || segment.capacity < bytes) && !Reserve(pick, bytes))
    return 0;
  // Out of core the master empties free segments for the node budget, and
  // every write would fault the mapping in again, page by page: on the
  // test machines' VMs a fault costs 10-20 us, a 12 MiB copy 40 ms through
  // the mapping against 3-6 ms by pwrite. A segment written again without
  // being emptied in between is copied into through the mapping, warm
  // from then on (1 ms). An unmapped send buffer is MPI_ERR_BUFFER either
  // way (pwrite's EFAULT, as CopyFromUser's).
  if (segment.mapped_here) {
    CopyFromUser(segment.map->data(), data, bytes);
  } else if (PwriteFull(segment.fd.get(), data, bytes, 0) < 0) {
    ThrowSystemError(errno == EFAULT ? "send buffer" : "write of a payload segment", errno);
  }
  segment.mapped_here = true;
  unclaim.armed = false;
  return SegmentFileId(owner_, pick);
}

bool PayloadSegments::Reserve(int index, std::uint64_t bytes) {
  Segment& segment = segments_[index];
  std::uint64_t id = SegmentFileId(owner_, index);
  std::uint64_t capacity = std::max(segment.capacity,
                                    (bytes + kGrowthStep - 1) / kGrowthStep * kGrowthStep);
  try {
    if (!segment.fd.valid()) {
      std::uint64_t inode = 0;
      segment.fd = dir_->Create(id, O_RDWR, &inode);
    }
    // Pages allocated now: a full tmpfs is an error here, not a SIGBUS.
    if (int err = posix_fallocate(segment.fd.get(), 0, static_cast<off_t>(capacity)); err != 0)
      ThrowWriteError("allocate", dir_->FilePath(id), err);
    if (capacity != segment.capacity) {
      segment.mapped_here = false;
      segment.map.reset();
      segment.capacity = 0;
      segment.map.emplace(MappedFile::Map(dir_->FilePath(id), segment.fd.get(), capacity, true));
      segment.capacity = capacity;
    }
  } catch (const Error& error) {
    BDMPI_DEBUG("disk", "payload segment: %s; using a spill file", error.what());
    return false;
  }
  return true;
}

void SegmentReader::Read(const SpillDir& dir, std::uint64_t file_id, std::uint64_t inode,
                         void* out, std::uint64_t bytes) {
  if (SegmentIndex(file_id) < 0) {  // a file made for one message
    dir.ReadPrefix(file_id, inode, out, bytes);
    return;
  }
  auto found = mappings_.find(file_id);
  if (found == mappings_.end() || found->second.inode != inode) {
    // First sight of this segment: read it (a mapping pays a fault per page
    // on first touch, worth it only for a segment that comes again).
    if (found == mappings_.end() && mappings_.size() >= kMaxMappings) mappings_.clear();
    Mapping& seen = mappings_[file_id];
    seen.map.reset();
    seen.inode = inode;
    dir.ReadPrefix(file_id, inode, out, bytes);
    return;
  }
  if (!found->second.map || found->second.map->size() < bytes) {
    UniqueFd fd = dir.Open(file_id, O_RDONLY, inode);
    struct stat info {};
    if (fstat(fd.get(), &info) != 0 || static_cast<std::uint64_t>(info.st_size) < bytes)
      throw Error(kErrIo, "the memory file " + dir.FilePath(file_id) +
                              " is shorter than the message it holds");
    found->second.map.reset();
    found->second.map.emplace(MappedFile::Map(dir.FilePath(file_id), fd.get(),
                                              static_cast<std::size_t>(info.st_size), false));
  }
  std::memcpy(out, found->second.map->data(), bytes);
}

}  // namespace bdmpi
