// Large payloads in memory: the node's memory directory (tmpfs) where
// slaves write payloads larger than their window, and the rule that keeps
// those memory files within the node budget that storage-backed data uses
// (memory.cpp): a memory file counts like resident storage-backed bytes, and
// so do the warm pages of the slaves' free payload segments; those are
// given back first when a new one does not fit, which then goes to disk at
// once, and held ones go to disk before any slave is switched out.
#include "master/memory/memory.h"

#include <fcntl.h>

#include "common/error.h"
#include "common/file_io.h"
#include "common/log.h"
#include "common/private_dir.h"

namespace bdmpi {

void NodeMemory::CreateMemoryDirectory(const std::string& path) {
  if (path.empty()) return;
  try {
    payloads_.SetMemoryDir(SpillDir(CreatePrivateDir(path), path));
    payloads_.CreateSegmentFlags(options_.nslaves);
  } catch (const Error& error) {
    // Still correct, only slower: every large payload goes to a spill file.
    if (payloads_.has_memory_dir()) RemoveTree(path);
    payloads_.SetMemoryDir(SpillDir());
    BDMPI_INFO("disk", "no memory directory (%s): large messages go through spill files",
               error.what());
    return;
  }
  payloads_.SetMemoryRoom([this](std::uint64_t bytes) { return MemoryRoomForPayloads(bytes); });
}

bool NodeMemory::MemoryRoomForPayloads(std::uint64_t bytes) {
  // As MakeRoom counts: a releasing slave by what it has yet to write.
  std::uint64_t used = PayloadMemory() + bytes + UnpageableBytes(false);
  for (const Slave& slave : master_.slaves()) used += ResidentStorageBytes(slave);
  // Idle warm pages are worth less than a message kept off the disk.
  if (used > node_memory_) used -= TrimIdleSegments(used - node_memory_);
  return used <= node_memory_;
}

std::uint64_t NodeMemory::TrimIdleSegments(std::uint64_t wanted) {
  std::uint64_t trimmed = payloads_.TrimIdleSegments(wanted);
  if (trimmed > 0)
    BDMPI_DEBUG("disk", "node memory short: gave back %llu bytes of idle payload segments",
                static_cast<unsigned long long>(trimmed));
  return trimmed;
}

std::uint64_t NodeMemory::MovePayloadsToDisk(std::uint64_t wanted) {
  std::uint64_t moved = payloads_.MoveMemoryFilesToDisk(wanted);
  if (moved > 0)
    BDMPI_DEBUG("disk", "node memory short: moved %llu bytes of held payloads to disk",
                static_cast<unsigned long long>(moved));
  return moved;
}

}  // namespace bdmpi
