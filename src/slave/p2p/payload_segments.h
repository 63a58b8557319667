// The slave's payload segments (common/payload_segments.h): reusable memory
// files for payloads larger than the window, mapped once and written
// again and again, so that a large send costs one copy into warm pages.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "common/file_io.h"
#include "common/payload_segments.h"
#include "common/spill_dir.h"
#include "common/unique_fd.h"

namespace bdmpi {

class PayloadSegments {
 public:
  PayloadSegments() = default;
  // The segments of slave `owner` in `dir`, whose flags file the master made.
  PayloadSegments(const SpillDir* dir, std::uint64_t owner);

  // Copies `bytes` of `data` into a free segment and returns its file id,
  // or 0 when none is free (all busy, or the memory is short: a full tmpfs).
  std::uint64_t Write(const void* data, std::uint64_t bytes);

 private:
  struct Segment {
    UniqueFd fd;
    std::optional<MappedFile> map;
    std::uint64_t capacity = 0;
    // Written since it was mapped or emptied by the master: its next write
    // goes through the mapping, else through the kernel (Write).
    bool mapped_here = false;
  };
  // Makes segment `index` hold at least `bytes` (creating or growing it).
  bool Reserve(int index, std::uint64_t bytes);
  std::uint32_t* Flag(int index) const {
    return reinterpret_cast<std::uint32_t*>(flags_->data()) + index;
  }

  const SpillDir* dir_ = nullptr;
  std::uint64_t owner_ = 0;
  std::optional<MappedFile> flags_;
  Segment segments_[kMaxSegments];
};

// Reads other slaves' payload segments through mappings kept from one
// message to the next: a mapping's page tables are filled once, not per
// message (a first touch of a 4 MiB mapping costs about as much as the
// copy), and only for a segment read a second time (the first read is a
// pread).
class SegmentReader {
 public:
  // Copies `bytes` of memory file `file_id` of `dir`, which must be the file
  // with `inode` (the master checked it), to `out`.
  void Read(const SpillDir& dir, std::uint64_t file_id, std::uint64_t inode, void* out,
            std::uint64_t bytes);

 private:
  struct Mapping {
    std::uint64_t inode = 0;
    std::optional<MappedFile> map;  // from the second read on
  };
  // The full pools of 4 senders (a window of 64 from one sender fits).
  static constexpr std::size_t kMaxMappings = 256;
  std::unordered_map<std::uint64_t, Mapping> mappings_;  // by file id
};

}  // namespace bdmpi
