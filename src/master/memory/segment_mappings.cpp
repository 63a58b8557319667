#include "master/memory/segment_mappings.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "common/error.h"
#include "common/payload_segments.h"
#include "master/memory/payload.h"

namespace bdmpi {

std::byte* SegmentMappings::Find(const Payload& payload, std::uint64_t bytes) {
  if (!payload.in_memory_file() || payload.dir() == nullptr ||
      SegmentIndex(payload.file_id()) < 0 || bytes == 0)
    return nullptr;
  std::uint64_t inode = payload.file()->inode();
  Mapping& mapping = mappings_[payload.file_id()];
  if (mapping.inode != inode || !mapping.map || mapping.map->size() < bytes) {
    mapping.map.reset();
    mapping.inode = inode;
    UniqueFd fd = payload.Open(O_RDWR);  // checks the inode
    struct stat info {};
    if (fstat(fd.get(), &info) != 0 || static_cast<std::uint64_t>(info.st_size) < bytes)
      throw Error(kErrIo, "the memory file " + payload.file()->path() +
                              " is shorter than the message it holds");
    mapping.map.emplace(MappedFile::Map(payload.file()->path(), fd.get(),
                                        static_cast<std::size_t>(info.st_size), true));
  }
  return mapping.map->data();
}

void SegmentMappings::Forget(std::uint64_t owner) {
  std::erase_if(mappings_, [owner](const auto& entry) { return FileIdOwner(entry.first) == owner; });
}

void SegmentMappings::Trim() {
  if (mappings_.size() > kMaxMappings) mappings_.clear();
}

}  // namespace bdmpi
