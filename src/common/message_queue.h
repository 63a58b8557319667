// RAII POSIX message queue. The creator unlinks the name when it goes away;
// calls are retried on EINTR; hitting a system limit gives an error that
// names the limit and how to raise it.
#pragma once

#include <mqueue.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bdmpi {

class MessageQueue {
 public:
  MessageQueue() = default;
  // Creates `name` exclusively with mode 0600. max_messages is capped at the
  // system's /proc/sys/fs/mqueue/msg_max.
  static MessageQueue Create(const std::string& name, long max_messages,
                             long message_size, bool nonblocking);
  // Opens an existing queue; flags is O_RDONLY or O_WRONLY (| O_NONBLOCK).
  static MessageQueue Open(const std::string& name, int flags);

  MessageQueue(MessageQueue&& other) noexcept;
  MessageQueue& operator=(MessageQueue&& other) noexcept;
  MessageQueue(const MessageQueue&) = delete;
  MessageQueue& operator=(const MessageQueue&) = delete;
  ~MessageQueue();

  // Blocks while the queue is full (unless opened non-blocking).
  void Send(const void* message, std::size_t size);
  // Non-blocking queues only: false when the queue is full.
  bool TrySend(const void* message, std::size_t size);
  // Blocks until a message arrives; returns its size. Messages longer than
  // `capacity` are an error.
  std::size_t Receive(void* buffer, std::size_t capacity);
  // Non-blocking queues only: 0 when the queue is empty.
  std::size_t TryReceive(void* buffer, std::size_t capacity);
  // Blocking queues: like Receive, but nothing once CLOCK_REALTIME passes
  // `deadline` (mq_timedreceive's clock) with the queue still empty.
  std::optional<std::size_t> ReceiveUntil(void* buffer, std::size_t capacity,
                                          const timespec& deadline);

  bool valid() const { return mq_ != static_cast<mqd_t>(-1); }
  // Linux message queue descriptors are file descriptors (pollable).
  int fd() const { return static_cast<int>(mq_); }
  const std::string& name() const { return name_; }
  long max_messages() const { return max_messages_; }

 private:
  void Reset() noexcept;
  // Waits unless `wait` is false, until `deadline` if not null; nothing
  // when it did not wait or the deadline passed.
  std::optional<std::size_t> ReceiveInto(void* buffer, std::size_t capacity, bool wait,
                                         const timespec* deadline = nullptr);
  mqd_t mq_ = static_cast<mqd_t>(-1);
  std::string name_;
  bool owner_ = false;
  long max_messages_ = 0;
  // mq_receive wants room for the queue's largest message.
  std::vector<char> staging_;
};

// Reads /proc/sys/fs/mqueue/<name> (msg_max, msgsize_max, queues_max);
// -1 if unreadable.
long ReadMqueueLimit(const char* name);

// The queues_max to advise when it is reached: always above `now`.
long SuggestedQueuesMax(long now);

}  // namespace bdmpi
