#include "master/memory/slave_segments.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "common/log.h"

namespace bdmpi {

void SlaveSegments::Create(const SpillDir* dir, int slaves) {
  dir_ = dir;
  slaves_.reserve(static_cast<std::size_t>(slaves));
  for (int slave = 0; slave < slaves; ++slave) {
    std::uint64_t file_id = SegmentFlagsFileId(static_cast<std::uint64_t>(slave));
    std::uint64_t inode = 0;
    UniqueFd fd = dir->CreateReserved(file_id, kSegmentFlagsBytes, &inode);
    slaves_.push_back(std::make_unique<Slave>(MappedFile::Map(
        dir->FilePath(file_id), fd.get(), kSegmentFlagsBytes, /*writable=*/true)));
  }
}

bool SlaveSegments::IsSegment(std::uint64_t file_id) const {
  return SegmentIndex(file_id) >= 0 && FileIdOwner(file_id) < slaves_.size();
}

std::atomic_ref<std::uint32_t> SlaveSegments::Flag(std::uint64_t owner, int index) const {
  return std::atomic_ref<std::uint32_t>(
      reinterpret_cast<std::uint32_t*>(slaves_[owner]->flags.data())[index]);
}

void SlaveSegments::Taken(std::uint64_t file_id) {
  Slave& slave = *slaves_[FileIdOwner(file_id)];
  idle_bytes_.fetch_sub(slave.idle[SegmentIndex(file_id)].exchange(0));
}

void SlaveSegments::Released(std::uint64_t file_id, std::uint64_t resident, bool emptied) {
  std::uint64_t owner = FileIdOwner(file_id);
  int index = SegmentIndex(file_id);
  Slave& slave = *slaves_[owner];
  std::uint32_t state = emptied ? kSegmentFreeEmptied : kSegmentFree;
  // Counted before the slave may see it free (and reuse it: Taken).
  std::uint64_t idle = emptied ? 0 : resident;
  idle_bytes_.fetch_add(idle - slave.idle[index].exchange(idle));
  Flag(owner, index).store(state);
  // After the store (both sequentially consistent): a Retire that ran
  // meanwhile either finds the segment free or is seen here.
  if (slave.retired.load()) GiveBack(owner, index, state, /*remove=*/true);
}

std::int64_t SlaveSegments::GiveBack(std::uint64_t owner, int index, std::uint32_t state,
                                     bool remove) {
  if (!Flag(owner, index).compare_exchange_strong(state, kSegmentTrimming)) return -1;
  std::uint64_t freed = slaves_[owner]->idle[index].exchange(0);
  idle_bytes_.fetch_sub(freed);
  std::uint64_t file_id = SegmentFileId(owner, index);
  try {
    // Checked like every file a slave could have touched (one link, ours):
    // the punch must not reach another file.
    UniqueFd fd = dir_->Open(file_id, O_RDWR, 0);
    struct stat info {};
    if (fstat(fd.get(), &info) == 0 && info.st_size > 0)
      fallocate(fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, info.st_size);
  } catch (const Error& error) {
    BDMPI_DEBUG("disk", "payload segment: %s", error.what());
  }
  trimmed_.fetch_add(freed);
  // A retired segment stays "trimming": nobody claims it again. Pages
  // punched first: a mapping another slave or the master keeps of the
  // file holds no memory once the name is gone.
  if (remove) {
    dir_->Unlink(file_id);
  } else {
    Flag(owner, index).store(kSegmentFreeEmptied, std::memory_order_release);
  }
  return static_cast<std::int64_t>(freed);
}

std::uint64_t SlaveSegments::Trim(std::uint64_t wanted) {
  std::vector<std::tuple<std::uint64_t, std::uint64_t, int>> free;  // idle, owner, index
  for (std::uint64_t owner = 0; owner < slaves_.size(); ++owner)
    for (int index = 0; index < kMaxSegments; ++index)
      if (std::uint64_t idle = slaves_[owner]->idle[index].load(); idle > 0)
        free.emplace_back(idle, owner, index);
  std::sort(free.begin(), free.end(), std::greater<>());
  std::uint64_t freed = 0;
  for (const auto& [idle, owner, index] : free) {
    if (freed >= wanted) break;
    freed += static_cast<std::uint64_t>(
        std::max<std::int64_t>(0, GiveBack(owner, index, kSegmentFree, /*remove=*/false)));
  }
  return freed;
}

void SlaveSegments::Retire(std::uint64_t owner) {
  if (owner >= slaves_.size()) return;
  Slave& slave = *slaves_[owner];
  slave.retired.store(true);
  for (int index = 0; index < kMaxSegments; ++index) {
    // Busy ones go with their message (Released); a free one without
    // pages never existed or was emptied.
    std::uint32_t state = Flag(owner, index).load();
    if (state == kSegmentFreeEmptied || (state == kSegmentFree && slave.idle[index].load() > 0))
      GiveBack(owner, index, state, /*remove=*/true);
  }
}

}  // namespace bdmpi
