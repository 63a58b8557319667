// The node's storage table: one slot per slave in a shared-memory object
// created by the master (JobNames::StorageTable). A slave's allocator
// publishes how many bytes it holds in storage-backed allocations; the
// master reads the slots to keep the node within its memory budget and to
// tell the scheduler whose data is resident. Written by one slave, read by
// the master: relaxed atomics are enough, a stale value only delays a
// decision by one switch. The master in turn counts in each slot what the
// slave's tool interface reports (MPI_T performance variables): each
// counter has one writer.
#pragma once

#include <atomic>
#include <cstdint>

namespace bdmpi {

// MessagePath's values that the master counts: all but the last, direct
// messages, which never reach it and which the rank counts itself
// (common/run_report.h; the master's RecordSend checks that they agree).
inline constexpr int kSlotMessagePaths = 7;

struct StorageSlot {
  // Written by the slave.
  // Bytes of storage-backed memory held: large blocks, and what the
  // small-object heap has committed (src/slave/memory/heap.h).
  std::atomic<std::uint64_t> allocated;
  // Bytes read back eagerly at switch-ins so far (the run report; lazy
  // read-back is page faults, which the master reads from /proc).
  std::atomic<std::uint64_t> read_back;
  // Times the slave wrote its storage-backed memory back, and the bytes it
  // wrote (the tool interface's performance variables, src/slave/tool).
  std::atomic<std::uint64_t> switch_outs;
  std::atomic<std::uint64_t> written_back;
  // Messages the slave wrote straight into another rank's receive
  // (MessagePath::kDirect), and their bytes.
  std::atomic<std::uint64_t> direct_messages;
  std::atomic<std::uint64_t> direct_bytes;
  // Bytes of receive buffers given fresh memory instead of being read back
  // before a message overwrote them (memory::FreshPages).
  std::atomic<std::uint64_t> fresh;
  // Tests in a row that found nothing new, answered by the slave itself
  // or, every kAskMasterEveryLocalTests-th, by the master (slave/request/
  // completion.cpp; the last thread's count under MPI_THREAD_MULTIPLE):
  // the status of a rank that polls says so (master/observe). The last
  // word of the slave's cache line.
  std::atomic<std::uint64_t> local_tests;

  // Written by the master, read by the slave's tool interface: the run
  // report's counters, kept whether or not the job records. The master
  // reaches the table through a const view (it reads the lines above), so
  // these are mutable.
  // Times the slave gave up its running slot.
  mutable std::atomic<std::uint64_t> switches;
  // Point-to-point sends by path (common/run_report.h, MessagePath).
  mutable std::atomic<std::uint64_t> sent_messages[kSlotMessagePaths];
  mutable std::atomic<std::uint64_t> sent_bytes[kSlotMessagePaths];
  mutable std::atomic<std::uint64_t> master_pad[1];
};

// A rank that polls asks the master every so many tests in a row that it
// could answer itself (StorageSlot::local_tests).
inline constexpr std::uint32_t kAskMasterEveryLocalTests = 1024;

static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "the storage table is shared between processes");
static_assert(sizeof(StorageSlot) == 192);

}  // namespace bdmpi
