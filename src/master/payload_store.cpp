#include "master/payload_store.h"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/log.h"
#include "common/private_dir.h"

namespace bdmpi {

PayloadStore::PayloadStore(std::size_t window_size, std::size_t memory_budget)
    : window_size_(window_size), budget_(memory_budget) {}

Payload PayloadStore::Take(const RequestMsg& request, const std::byte* window,
                           const std::byte* inline_data) {
  switch (request.where) {
    case Where::kNone:
      return Payload();
    case Where::kFile: {
      // Written by the slave: checked now (a file of ours with one link),
      // recognised by its inode from here on.
      UniqueFd file = spill_dir_.Open(request.file_id, O_RDONLY, 0);
      return Adopt(request.file_id, InodeOf(file.get()), request.bytes);
    }
    case Where::kInline:
    case Where::kWindow:
      break;
  }
  const std::byte* data = window;
  if (request.where == Where::kInline) {
    BDMPI_ENFORCE(inline_data != nullptr && request.bytes <= kInlinePayloadMax,
                  "inline payload outside a request message");
    data = inline_data;
  }
  BDMPI_ENFORCE(request.bytes <= window_size_, "window payload larger than window");
  if (budget_.TryReserve(request.bytes)) {
    return Payload::InMemory(std::vector<std::byte>(data, data + request.bytes), &budget_);
  }
  // Over budget: small payloads go to disk too.
  BDMPI_DEBUG("disk", "memory budget full: spilled %llu bytes",
              static_cast<unsigned long long>(request.bytes));
  return Spill(data, request.bytes);
}

void PayloadStore::Read(const RequestMsg& request, const std::byte* window,
                        const std::byte* inline_data, void* out, std::size_t bytes) const {
  switch (request.where) {
    case Where::kNone:
      break;
    case Where::kInline:
      BDMPI_ENFORCE(inline_data != nullptr, "inline payload outside a request message");
      std::memcpy(out, inline_data, bytes);
      break;
    case Where::kWindow:
      BDMPI_ENFORCE(bytes <= window_size_, "window payload larger than window");
      std::memcpy(out, window, bytes);
      break;
    case Where::kFile: {
      OwnedFile file(spill_dir_.FilePath(request.file_id));  // unlinked when read
      spill_dir_.ReadPrefix(request.file_id, 0, out, bytes);
      break;
    }
  }
}

void PayloadStore::Give(const Payload& payload, std::uint64_t capacity, std::byte* window,
                        ReplyMsg& reply,
                        std::vector<std::shared_ptr<OwnedFile>>& held_files) const {
  reply.bytes = payload.bytes();
  std::uint64_t copy = std::min<std::uint64_t>(payload.bytes(), capacity);
  if (copy == 0) {
    reply.where = Where::kNone;
  } else if (payload.on_disk()) {
    reply.where = Where::kFile;
    reply.file_id = payload.file_id();
    reply.file_ino = payload.file()->inode();
    held_files.push_back(payload.file());
  } else {
    BDMPI_ENFORCE(copy <= window_size_, "memory payload larger than window");
    std::memcpy(window, payload.memory().data(), copy);
    reply.where = Where::kWindow;
  }
}

Payload PayloadStore::Store(std::vector<std::byte> data) {
  std::size_t bytes = data.size();
  if (bytes <= window_size_ && budget_.TryReserve(bytes))
    return Payload::InMemory(std::move(data), &budget_);
  return Spill(data.data(), bytes);
}

Payload PayloadStore::Allocate(std::uint64_t bytes, std::optional<MappedFile>& map) {
  if (bytes <= window_size_ && budget_.TryReserve(bytes))
    return Payload::InMemory(std::vector<std::byte>(bytes), &budget_);
  // Filled straight in a spill file, never in master memory.
  std::uint64_t file_id = NewFileId();
  std::uint64_t inode = 0;
  // Reserved: the network thread writes into the mapping.
  UniqueFd file = spill_dir_.CreateReserved(file_id, bytes, &inode);
  map.emplace(MappedFile::Map(spill_dir_.FilePath(file_id), file.get(), bytes, /*writable=*/true));
  return Adopt(file_id, inode, bytes);
}

Payload PayloadStore::Adopt(std::uint64_t file_id, std::uint64_t inode,
                            std::uint64_t bytes) const {
  return Payload::OnDisk(std::make_shared<OwnedFile>(spill_dir_.FilePath(file_id), inode),
                         file_id, bytes);
}

MappedFile PayloadStore::Map(const Payload& payload, std::uint64_t bytes, bool writable) const {
  UniqueFd fd = spill_dir_.Open(payload.file_id(), writable ? O_RDWR : O_RDONLY,
                                payload.file()->inode());
  return MappedFile::Map(spill_dir_.FilePath(payload.file_id()), fd.get(), bytes, writable);
}

Payload PayloadStore::Spill(const void* data, std::uint64_t bytes) {
  std::uint64_t file_id = NewFileId();
  std::uint64_t inode = spill_dir_.Write(file_id, data, bytes);
  return Adopt(file_id, inode, bytes);
}

}  // namespace bdmpi
