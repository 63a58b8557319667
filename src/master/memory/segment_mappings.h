// The master's mappings of the slaves' payload segments
// (common/payload_segments.h), kept from one collective to the next. A
// slave reuses its segments for every large payload, so a reduction's
// contributions arrive in the same few files again and again; mapping each
// anew (as PayloadStore::Map does) costs an open, an mmap and a page fault
// per 4 KiB page on first touch, about as much as the reduction itself at
// 1-4 MiB. The slaves read segments the same way (SegmentReader).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "common/file_io.h"

namespace bdmpi {

class Payload;

class SegmentMappings {
 public:
  // The first `bytes` of `payload`, mapped writable, if it lies in a slave's
  // payload segment in memory; null otherwise (a file made for one message
  // or a spill file: map it for this use only). The pointer stays valid
  // until Trim. A segment only grows and is never truncated, so a
  // kept mapping never reaches past the end of its file; a segment made
  // anew (another inode) is mapped anew.
  std::byte* Find(const Payload& payload, std::uint64_t bytes);

  // Drops every mapping once there are more than a few hundred (address
  // space, not memory: the pages belong to the segments).
  void Trim();

  // Drops the mappings of slave `owner`'s segments (it has exited: they
  // go, and a mapping would keep the file's inode).
  void Forget(std::uint64_t owner);

  std::size_t size() const { return mappings_.size(); }

 private:
  struct Mapping {
    std::uint64_t inode = 0;
    std::optional<MappedFile> map;
  };
  static constexpr std::size_t kMaxMappings = 256;
  std::unordered_map<std::uint64_t, Mapping> mappings_;  // by file id
};

}  // namespace bdmpi
