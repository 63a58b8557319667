// Data the master buffers for its slaves: small payloads in master memory
// (charged to a budget), large ones in files: memory files (tmpfs) while
// the node's memory budget has room, else spill files on the node's disk.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/file_io.h"
#include "common/spill_dir.h"
#include "master/p2p/lent_block.h"

namespace bdmpi {

// Bytes of payload the master may hold in memory; beyond it, even small
// payloads go to disk so that a burst of messages cannot exhaust the node.
class MemoryBudget {
 public:
  explicit MemoryBudget(std::size_t limit) : limit_(limit) {}
  bool TryReserve(std::size_t bytes);
  void Release(std::size_t bytes) { used_ -= bytes; }
  std::size_t used() const { return used_; }
  std::size_t peak() const { return peak_; }

 private:
  std::size_t limit_;
  std::size_t used_ = 0;
  std::size_t peak_ = 0;
};

// The file of a file-backed payload, shared by the payload's holders (a
// message moved between queues keeps it). A memory file's bytes are
// counted in `memory_charge` while it lives; the store may move it to a
// spill file (Retarget) when nobody but the payload holds its file.
struct PayloadFile {
  PayloadFile(std::shared_ptr<OwnedFile> file, std::uint64_t id, const SpillDir* in_dir)
      : owned(std::move(file)), file_id(id), dir(in_dir) {}
  PayloadFile(const PayloadFile&) = delete;
  PayloadFile& operator=(const PayloadFile&) = delete;
  ~PayloadFile() { Uncharge(); }
  void Uncharge() noexcept;

  std::shared_ptr<OwnedFile> owned;  // what replies hand out (held_files)
  std::uint64_t file_id;
  // Bytes of the file before the payload: a lent block's copy kept for its
  // sender starts where the block starts in its page (Materialize).
  std::uint64_t lead = 0;
  const SpillDir* dir;  // the directory of file_id; null in tests
  std::atomic<std::uint64_t>* memory_charge = nullptr;  // set for memory files
  std::uint64_t charged = 0;
  // Read by another thread (the network's): never retargeted.
  bool pinned = false;
  // Set while the bytes are still in their sender's memory (owned is null
  // then): PayloadStore::Materialize copies them into a file.
  std::shared_ptr<LentBlock> lent;
};

class Payload {
 public:
  Payload() = default;
  // In memory, charged to `budget` (which must have reserved `bytes`).
  static Payload InMemory(std::vector<std::byte> data, MemoryBudget* budget);
  // In a file; the file is unlinked when the last holder lets go.
  static Payload OnDisk(std::shared_ptr<OwnedFile> file, std::uint64_t file_id,
                        std::uint64_t bytes, const SpillDir* dir = nullptr);
  // In a file described by `file` (PayloadStore's memory files).
  static Payload InFile(std::shared_ptr<PayloadFile> file, std::uint64_t bytes);
  // Nowhere: the sender wrote the `bytes` straight into the receive buffer
  // (master/p2p/placed.cpp).
  static Payload Placed(std::uint64_t bytes);

  Payload(Payload&& other) noexcept;
  Payload& operator=(Payload&& other) noexcept;
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;
  ~Payload();

  std::uint64_t bytes() const { return bytes_; }
  // In a file (spill or memory file), not in master memory.
  bool on_disk() const { return file_ != nullptr; }
  // Still in its sender's memory (Where::kLent).
  bool lent() const { return file_ != nullptr && file_->lent != nullptr; }
  // In a memory file (still: the store may move it to disk).
  bool in_memory_file() const { return file_ != nullptr && file_->memory_charge != nullptr; }
  bool placed() const { return placed_; }
  const std::vector<std::byte>& memory() const { return memory_; }
  std::vector<std::byte>& memory() { return memory_; }
  // Null, 0 and null for a payload in master memory.
  const std::shared_ptr<OwnedFile>& file() const { return file_ ? file_->owned : kNoFile; }
  std::uint64_t file_id() const { return file_ ? file_->file_id : 0; }
  const SpillDir* dir() const { return file_ ? file_->dir : nullptr; }
  const std::shared_ptr<PayloadFile>& shared_file() const { return file_; }
  // Opens the file, checked to be the one that was written (same inode).
  UniqueFd Open(int access) const;
  // Hands the payload to another thread: from now on it stays where it is.
  void Pin() const { if (file_) file_->pinned = true; }

 private:
  void Reset() noexcept;
  static inline const std::shared_ptr<OwnedFile> kNoFile;
  std::uint64_t bytes_ = 0;
  bool placed_ = false;
  std::vector<std::byte> memory_;
  MemoryBudget* budget_ = nullptr;
  std::shared_ptr<PayloadFile> file_;
};

}  // namespace bdmpi
