// The master's real I/O toward its slaves (slave_io.h): POSIX message
// queues, shared-memory windows and storage table named after the job, each
// with its own tag (JobNames, NameTags), forked slave processes watched
// through pidfds, which learn their objects' names from their environment.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/job_names.h"
#include "common/message_queue.h"
#include "common/name_tags.h"
#include "common/shared_memory.h"
#include "master/launch/event_watcher.h"
#include "master/launch/slave_io.h"

namespace bdmpi {

class ProcessSlaveIo : public SlaveIo {
 public:
  // `event_token`: stamped on the watcher's events (RequestMsg::token).
  ProcessSlaveIo(JobNames names, NameTags tags, std::uint32_t event_token)
      : names_(std::move(names)), tags_(std::move(tags)), event_token_(event_token) {}
  ~ProcessSlaveIo() override;

  void Create(int nslaves, std::size_t window_size) override;
  std::string RequestQueueName() const override { return request_name_; }
  std::size_t ReceiveRequests(std::byte* message, std::size_t capacity) override;
  std::optional<std::size_t> ReceiveRequestsUntil(std::byte* message, std::size_t capacity,
                                                  const timespec& deadline) override;
  bool SendReply(int slave, const ReplyMsg& reply) override;
  std::byte* Window(int slave) override { return windows_[slave].data(); }
  const StorageSlot* StorageTable() const override;
  DirectTable Direct() const override { return direct_; }
  pid_t Spawn(int slave, const SpawnSpec& spec) override;
  void ClearSlot(int slave) override;
  void StartWatching() override;

 private:
  JobNames names_;
  NameTags tags_;
  std::uint32_t event_token_;
  std::string request_name_;
  std::string storage_name_;
  MessageQueue request_queue_;
  std::unique_ptr<EventWatcher> watcher_;
  std::vector<MessageQueue> go_queues_;
  std::vector<SharedMemory> windows_;
  SharedMemory storage_table_;  // StorageSlot per slave, then the direct table
  DirectTable direct_;
};

}  // namespace bdmpi
