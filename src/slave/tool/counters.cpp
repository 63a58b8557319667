#include "slave/tool/counters.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <string>

#include "common/job_names.h"
#include "common/rank_wiring.h"
#include "common/unique_fd.h"

namespace bdmpi::tool {
namespace {

// A mapping of its own, apart from the allocator's (which exists only with
// --storage-alloc on): the counters are there either way.
StorageSlot* MapSlot() {
  const char* job = wiring::Find(Wire::kJobId);
  const char* table_name = wiring::Find(Wire::kStorageTable);
  long long slave = wiring::Number(Wire::kSlave, -1);
  long long nslaves = wiring::Number(Wire::kNodeSize, 0);
  if (job == nullptr || table_name == nullptr || slave < 0 || slave >= nslaves) return nullptr;
  JobNames names(job, static_cast<int>(wiring::Number(Wire::kNode, 0)));
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

void CountDirectSend(std::uint64_t bytes) {
  StorageSlot* slot = RankSlot();
  if (slot == nullptr) return;
  // Only this rank writes them (one MPI call at a time), once per direct
  // message: a plain load and store, not a locked add, which cost the
  // sender of a stream of small messages about a twentieth of its time.
  slot->direct_messages.store(slot->direct_messages.load(std::memory_order_relaxed) + 1,
                              std::memory_order_relaxed);
  slot->direct_bytes.store(slot->direct_bytes.load(std::memory_order_relaxed) + bytes,
                           std::memory_order_relaxed);
}

void NoteLocalTests(std::uint32_t in_a_row) {
  if (StorageSlot* slot = RankSlot()) slot->local_tests.store(in_a_row, std::memory_order_relaxed);
}

std::uint64_t Switches() {
  StorageSlot* slot = RankSlot();
  return slot == nullptr ? 0 : slot->switches.load(std::memory_order_relaxed);
}

std::uint64_t ReadBackBytes() {
  StorageSlot* slot = RankSlot();
  return slot == nullptr ? 0 : slot->read_back.load(std::memory_order_relaxed);
}

}  // namespace bdmpi::tool
