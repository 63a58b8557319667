#include "slave/tool/counters.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <cstdlib>
#include <string>

#include "common/job_names.h"
#include "common/unique_fd.h"

namespace bdmpi::tool {
namespace {

long EnvLong(const char* name, long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  return *end == '\0' ? value : fallback;
}

// A mapping of its own, apart from the allocator's (which exists only with
// --storage-alloc on): the counters are there either way.
StorageSlot* MapSlot() {
  const char* job = std::getenv(kEnvJobId);
  const char* table_name = std::getenv(kEnvStorageTable);
  long slave = EnvLong(kEnvSlave, -1);
  long nslaves = EnvLong(kEnvNodeSize, 0);
  if (job == nullptr || table_name == nullptr || slave < 0 || slave >= nslaves) return nullptr;
  JobNames names(job, static_cast<int>(EnvLong(kEnvNode, 0)));
  if (!JobNames::IsTagged(table_name, names.StorageTable(""))) return nullptr;
  UniqueFd shm(shm_open(table_name, O_RDWR | O_CLOEXEC, 0));
  if (!shm) return nullptr;
  std::size_t bytes = static_cast<std::size_t>(nslaves) * sizeof(StorageSlot);
  void* table = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm.get(), 0);
  if (table == MAP_FAILED) return nullptr;
  return static_cast<StorageSlot*>(table) + slave;
}

}  // namespace

StorageSlot* RankSlot() {
  static StorageSlot* const slot = MapSlot();
  return slot;
}

void CountSwitchOut(std::uint64_t bytes) {
  StorageSlot* slot = RankSlot();
  if (slot == nullptr) return;
  slot->switch_outs.fetch_add(1, std::memory_order_relaxed);
  slot->written_back.fetch_add(bytes, std::memory_order_relaxed);
}

}  // namespace bdmpi::tool
