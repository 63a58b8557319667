#include "master/memory/payload.h"

#include <utility>

namespace bdmpi {

bool MemoryBudget::TryReserve(std::size_t bytes) {
  if (bytes > limit_ - used_) return false;  // no overflow for huge requests
  used_ += bytes;
  if (used_ > peak_) peak_ = used_;
  return true;
}

Payload Payload::InMemory(std::vector<std::byte> data, MemoryBudget* budget) {
  Payload payload;
  payload.bytes_ = data.size();
  payload.memory_ = std::move(data);
  payload.budget_ = budget;
  return payload;
}

void PayloadFile::Uncharge() noexcept {
  if (memory_charge != nullptr) memory_charge->fetch_sub(charged, std::memory_order_relaxed);
  memory_charge = nullptr;
  charged = 0;
}

Payload Payload::OnDisk(std::shared_ptr<OwnedFile> file, std::uint64_t file_id,
                        std::uint64_t bytes, const SpillDir* dir) {
  return InFile(std::make_shared<PayloadFile>(std::move(file), file_id, dir), bytes);
}

Payload Payload::InFile(std::shared_ptr<PayloadFile> file, std::uint64_t bytes) {
  Payload payload;
  payload.bytes_ = bytes;
  payload.file_ = std::move(file);
  return payload;
}

Payload Payload::Placed(std::uint64_t bytes) {
  Payload payload;
  payload.bytes_ = bytes;
  payload.placed_ = true;
  return payload;
}

UniqueFd Payload::Open(int access) const {
  return file_->dir->Open(file_->file_id, access, file_->owned->inode());
}

Payload::Payload(Payload&& other) noexcept
    : bytes_(std::exchange(other.bytes_, 0)),
      placed_(std::exchange(other.placed_, false)),
      memory_(std::move(other.memory_)),
      budget_(std::exchange(other.budget_, nullptr)),
      file_(std::move(other.file_)) {}

Payload& Payload::operator=(Payload&& other) noexcept {
  if (this != &other) {
    Reset();
    bytes_ = std::exchange(other.bytes_, 0);
    placed_ = std::exchange(other.placed_, false);
    memory_ = std::move(other.memory_);
    budget_ = std::exchange(other.budget_, nullptr);
    file_ = std::move(other.file_);
  }
  return *this;
}

Payload::~Payload() { Reset(); }

void Payload::Reset() noexcept {
  if (budget_ != nullptr) budget_->Release(memory_.size());
  budget_ = nullptr;
  memory_.clear();
  memory_.shrink_to_fit();
  file_.reset();
  bytes_ = 0;
  placed_ = false;
}

}  // namespace bdmpi
