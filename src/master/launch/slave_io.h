// The master's I/O toward the slaves of its node: the request queue they
// all write to, each slave's go-queue and window, the storage table, and
// starting their processes. ProcessSlaveIo is the real one (POSIX queues,
// shared memory, fork/exec); the unit tests drive a master with an
// in-process one (tests/unit/master_harness.h), with no process started.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <optional>
#include <string>

#include "common/direct_table.h"
#include "common/protocol.h"
#include "common/storage_table.h"
#include "master/launch/spawn.h"

namespace bdmpi {

class SlaveIo {
 public:
  virtual ~SlaveIo() = default;

  // Creates the request queue and, for each of `nslaves` slaves, its
  // go-queue, its window of `window_size` bytes and its storage slot.
  virtual void Create(int nslaves, std::size_t window_size) = 0;
  // The request queue's name, through which the network thread wakes the
  // event loop (nnodes > 1); "" where there is none.
  virtual std::string RequestQueueName() const { return {}; }
  // Waits for the next request queue message; returns its size.
  virtual std::size_t ReceiveRequests(std::byte* message, std::size_t capacity) = 0;
  // The same, but nothing once CLOCK_REALTIME passes `deadline` first.
  virtual std::optional<std::size_t> ReceiveRequestsUntil(std::byte* message,
                                                          std::size_t capacity,
                                                          const timespec& deadline) {
    (void)deadline;
    return ReceiveRequests(message, capacity);
  }
  // Queues `reply` (or a Release) on `slave`'s go-queue; false when full.
  virtual bool SendReply(int slave, const ReplyMsg& reply) = 0;
  virtual std::byte* Window(int slave) = 0;
  // nslaves slots, written by the slaves (common/storage_table.h).
  virtual const StorageSlot* StorageTable() const = 0;
  // The node's published receives (common/direct_table.h), in the same
  // object; invalid without one (the direct path is then off).
  virtual DirectTable Direct() const { return {}; }
  // Starts slave `slave`'s process; its exit reaches the request queue as
  // a kEvent once watching has started. Returns its pid (0: no process).
  virtual pid_t Spawn(int slave, const SpawnSpec& spec) = 0;
  // Slave `slave` has exited and its slot takes a new process: the replies
  // it never read and its lines of the shared tables go (a spawn reusing
  // the slot, master/launch/spawn_ranks.cpp).
  virtual void ClearSlot(int /*slave*/) {}
  // Starts reporting slave exits and the master's signals (after Spawn).
  virtual void StartWatching() = 0;
};

}  // namespace bdmpi
