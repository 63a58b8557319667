#include "master/memory/payload_store.h"

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/log.h"
#include "common/payload_segments.h"
#include "common/private_dir.h"

namespace bdmpi {
namespace {

// Gives a payload segment back to its slave when the last holder of the
// message lets go.
struct SegmentRelease {
  SlaveSegments* segments;
  std::uint64_t file_id;
  std::uint64_t resident;  // its allocated pages when taken
  bool emptied = false;    // punched: it moved to disk
  void operator()(OwnedFile* file) const {
    delete file;
    segments->Released(file_id, resident, emptied);
  }
};

// The bytes of memory file `fd` holds (pages allocated, not its size).
std::uint64_t AllocatedBytes(int fd) {
  struct stat info {};
  return fstat(fd, &info) == 0 ? static_cast<std::uint64_t>(info.st_blocks) * 512 : 0;
}

}  // namespace

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
    case Where::kMemoryFile:
      return TakeMemoryFile(request);
    case Where::kPlaceGrant:
    case Where::kPlaced:
      BDMPI_ENFORCE(false, "a placed message has no payload to take");
      break;
    case Where::kLent:
      throw Error(kErrIntern, "a lent block taken as a staged payload");
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
                        const std::byte* inline_data, void* out, std::size_t bytes) {
  switch (request.where) {
    case Where::kNone:
      break;
    case Where::kPlaceGrant:
    case Where::kPlaced:
      BDMPI_ENFORCE(false, "a placed message has no payload to read");
      break;
    case Where::kInline:
      BDMPI_ENFORCE(inline_data != nullptr, "inline payload outside a request message");
      std::memcpy(out, inline_data, bytes);
      break;
    case Where::kWindow:
      BDMPI_ENFORCE(bytes <= window_size_, "window payload larger than window");
      std::memcpy(out, window, bytes);
      break;
    case Where::kLent:
      throw Error(kErrIntern, "a lent block where a list was expected");
    case Where::kFile:
    case Where::kMemoryFile: {
      const SpillDir& dir = SourceDir(request.where);
      // Unlinked (or the segment given back) when read.
      std::shared_ptr<OwnedFile> file;
      if (request.where == Where::kFile) {
        file = std::make_shared<OwnedFile>(dir.FilePath(request.file_id));
      } else {
        UniqueFd fd = dir.Open(request.file_id, O_RDONLY, 0);
        file = OwnMemoryFile(request.file_id, 0, AllocatedBytes(fd.get()));
      }
      dir.ReadPrefix(request.file_id, 0, out, bytes);
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
  } else if (payload.placed()) {
    reply.where = Where::kPlaced;  // the sender wrote it into the receive buffer
  } else if (payload.on_disk()) {
    reply.where = payload.in_memory_file() ? Where::kMemoryFile : Where::kFile;
    reply.file_id = payload.file_id();
    reply.file_ino = payload.file()->inode();
    reply.lead = static_cast<std::uint16_t>(payload.shared_file()->lead);
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
  if (bytes > window_size_ && has_memory_dir() && memory_room_(bytes)) {
    std::uint64_t file_id = NewFileId();
    try {
      std::uint64_t inode = memory_dir_.Write(file_id, data.data(), bytes);
      return AdoptMemoryFile(file_id, inode, bytes);
    } catch (const Error& error) {
      // A full tmpfs: to disk (Write removed what it had written).
      BDMPI_DEBUG("disk", "memory file: %s; using a spill file", error.what());
    }
  }
  return Spill(data.data(), bytes);
}

Payload PayloadStore::Allocate(std::uint64_t bytes, std::optional<MappedFile>& map) {
  if (bytes <= window_size_ && budget_.TryReserve(bytes))
    return Payload::InMemory(std::vector<std::byte>(bytes), &budget_);
  // Filled straight in a file, never in master memory: a memory file while
  // the node has room (the network thread writes into the mapping, so it
  // is pinned where it is), else a spill file.
  bool in_memory = has_memory_dir() && memory_room_(bytes);
  const SpillDir& dir = in_memory ? memory_dir_ : spill_dir_;
  std::uint64_t file_id = NewFileId();
  std::uint64_t inode = 0;
  // Reserved: a full disk or tmpfs is an error here, not a SIGBUS later.
  UniqueFd file = dir.CreateReserved(file_id, bytes, &inode);
  map.emplace(MappedFile::Map(dir.FilePath(file_id), file.get(), bytes, /*writable=*/true));
  Payload payload = in_memory ? AdoptMemoryFile(file_id, inode, bytes) : Adopt(file_id, inode, bytes);
  payload.Pin();
  return payload;
}

Payload PayloadStore::Adopt(std::uint64_t file_id, std::uint64_t inode,
                            std::uint64_t bytes) const {
  return Payload::OnDisk(std::make_shared<OwnedFile>(spill_dir_.FilePath(file_id), inode),
                         file_id, bytes, &spill_dir_);
}

Payload PayloadStore::TakeMemoryFile(const RequestMsg& request) {
  BDMPI_ENFORCE(has_memory_dir(), "a memory-file payload without a memory directory");
  // Checked now (a file of ours with one link), recognised by its inode.
  UniqueFd file = memory_dir_.Open(request.file_id, O_RDONLY, 0);
  std::uint64_t inode = InodeOf(file.get());
  struct stat info {};
  if (fstat(file.get(), &info) != 0 || static_cast<std::uint64_t>(info.st_size) < request.bytes)
    throw Error(kErrIo, "the memory file " + memory_dir_.FilePath(request.file_id) +
                            " is shorter than the message it holds");
  // Its pages, not its size: a segment reserves more than its message.
  return AdoptIncoming(request.file_id, inode, request.bytes,
                       static_cast<std::uint64_t>(info.st_blocks) * 512);
}

Payload PayloadStore::AdoptIncoming(std::uint64_t file_id, std::uint64_t inode,
                                    std::uint64_t bytes, std::uint64_t resident) {
  Payload payload = AdoptMemoryFile(file_id, inode, bytes, resident);
  if (!memory_room_(0)) {
    // The node's memory is short (counting this one): to disk right away.
    BDMPI_DEBUG("disk", "node memory short: moved a %llu-byte payload to disk",
                static_cast<unsigned long long>(bytes));
    MoveToDisk(*payload.shared_file());
  }
  return payload;
}

Payload PayloadStore::AdoptMemoryFile(std::uint64_t file_id, std::uint64_t inode,
                                      std::uint64_t bytes, std::uint64_t resident) {
  // A slave's segment may hold more pages than this message (an earlier,
  // larger one): all of them count.
  std::uint64_t charge = std::max(bytes, resident);
  auto file = std::make_shared<PayloadFile>(OwnMemoryFile(file_id, inode, charge), file_id,
                                            &memory_dir_);
  file->memory_charge = &memory_file_bytes_;
  file->charged = charge;
  memory_file_bytes_.fetch_add(charge, std::memory_order_relaxed);
  // Forget the ones gone, so that the list stays as long as what is held.
  if (memory_files_.size() >= 64 && memory_files_.size() % 64 == 0)
    std::erase_if(memory_files_, [](const auto& held) { return held.expired(); });
  memory_files_.push_back(file);
  return Payload::InFile(std::move(file), bytes);
}

void PayloadStore::CreateSegmentFlags(int slaves) { segments_.Create(&memory_dir_, slaves); }

void PayloadStore::RetireSegments(std::uint64_t owner) {
  segment_mappings_.Forget(owner);
  segments_.Retire(owner);
}

std::shared_ptr<OwnedFile> PayloadStore::OwnMemoryFile(std::uint64_t file_id, std::uint64_t inode,
                                                       std::uint64_t resident) {
  std::string path = memory_dir_.FilePath(file_id);
  if (segments_.IsSegment(file_id)) {
    segments_.Taken(file_id);
    return std::shared_ptr<OwnedFile>(new OwnedFile(path, inode, /*remove=*/false),
                                      SegmentRelease{&segments_, file_id, resident});
  }
  return std::make_shared<OwnedFile>(path, inode);
}

void PayloadStore::MoveToDisk(PayloadFile& file) {
  std::uint64_t bytes = file.charged;
  std::uint64_t file_id = NewFileId();
  std::uint64_t inode = 0;
  {
    UniqueFd source = memory_dir_.Open(file.file_id, O_RDWR, file.owned->inode());
    MappedFile data = MappedFile::Map(file.owned->path(), source.get(), bytes, /*writable=*/false);
    inode = spill_dir_.Write(file_id, data.data(), bytes);
    if (auto* release = std::get_deleter<SegmentRelease>(file.owned)) {
      // The segment stays its slave's: give all its memory (it was charged
      // in full) back to the system now, the slave reserves it again
      // before it reuses the segment.
      struct stat info {};
      if (fstat(source.get(), &info) == 0 && info.st_size > 0)
        fallocate(source.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, info.st_size);
      release->emptied = true;
    }
  }
  file.owned = std::make_shared<OwnedFile>(spill_dir_.FilePath(file_id), inode);
  file.file_id = file_id;
  file.dir = &spill_dir_;
  file.Uncharge();
  moved_to_disk_ += bytes;
}

std::uint64_t PayloadStore::MoveMemoryFilesToDisk(std::uint64_t wanted) {
  std::uint64_t freed = 0;
  for (std::weak_ptr<PayloadFile>& held : memory_files_) {
    if (freed >= wanted) break;
    std::shared_ptr<PayloadFile> file = held.lock();
    // owned.use_count() > 1: handed to a slave in a reply, which may be
    // reading it by name right now.
    if (file == nullptr || file->memory_charge == nullptr || file->pinned ||
        file->owned.use_count() > 1)
      continue;
    freed += file->charged;
    MoveToDisk(*file);
    held.reset();
  }
  std::erase_if(memory_files_, [](const auto& held) { return held.expired(); });
  moved_while_held_ += freed;
  return freed;
}

MappedFile PayloadStore::Map(const Payload& payload, std::uint64_t bytes, bool writable) const {
  // Written through the mapping later on: the file must stay where it is.
  if (writable) payload.Pin();
  UniqueFd fd = payload.Open(writable ? O_RDWR : O_RDONLY);
  return MappedFile::Map(payload.file()->path(), fd.get(), bytes, writable);
}

Payload PayloadStore::Lend(const LentSendArgs& lent, pid_t pid, int lender, int rank) {
  auto file = std::make_shared<PayloadFile>(nullptr, 0, nullptr);
  file->lent = std::make_shared<LentBlock>(pid, lender, rank, lent.address, lent.bytes, lent.id,
                                           &lent_returns_);
  // Forget the ones gone, so that the list stays as long as what is lent.
  if (lent_files_.size() >= 64 && lent_files_.size() % 64 == 0) ForgetReturnedLent();
  lent_files_.push_back(file);
  return Payload::InFile(std::move(file), lent.bytes);
}

void PayloadStore::ForgetReturnedLent() {
  std::erase_if(lent_files_, [](const auto& held) {
    std::shared_ptr<PayloadFile> file = held.lock();
    return file == nullptr || file->lent == nullptr;
  });
}

void PayloadStore::GiveLent(Payload& payload, ReplyMsg& reply, std::shared_ptr<LentBlock>& held) {
  LentBlock& block = *payload.shared_file()->lent;
  reply.bytes = payload.bytes();
  LentReplyArgs{block.address, static_cast<std::uint64_t>(block.pid)}.Into(reply);
  // Named in a reply: its receiver may be reading it now, so its sender's
  // memory must stay where it is until the receiver's next request.
  handed_out_.push_back(payload.shared_file()->lent);
  if (handed_out_.size() % 64 == 0)
    std::erase_if(handed_out_, [](const auto& weak) { return weak.expired(); });
  // The message goes with the reply; the receiver alone holds the block.
  held = std::move(payload.shared_file()->lent);
}

bool PayloadStore::LentInHand(int lender) const {
  return std::any_of(handed_out_.begin(), handed_out_.end(), [lender](const auto& weak) {
    std::shared_ptr<LentBlock> block = weak.lock();
    return block != nullptr && block->lender == lender;
  });
}

Payload PayloadStore::CopyLent(const LentBlock& block, std::uint64_t lead) {
  std::uint64_t size = lead + block.bytes;
  bool in_memory = has_memory_dir() && memory_room_(size);
  const SpillDir& dir = in_memory ? memory_dir_ : spill_dir_;
  std::uint64_t file_id = NewFileId();
  std::uint64_t inode = 0;
  // Reserved: a full disk or tmpfs is an error here, not a SIGBUS later.
  UniqueFd file = dir.CreateReserved(file_id, size, &inode);
  try {
    MappedFile map = MappedFile::Map(dir.FilePath(file_id), file.get(), size, /*writable=*/true);
    block.CopyTo(map.data() + lead);
    ++lent_copied_;
  } catch (...) {
    unlink(dir.FilePath(file_id).c_str());
    throw;
  }
  // The charge (and a move to disk) covers the lead too.
  Payload copy = in_memory ? AdoptMemoryFile(file_id, inode, block.bytes, size)
                           : Adopt(file_id, inode, block.bytes);
  copy.shared_file()->lead = lead;
  return copy;
}

void PayloadStore::Materialize(const Payload& payload) { Materialize(payload.shared_file()); }

void PayloadStore::Materialize(const std::shared_ptr<PayloadFile>& file) {
  // A copy kept for its sender is laid out as the sender's pages are, so
  // that the sender can map it over the pages it did not write back.
  bool owed = file->lent->lender == owing_;
  Payload copy = CopyLent(*file->lent, owed ? file->lent->address % kLentCopyPage : 0);
  PayloadFile& made = *copy.shared_file();
  file->owned = made.owned;
  file->file_id = made.file_id;
  file->dir = made.dir;
  file->lead = made.lead;
  // The memory charge moves with the file: `made` goes with `copy`.
  file->memory_charge = std::exchange(made.memory_charge, nullptr);
  file->charged = std::exchange(made.charged, 0);
  if (file->memory_charge != nullptr) memory_files_.push_back(file);
  if (owed) {
    // A second holder of the same file: it follows the message's file to
    // disk (MoveMemoryFilesToDisk) and stays charged while either lives.
    owed_[owing_].push_back({.address = file->lent->address,
                             .copy = Payload::InFile(file, file->lent->bytes),
                             .listed = false,
                             .mapping = nullptr});
  }
  file->lent.reset();  // back to its sender
}

ReleaseArgs PayloadStore::ListOwed(int lender, std::uint64_t step) {
  ReleaseArgs args{.step = step};
  auto owed = owed_.find(lender);
  if (owed == owed_.end() || owed->second.empty()) return args;
  std::vector<std::uint64_t> pairs;
  for (OwedCopy& block : owed->second) {
    if (std::exchange(block.listed, true)) continue;
    pairs.push_back(block.address);
    pairs.push_back(block.copy.bytes());
  }
  if (pairs.empty()) return args;
  std::uint64_t file_id = NewFileId();
  std::uint64_t inode = spill_dir_.Write(file_id, pairs.data(), pairs.size() * sizeof pairs[0]);
  owed_lists_[lender] = Adopt(file_id, inode, pairs.size() * sizeof pairs[0]);
  args.list_file_id = file_id;
  args.list_inode = inode;
  args.count = static_cast<std::int32_t>(pairs.size() / 2);
  return args;
}

PayloadStore::OwedCopy* PayloadStore::FindOwed(int lender, std::uint64_t address, bool mapped) {
  auto owed = owed_.find(lender);
  if (owed == owed_.end()) return nullptr;
  for (OwedCopy& block : owed->second)
    if (block.address == address && (block.mapping != nullptr) == mapped) return &block;
  return nullptr;
}

std::optional<Payload> PayloadStore::TakeOwed(int lender, std::uint64_t address, bool mapped) {
  OwedCopy* found = FindOwed(lender, address, mapped);
  if (found == nullptr) return std::nullopt;
  std::vector<OwedCopy>& owed = owed_.at(lender);
  Payload copy = std::move(found->copy);
  owed.erase(owed.begin() + (found - owed.data()));
  if (owed.empty()) owed_.erase(lender);
  return copy;
}

const Payload* PayloadStore::KeepOwedMapped(int lender, std::uint64_t address) {
  OwedCopy* found = FindOwed(lender, address, /*mapped=*/false);
  if (found == nullptr || !found->copy.on_disk()) return nullptr;
  // A second holder of the file: MoveMemoryFilesToDisk leaves it where the
  // lender maps it.
  found->mapping = found->copy.file();
  return &found->copy;
}

Payload PayloadStore::Spill(const void* data, std::uint64_t bytes) {
  std::uint64_t file_id = NewFileId();
  std::uint64_t inode = spill_dir_.Write(file_id, data, bytes);
  return Adopt(file_id, inode, bytes);
}

}  // namespace bdmpi
