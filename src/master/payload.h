// Data the master buffers for its slaves: small payloads in master memory
// (charged to a budget), large ones in spill files on the node's disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/file_io.h"

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

class Payload {
 public:
  Payload() = default;
  // In memory, charged to `budget` (which must have reserved `bytes`).
  static Payload InMemory(std::vector<std::byte> data, MemoryBudget* budget);
  // On disk; the file is unlinked when the last holder lets go.
  static Payload OnDisk(std::shared_ptr<OwnedFile> file, std::uint64_t file_id,
                        std::uint64_t bytes);

  Payload(Payload&& other) noexcept;
  Payload& operator=(Payload&& other) noexcept;
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;
  ~Payload();

  std::uint64_t bytes() const { return bytes_; }
  bool on_disk() const { return file_ != nullptr; }
  const std::vector<std::byte>& memory() const { return memory_; }
  std::vector<std::byte>& memory() { return memory_; }
  const std::shared_ptr<OwnedFile>& file() const { return file_; }
  std::uint64_t file_id() const { return file_id_; }

 private:
  void Reset() noexcept;
  std::uint64_t bytes_ = 0;
  std::vector<std::byte> memory_;
  MemoryBudget* budget_ = nullptr;
  std::shared_ptr<OwnedFile> file_;
  std::uint64_t file_id_ = 0;
};

}  // namespace bdmpi
