// The node's storage table: one slot per slave in a shared-memory object
// created by the master (JobNames::StorageTable). A slave's allocator
// publishes how many bytes it holds in storage-backed allocations; the
// master reads the slots to keep the node within its memory budget and to
// tell the scheduler whose data is resident. Written by one slave, read by
// the master: relaxed atomics are enough, a stale value only delays a
// decision by one switch.
#pragma once

#include <atomic>
#include <cstdint>

namespace bdmpi {

struct StorageSlot {
  // Bytes of storage-backed memory held: large blocks, and what the
  // small-object heap has committed (src/slave/memory/heap.h).
  std::atomic<std::uint64_t> allocated;
  // Bytes read back eagerly at switch-ins so far (the run report; lazy
  // read-back is page faults, which the master reads from /proc).
  std::atomic<std::uint64_t> read_back;
  std::atomic<std::uint64_t> pad[6];     // one cache line per slave
};

static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "the storage table is shared between processes");
static_assert(sizeof(StorageSlot) == 64);

}  // namespace bdmpi
