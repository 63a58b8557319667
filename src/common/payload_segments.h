// Payload segments: the memory files a slave reuses for payloads larger
// than its window (src/slave/p2p/payload_segments.h writes them, the master's
// PayloadStore holds and releases them). Creating a file per message cost
// more than the copy itself (a fresh tmpfs page is faulted, zeroed and
// freed per 4 KiB), so each slave keeps up to kMaxSegments files in the
// node's memory directory and writes into their warm pages again. A
// segment is busy from the send until the master has let go of the message
// (the receiver read it, or it moved to disk): the master then clears the
// segment's word in the slave's flags file, a file of the memory directory
// that both map. No segment free: the payload goes to a spill file, so a
// send never waits.
#pragma once

#include <cstdint>

#include "common/protocol.h"

namespace bdmpi {

// As many as osu_bw's window of sends that wait for a receiver not yet run.
inline constexpr int kMaxSegments = 64;
// One 32-bit word per segment: busy while the segment holds a message;
// the master sets free, or free-emptied when it gave the segment's memory
// back (moved its message to disk, or trimmed the warm pages of a free
// segment for the node budget: the slave reserves it again). The slave
// claims a free segment by compare-and-swap to busy before it writes, and
// the master a free one to trimming before it punches its pages, so that
// neither punches nor writes under the other; a trimming segment is not
// free (the slave skips it), nor is one of a rank that has finished.
inline constexpr std::uint32_t kSegmentFree = 0;
inline constexpr std::uint32_t kSegmentBusy = 1;
inline constexpr std::uint32_t kSegmentFreeEmptied = 2;
inline constexpr std::uint32_t kSegmentTrimming = 3;
inline constexpr std::uint64_t kSegmentFlagsBytes = 4096;
static_assert(kMaxSegments * sizeof(std::uint32_t) <= kSegmentFlagsBytes);

// File ids in the memory directory (the owner's high bits as MakeFileId):
// sequence 0 is the flags file (a slave's spill files count from 1), and
// segments use the top half of the sequence space.
inline constexpr std::uint64_t kSegmentSeqBase = std::uint64_t{1} << 39;
constexpr std::uint64_t SegmentFlagsFileId(std::uint64_t owner) { return MakeFileId(owner, 0); }
constexpr std::uint64_t SegmentFileId(std::uint64_t owner, int index) {
  return MakeFileId(owner, kSegmentSeqBase + static_cast<std::uint64_t>(index));
}
// The segment index a file id names, or -1 for any other file.
constexpr int SegmentIndex(std::uint64_t file_id) {
  std::uint64_t seq = file_id & ((std::uint64_t{1} << 40) - 1);
  if (seq < kSegmentSeqBase || seq >= kSegmentSeqBase + kMaxSegments) return -1;
  return static_cast<int>(seq - kSegmentSeqBase);
}

}  // namespace bdmpi
