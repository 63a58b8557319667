#include "common/message_queue.h"

#include <fcntl.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/error.h"

namespace bdmpi {
namespace {

// Turns mq_open's errno into advice that names the limit to raise.
[[noreturn]] void ThrowOpenError(const std::string& name, int err,
                                 long max_messages, long message_size) {
  std::string advice;
  switch (err) {
    case EMFILE: {
      rlimit mq_limit{};
      getrlimit(RLIMIT_MSGQUEUE, &mq_limit);
      advice =
          "the per-user limit on message-queue bytes (RLIMIT_MSGQUEUE, now " +
          std::to_string(mq_limit.rlim_cur) +
          "; raise with `ulimit -q`) or on open files (`ulimit -n`) is "
          "reached";
      break;
    }
    case ENOSPC: {
      long now = ReadMqueueLimit("queues_max");
      advice = "the system-wide number of message queues is reached: raise "
               "/proc/sys/fs/mqueue/queues_max (now " +
               std::to_string(now) + "), e.g. `echo " +
               std::to_string(SuggestedQueuesMax(now)) +
               " > /proc/sys/fs/mqueue/queues_max` as root";
      break;
    }
    case EINVAL:
      advice = "a queue of " + std::to_string(max_messages) + " messages of " +
               std::to_string(message_size) +
               " bytes exceeds /proc/sys/fs/mqueue/msg_max (" +
               std::to_string(ReadMqueueLimit("msg_max")) +
               ") or msgsize_max (" +
               std::to_string(ReadMqueueLimit("msgsize_max")) + ")";
      break;
    case ENFILE:
      advice = "the system-wide limit on open files is reached "
               "(/proc/sys/fs/file-max)";
      break;
    default:
      break;
  }
  if (advice.empty()) ThrowSystemError("mq_open " + name, err);
  throw Error(kErrNoSpace, "mq_open " + name + ": " + advice);
}

}  // namespace

long SuggestedQueuesMax(long now) {
  // Doubling always raises it; 1024 is enough for a few jobs of hundreds
  // of ranks per node (a queue per rank and one per master).
  return now < 512 ? 1024 : 2 * now;
}

long ReadMqueueLimit(const char* name) {
  std::string path = std::string("/proc/sys/fs/mqueue/") + name;
  FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return -1;
  long value = -1;
  if (std::fscanf(file, "%ld", &value) != 1) value = -1;
  std::fclose(file);
  return value;
}

MessageQueue MessageQueue::Create(const std::string& name, long max_messages,
                                  long message_size, bool nonblocking) {
  long msg_max = ReadMqueueLimit("msg_max");
  if (msg_max > 0 && max_messages > msg_max) max_messages = msg_max;
  mq_attr attr{};
  attr.mq_maxmsg = max_messages;
  attr.mq_msgsize = message_size;
  int flags = O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC;
  if (nonblocking) flags |= O_NONBLOCK;
  MessageQueue queue;
  queue.mq_ = mq_open(name.c_str(), flags, 0600, &attr);
  if (!queue.valid()) ThrowOpenError(name, errno, max_messages, message_size);
  queue.name_ = name;
  queue.owner_ = true;
  queue.max_messages_ = max_messages;
  queue.staging_.resize(static_cast<std::size_t>(message_size));
  return queue;
}

MessageQueue MessageQueue::Open(const std::string& name, int flags) {
  MessageQueue queue;
  queue.mq_ = mq_open(name.c_str(), flags | O_CLOEXEC);
  if (!queue.valid()) ThrowSystemError("mq_open " + name, errno);
  queue.name_ = name;
  mq_attr attr{};
  if (mq_getattr(queue.mq_, &attr) != 0) ThrowSystemError("mq_getattr " + name, errno);
  queue.max_messages_ = attr.mq_maxmsg;
  queue.staging_.resize(static_cast<std::size_t>(attr.mq_msgsize));
  return queue;
}

MessageQueue::MessageQueue(MessageQueue&& other) noexcept
    : mq_(std::exchange(other.mq_, static_cast<mqd_t>(-1))),
      name_(std::move(other.name_)),
      owner_(std::exchange(other.owner_, false)),
      max_messages_(other.max_messages_),
      staging_(std::move(other.staging_)) {}

MessageQueue& MessageQueue::operator=(MessageQueue&& other) noexcept {
  if (this != &other) {
    Reset();
    mq_ = std::exchange(other.mq_, static_cast<mqd_t>(-1));
    name_ = std::move(other.name_);
    owner_ = std::exchange(other.owner_, false);
    max_messages_ = other.max_messages_;
    staging_ = std::move(other.staging_);
  }
  return *this;
}

MessageQueue::~MessageQueue() { Reset(); }

void MessageQueue::Reset() noexcept {
  if (valid()) mq_close(mq_);
  if (owner_) mq_unlink(name_.c_str());
  mq_ = static_cast<mqd_t>(-1);
  owner_ = false;
}

void MessageQueue::Send(const void* message, std::size_t size) {
  while (mq_send(mq_, static_cast<const char*>(message), size, 0) != 0) {
    if (errno != EINTR) ThrowSystemError("mq_send " + name_, errno);
  }
}

bool MessageQueue::TrySend(const void* message, std::size_t size) {
  while (mq_send(mq_, static_cast<const char*>(message), size, 0) != 0) {
    if (errno == EAGAIN) return false;
    if (errno != EINTR) ThrowSystemError("mq_send " + name_, errno);
  }
  return true;
}

std::size_t MessageQueue::Receive(void* buffer, std::size_t capacity) {
  return *ReceiveInto(buffer, capacity, /*wait=*/true);
}

std::size_t MessageQueue::TryReceive(void* buffer, std::size_t capacity) {
  return ReceiveInto(buffer, capacity, /*wait=*/false).value_or(0);
}

std::optional<std::size_t> MessageQueue::ReceiveUntil(void* buffer, std::size_t capacity,
                                                      const timespec& deadline) {
  return ReceiveInto(buffer, capacity, /*wait=*/true, &deadline);
}

std::optional<std::size_t> MessageQueue::ReceiveInto(void* buffer, std::size_t capacity,
                                      bool wait, const timespec* deadline) {
  for (;;) {
    ssize_t n = deadline != nullptr
                    ? mq_timedreceive(mq_, staging_.data(), staging_.size(), nullptr, deadline)
                    : mq_receive(mq_, staging_.data(), staging_.size(), nullptr);
    if (n >= 0) {
      if (static_cast<std::size_t>(n) > capacity)
        throw Error(kErrIntern, "message of " + std::to_string(n) +
                                    " bytes on " + name_ + " exceeds " +
                                    std::to_string(capacity));
      std::memcpy(buffer, staging_.data(), static_cast<std::size_t>(n));
      return static_cast<std::size_t>(n);
    }
    if (errno == EAGAIN && !wait) return std::nullopt;
    if (errno == ETIMEDOUT && deadline != nullptr) return std::nullopt;
    if (errno != EINTR) ThrowSystemError("mq_receive " + name_, errno);
  }
}

}  // namespace bdmpi
