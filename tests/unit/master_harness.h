// A master driven in-process: fake slaves are nothing but the requests a
// test feeds it and the replies it collects, so that scheduling, matching,
// collectives and deadlock detection are tested without bdmprun, fork or
// POSIX queues. Tests must follow the protocol as slaves do: a slave sends
// a request only while it runs (after the reply to its previous one).
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "master/launch/slave_io.h"
#include "master/master.h"
#include "test_util.h"

namespace bdmpi::test_util {

// The in-process SlaveIo: go-queues are deques, windows and the storage
// table plain memory; no process is started.
class InProcessSlaveIo : public SlaveIo {
 public:
  void Create(int nslaves, std::size_t window_size) override;
  std::size_t ReceiveRequests(std::byte* message, std::size_t capacity) override;
  bool SendReply(int slave, const ReplyMsg& reply) override;
  std::byte* Window(int slave) override { return windows_[slave].data(); }
  const StorageSlot* StorageTable() const override { return storage_.get(); }
  pid_t Spawn(int slave, const SpawnSpec& spec) override;
  void StartWatching() override {}

  std::deque<ReplyMsg>& replies(int slave) { return replies_[slave]; }
  StorageSlot& storage(int slave) { return storage_[slave]; }

 private:
  std::vector<std::deque<ReplyMsg>> replies_;
  std::vector<std::vector<std::byte>> windows_;
  std::unique_ptr<StorageSlot[]> storage_;
};

class MasterHarness {
 public:
  // A master of one node with `nslaves` fake slaves, `nrunning` of which
  // run at once; `adjust` may change further options.
  explicit MasterHarness(int nslaves, int nrunning = 1,
                         const std::function<void(MasterOptions&)>& adjust = nullptr);
  ~MasterHarness();

  // Slave `index` sends `request` (version, slave index, token and, on
  // MPI_COMM_WORLD, rank filled in), with an inline payload if given.
  void Send(int index, RequestMsg request, std::span<const std::byte> payload = {});
  // Every slave calls MPI_Init.
  void InitAll();
  // MPI_Send of `text` inline on MPI_COMM_WORLD.
  void SendText(int index, int dest, int tag, const std::string& text);
  // MPI_Recv (a PostRecv that wants its reply) into a window of `capacity`.
  void Recv(int index, std::uint64_t id, int source, int tag, std::uint64_t capacity = 64);

  // The next reply queued for `index`, if any.
  std::optional<ReplyMsg> TakeReply(int index);
  // The first `bytes` bytes of `index`'s window, as text.
  std::string WindowText(int index, std::size_t bytes);
  std::byte* Window(int index) { return io_->Window(index); }
  void SetStorageBytes(int index, std::uint64_t bytes);

  Master& master() { return *master_; }
  SlaveState state(int index) const { return master_->slave(index).state; }
  const std::string& job_id() const { return options_.job_id; }

 private:
  ScopedTempDir scratch_;
  MasterOptions options_;
  InProcessSlaveIo* io_ = nullptr;  // owned by master_
  std::unique_ptr<Master> master_;
};

}  // namespace bdmpi::test_util
