// The master's half of the payload hand-over; the slave's half is
// Runtime::StagePayload / FetchPayload (src/slave/runtime.cpp). A slave
// stages a request's payload inline, in its window or in a spill file; the
// master takes it into a Payload it holds (memory while its budget lasts,
// else a spill file of its own) and gives held payloads back in replies
// (the window, or a spill file named by id and inode). It owns the node's
// spill directory and the memory budget every held payload is charged to,
// so it must outlive every Payload it made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "common/protocol.h"
#include "common/spill_dir.h"
#include "master/payload.h"

namespace bdmpi {

class PayloadStore {
 public:
  // `window_size`: every slave's window, the largest payload kept in
  // memory; `memory_budget`: the bytes of payload held in memory at most.
  PayloadStore(std::size_t window_size, std::size_t memory_budget);

  // The node's spill directory, once created (Master::Start).
  void SetSpillDir(SpillDir dir) { spill_dir_ = std::move(dir); }
  const SpillDir& spill_dir() const { return spill_dir_; }
  const MemoryBudget& budget() const { return budget_; }
  std::size_t window_size() const { return window_size_; }

  // The payload of a slave's request, from where the slave staged it:
  // `inline_data` (the request's inline bytes) or `window` (the sender's)
  // are copied; a spill file the slave wrote is checked and adopted.
  Payload Take(const RequestMsg& request, const std::byte* window,
               const std::byte* inline_data);
  // Copies the first `bytes` bytes of a request's payload to `out` without
  // keeping it (a spill file is unlinked once read).
  void Read(const RequestMsg& request, const std::byte* window, const std::byte* inline_data,
            void* out, std::size_t bytes) const;
  // Puts min(payload.bytes(), capacity) bytes of `payload` in `reply`,
  // where the slave's FetchPayload looks: copied into its `window`, or the
  // spill file named, which `held_files` keeps until the slave has read it.
  void Give(const Payload& payload, std::uint64_t capacity, std::byte* window,
            ReplyMsg& reply, std::vector<std::shared_ptr<OwnedFile>>& held_files) const;

  // A payload of master-made data (memory if it fits, else a spill file).
  Payload Store(std::vector<std::byte> data);
  // A zero-filled payload of `bytes` the master fills in place (a result
  // received from other nodes): memory if it fits, else a spill file with
  // its disk reserved, mapped writable into `map`.
  Payload Allocate(std::uint64_t bytes, std::optional<MappedFile>& map);
  // A spill file of this directory written by another part of the master
  // (the network thread), with the inode it recorded.
  Payload Adopt(std::uint64_t file_id, std::uint64_t inode, std::uint64_t bytes) const;
  // Maps the spill file of `payload`, checked to be the file that was
  // written (same inode): a swapped file throws Error(kErrIo).
  MappedFile Map(const Payload& payload, std::uint64_t bytes, bool writable) const;

 private:
  std::uint64_t NewFileId() { return MakeFileId(kMasterFileOwner, ++file_seq_); }
  // `bytes` of `data` in a new spill file of the master's.
  Payload Spill(const void* data, std::uint64_t bytes);

  std::size_t window_size_;
  MemoryBudget budget_;
  SpillDir spill_dir_;
  std::uint64_t file_seq_ = 0;
};

}  // namespace bdmpi
