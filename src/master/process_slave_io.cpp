#include "master/process_slave_io.h"

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
  request_queue_ = MessageQueue::Create(names_.RequestQueue(), 64, kRequestMsgSize,
                                        /*nonblocking=*/false);
  watcher_ = std::make_unique<EventWatcher>(names_.RequestQueue(), event_token_);
  for (int i = 0; i < nslaves; ++i) {
    // A reply and at most one deferred acknowledgement are ever queued.
    go_queues_.push_back(MessageQueue::Create(names_.GoQueue(i), 4, kReplyMsgSize,
                                              /*nonblocking=*/true));
    windows_.push_back(SharedMemory::Create(names_.Window(i), window_size));
  }
  storage_table_ = SharedMemory::Create(
      names_.StorageTable(), static_cast<std::size_t>(nslaves) * sizeof(StorageSlot));
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
  pid_t pid = SpawnSlave(spec);
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd) ThrowSystemError("pidfd_open", errno);
  watcher_->WatchChild(std::move(pidfd), slave);
  return pid;
}

void ProcessSlaveIo::StartWatching() { watcher_->Start(); }

}  // namespace bdmpi
