#include "master/launch/process_slave_io.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/unique_fd.h"

namespace bdmpi {

ProcessSlaveIo::~ProcessSlaveIo() {
  // The watcher thread first: it writes to the request queue.
  watcher_.reset();
}

void ProcessSlaveIo::Create(int nslaves, std::size_t window_size) {
  // A tag per object (name_tags.h): once one exists, its name is public (ls
  // /dev/mqueue), and a tag shared with the next would let another user
  // create that one first.
  NodeObjectNames objects = NamesOfNodeObjects(names_, tags_, nslaves);
  request_name_ = objects.request_queue;
  request_queue_ = MessageQueue::Create(request_name_, kRequestQueueMessages, kRequestMsgSize,
                                        /*nonblocking=*/false);
  watcher_ = std::make_unique<EventWatcher>(request_name_, event_token_);
  for (int i = 0; i < nslaves; ++i) {
    go_queues_.push_back(MessageQueue::Create(objects.go_queues[static_cast<std::size_t>(i)],
                                              kGoQueueMessages, kReplyMsgSize,
                                              /*nonblocking=*/true));
    windows_.push_back(
        SharedMemory::Create(objects.windows[static_cast<std::size_t>(i)], window_size));
  }
  storage_name_ = objects.storage_table;
  // The table of published receives follows the slots (direct messages,
  // common/direct_table.h), for nodes small enough to count every pair.
  std::size_t bytes = static_cast<std::size_t>(nslaves) * sizeof(StorageSlot);
  if (nslaves <= kDirectMaxRanks)
    bytes = DirectTableOffset(nslaves, sizeof(StorageSlot)) + DirectTable::Bytes(nslaves);
  storage_table_ = SharedMemory::Create(storage_name_, bytes);
  if (nslaves <= kDirectMaxRanks)
    direct_ = DirectTable(storage_table_.data() + DirectTableOffset(nslaves, sizeof(StorageSlot)),
                          nslaves);
}

std::size_t ProcessSlaveIo::ReceiveRequests(std::byte* message, std::size_t capacity) {
  return request_queue_.Receive(message, capacity);
}

std::optional<std::size_t> ProcessSlaveIo::ReceiveRequestsUntil(std::byte* message,
                                                                std::size_t capacity,
                                                                const timespec& deadline) {
  return request_queue_.ReceiveUntil(message, capacity, deadline);
}

bool ProcessSlaveIo::SendReply(int slave, const ReplyMsg& reply) {
  return go_queues_[slave].TrySend(&reply, sizeof reply);
}

const StorageSlot* ProcessSlaveIo::StorageTable() const {
  return reinterpret_cast<const StorageSlot*>(storage_table_.data());
}

pid_t ProcessSlaveIo::Spawn(int slave, const SpawnSpec& spec) {
  SpawnSpec named = spec;
  named.env.push_back(std::string(kEnvRequestQueue) + "=" + request_name_);
  named.env.push_back(std::string(kEnvStorageTable) + "=" + storage_name_);
  named.env.push_back(std::string(kEnvGoQueue) + "=" + go_queues_[slave].name());
  named.env.push_back(std::string(kEnvWindow) + "=" + windows_[slave].name());
  pid_t pid = SpawnSlave(named);
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd) ThrowSystemError("pidfd_open", errno);
  watcher_->WatchChild(std::move(pidfd), slave);
  return pid;
}

void ProcessSlaveIo::ClearSlot(int slave) {
  ReplyMsg stale;
  while (go_queues_[slave].TryReceive(&stale, sizeof stale) > 0) {
  }
  auto* table = reinterpret_cast<StorageSlot*>(storage_table_.data());
  table[slave].allocated.store(0, std::memory_order_relaxed);
  if (!direct_.valid()) return;
  // Its process is gone and no live rank names it: nobody touches these
  // lines now. The new rank publishes its pid and opens its inbox in
  // MPI_Init; what other ranks sent it through the master went with its
  // mailbox, so their counts toward it start again at 0.
  DirectRank& rank = direct_.rank(slave);
  rank.pid.store(0, std::memory_order_relaxed);
  rank.accepting.store(0, std::memory_order_relaxed);
  rank.writers.store(0, std::memory_order_relaxed);
  rank.at_master.store(0, std::memory_order_relaxed);
  rank.unpublished.store(0, std::memory_order_relaxed);
  rank.next_seq.store(0, std::memory_order_relaxed);
  rank.first_live.store(0, std::memory_order_relaxed);
  for (DirectSlot& slot : rank.slots) slot.word.store(0, std::memory_order_relaxed);
  DirectInbox& inbox = direct_.inbox(slave);
  inbox.lock.store(0, std::memory_order_relaxed);
  inbox.open = 0;
  inbox.probing = 0;
  inbox.head = 0;
  inbox.tail = 0;
  // Its messages' pages go back to the system: an inbox a stream filled
  // once holds up to 1 MiB of the node's memory (page-aligned).
  madvise(direct_.inbox_bytes(slave), direct_.inbox_capacity(), MADV_REMOVE);
  for (int sender = 0; sender < direct_.size(); ++sender)
    direct_.pending(sender, slave).store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
}

void ProcessSlaveIo::StartWatching() { watcher_->Start(); }

}  // namespace bdmpi
