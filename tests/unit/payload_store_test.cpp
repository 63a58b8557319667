// The master's payload hand-over (master/memory/payload_store.h): what it keeps in
// memory and what it spills, the budget it charges, the replies it fills as
// the slave's FetchPayload expects them, the inode check that refuses a
// spill file swapped under it, and memory files: charged while held, moved
// to disk when the node's memory is short.
#include "master/memory/payload_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/payload_segments.h"
#include "common/private_dir.h"
#include "test_util.h"

namespace bdmpi {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kWindow = 4096;

std::vector<std::byte> Bytes(std::size_t size, std::uint8_t value) {
  return std::vector<std::byte>(size, std::byte{value});
}

// The bytes of a spill file, read back through its path.
std::vector<std::byte> FileBytes(const std::string& path) {
  std::vector<std::byte> data(fs::file_size(path));
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(PreadFull(fd.get(), data.data(), data.size(), 0),
            static_cast<ssize_t>(data.size()));
  return data;
}

// A store with a `budget` byte memory budget over a fresh spill directory.
class PayloadStoreTest : public ::testing::Test {
 protected:
  explicit PayloadStoreTest(std::size_t budget = 1000) : store_(kWindow, budget) {
    std::string path = scratch_.Child("n0");
    store_.SetSpillDir(SpillDir(CreatePrivateDirAt(AT_FDCWD, path, path), path));
  }

  // A request whose payload the slave staged `where`.
  static RequestMsg Staged(Where where, std::uint64_t bytes, std::uint64_t file_id = 0) {
    RequestMsg request;
    request.type = MsgType::kSend;
    request.where = where;
    request.bytes = bytes;
    request.file_id = file_id;
    return request;
  }

  std::size_t SpillFiles() const {
    return static_cast<std::size_t>(std::distance(
        fs::directory_iterator(store_.spill_dir().path()), fs::directory_iterator()));
  }

  test_util::ScopedTempDir scratch_;
  PayloadStore store_;
  std::vector<std::byte> window_ = std::vector<std::byte>(kWindow);
  std::vector<std::shared_ptr<OwnedFile>> held_;
};

class TightBudgetTest : public PayloadStoreTest {
 protected:
  TightBudgetTest() : PayloadStoreTest(100) {}
};

// ------------------------------------------------------------ Take

TEST_F(PayloadStoreTest, TakesInlineAndWindowPayloadsIntoMemory) {
  std::vector<std::byte> text = Bytes(10, 3);
  Payload inline_payload = store_.Take(Staged(Where::kInline, 10), window_.data(), text.data());
  std::memset(window_.data(), 5, 200);
  Payload window_payload = store_.Take(Staged(Where::kWindow, 200), window_.data(), nullptr);
  EXPECT_FALSE(inline_payload.on_disk());
  EXPECT_EQ(inline_payload.memory(), text);
  EXPECT_FALSE(window_payload.on_disk());
  EXPECT_EQ(window_payload.memory(), Bytes(200, 5));
  EXPECT_EQ(store_.budget().used(), 210u);
  EXPECT_EQ(SpillFiles(), 0u);
}

TEST_F(TightBudgetTest, OverBudgetASmallPayloadIsSpilled) {
  std::memset(window_.data(), 9, 80);
  Payload first = store_.Take(Staged(Where::kWindow, 80), window_.data(), nullptr);
  Payload second = store_.Take(Staged(Where::kWindow, 80), window_.data(), nullptr);
  EXPECT_FALSE(first.on_disk());
  ASSERT_TRUE(second.on_disk());
  EXPECT_EQ(store_.budget().used(), 80u);  // the spilled one charges nothing
  EXPECT_EQ(FileBytes(second.file()->path()), Bytes(80, 9));
  EXPECT_EQ(FileIdOwner(second.file_id()), kMasterFileOwner);
  std::string path = second.file()->path();
  second = Payload();
  EXPECT_FALSE(fs::exists(path));
  first = Payload();
  EXPECT_EQ(store_.budget().used(), 0u);
  EXPECT_EQ(store_.budget().peak(), 80u);
}

TEST_F(PayloadStoreTest, AdoptsTheSlavesSpillFileByItsInode) {
  std::uint64_t file_id = MakeFileId(2, 1);
  std::vector<std::byte> data = Bytes(kWindow * 2, 4);
  std::uint64_t inode = store_.spill_dir().Write(file_id, data.data(), data.size());
  Payload payload = store_.Take(Staged(Where::kFile, data.size(), file_id), window_.data(), nullptr);
  ASSERT_TRUE(payload.on_disk());
  EXPECT_EQ(payload.file_id(), file_id);
  EXPECT_EQ(payload.file()->inode(), inode);
  EXPECT_EQ(payload.bytes(), data.size());
  EXPECT_EQ(store_.budget().used(), 0u);
  MappedFile map = store_.Map(payload, data.size(), /*writable=*/false);
  EXPECT_EQ(std::memcmp(map.data(), data.data(), data.size()), 0);
}

TEST_F(PayloadStoreTest, RefusesASlaveFileWithASecondLink) {
  std::uint64_t file_id = MakeFileId(2, 1);
  char byte = 'x';
  store_.spill_dir().Write(file_id, &byte, 1);
  std::string path = store_.spill_dir().FilePath(file_id);
  ASSERT_EQ(link(path.c_str(), scratch_.Child("other").c_str()), 0);
  EXPECT_ERROR_WITH(store_.Take(Staged(Where::kFile, 1, file_id), window_.data(), nullptr),
                    path);
}

TEST_F(PayloadStoreTest, ReadsAPayloadWithoutKeepingIt) {
  std::vector<std::uint64_t> ids = {7, 8, 9}, back(3);
  std::size_t bytes = ids.size() * sizeof ids[0];
  store_.Read(Staged(Where::kInline, bytes), window_.data(),
              reinterpret_cast<const std::byte*>(ids.data()), back.data(), bytes);
  EXPECT_EQ(back, ids);
  std::uint64_t file_id = MakeFileId(1, 3);
  store_.spill_dir().Write(file_id, ids.data(), bytes);
  back.assign(3, 0);
  store_.Read(Staged(Where::kFile, bytes, file_id), window_.data(), nullptr, back.data(), bytes);
  EXPECT_EQ(back, ids);
  EXPECT_EQ(SpillFiles(), 0u);  // read once, then unlinked
  EXPECT_EQ(store_.budget().used(), 0u);
}

// ------------------------------------------------------------ Give

TEST_F(PayloadStoreTest, GivesAMemoryPayloadInTheWindowUpToTheCapacity) {
  Payload payload = store_.Store(Bytes(100, 6));
  ReplyMsg reply;
  store_.Give(payload, 40, window_.data(), reply, held_);
  EXPECT_EQ(reply.where, Where::kWindow);
  EXPECT_EQ(reply.bytes, 100u);  // the full size: the slave reports truncation
  EXPECT_EQ(window_[39], std::byte{6});
  EXPECT_EQ(window_[40], std::byte{0});
  EXPECT_TRUE(held_.empty());
}

TEST_F(PayloadStoreTest, GivesNothingForAnEmptyPayloadOrNoCapacity) {
  ReplyMsg empty_reply;
  store_.Give(Payload(), 100, window_.data(), empty_reply, held_);
  EXPECT_EQ(empty_reply.where, Where::kNone);
  ReplyMsg no_room;
  store_.Give(store_.Store(Bytes(8, 1)), 0, window_.data(), no_room, held_);
  EXPECT_EQ(no_room.where, Where::kNone);
  EXPECT_EQ(no_room.bytes, 8u);
}

TEST_F(PayloadStoreTest, GivesASpilledPayloadByFileAndHoldsItForTheSlave) {
  Payload payload = store_.Store(Bytes(kWindow + 1, 2));  // larger than a window
  ASSERT_TRUE(payload.on_disk());
  ReplyMsg reply;
  store_.Give(payload, std::numeric_limits<std::uint64_t>::max(), window_.data(), reply, held_);
  EXPECT_EQ(reply.where, Where::kFile);
  EXPECT_EQ(reply.file_id, payload.file_id());
  EXPECT_EQ(reply.file_ino, payload.file()->inode());
  std::string path = payload.file()->path();
  payload = Payload();
  EXPECT_TRUE(fs::exists(path));  // the slave has not read it yet
  held_.clear();
  EXPECT_FALSE(fs::exists(path));
}

// ------------------------------------------------------------ master-made data

TEST_F(TightBudgetTest, StoreKeepsInMemoryOnlyWhatFitsTheBudget) {
  Payload small = store_.Store(Bytes(60, 1));
  Payload over = store_.Store(Bytes(60, 2));
  EXPECT_FALSE(small.on_disk());
  EXPECT_TRUE(over.on_disk());
  EXPECT_EQ(store_.budget().used(), 60u);
  EXPECT_EQ(FileBytes(over.file()->path()), Bytes(60, 2));
}

TEST_F(PayloadStoreTest, AllocateMapsALargeResultInAReservedFile) {
  std::optional<MappedFile> small_map;
  Payload small = store_.Allocate(64, small_map);
  EXPECT_FALSE(small.on_disk());
  EXPECT_FALSE(small_map.has_value());
  EXPECT_EQ(small.memory(), Bytes(64, 0));

  std::optional<MappedFile> map;
  Payload large = store_.Allocate(kWindow * 4, map);
  ASSERT_TRUE(large.on_disk());
  ASSERT_TRUE(map.has_value());
  std::memset(map->data(), 7, kWindow * 4);
  map.reset();
  EXPECT_EQ(FileBytes(large.file()->path()), Bytes(kWindow * 4, 7));
  EXPECT_EQ(store_.budget().used(), 64u);
}

TEST_F(PayloadStoreTest, AdoptedFileIsUnlinkedWithItsLastHolder) {
  std::uint64_t file_id = MakeFileId(0xfffffe, 1);  // the network thread's
  char byte = 'n';
  std::uint64_t inode = store_.spill_dir().Write(file_id, &byte, 1);
  std::string path;
  {
    Payload payload = store_.Adopt(file_id, inode, 1);
    path = payload.file()->path();
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
}

// ------------------------------------------------------------ the inode check

TEST_F(PayloadStoreTest, MapRefusesASpillFileSwappedUnderIt) {
  Payload payload = store_.Store(Bytes(kWindow * 2, 1));
  ASSERT_TRUE(payload.on_disk());
  std::string path = payload.file()->path();
  std::string forged = scratch_.Child("n0/forged");
  std::vector<std::byte> other = Bytes(kWindow * 2, 9);
  WriteNewFile(forged, other.data(), other.size());
  ASSERT_EQ(rename(forged.c_str(), path.c_str()), 0);
  EXPECT_ERROR_WITH(store_.Map(payload, kWindow * 2, /*writable=*/false),
                    "is not the file the job wrote");
}

// ------------------------------------------------------------ memory files

// A store with a memory directory (a plain directory here; /dev/shm in a
// job) whose node memory has room while `room_` says so.
class MemoryFileTest : public PayloadStoreTest {
 protected:
  MemoryFileTest() {
    std::string path = scratch_.Child("mem");
    store_.SetMemoryDir(SpillDir(CreatePrivateDirAt(AT_FDCWD, path, path), path));
    store_.SetMemoryRoom([this](std::uint64_t bytes) {
      return store_.memory_file_bytes() + bytes <= room_;
    });
  }

  // What a slave's StagePayload does for a payload larger than its window.
  RequestMsg SlaveWrites(std::uint64_t seq, std::size_t bytes, std::uint8_t value) {
    std::uint64_t file_id = MakeFileId(2, seq);
    std::vector<std::byte> data = Bytes(bytes, value);
    store_.memory_dir().Write(file_id, data.data(), data.size());
    return Staged(Where::kMemoryFile, bytes, file_id);
  }

  std::size_t MemoryFiles() const {
    return static_cast<std::size_t>(std::distance(
        fs::directory_iterator(store_.memory_dir().path()), fs::directory_iterator()));
  }

  std::uint64_t room_ = std::numeric_limits<std::uint64_t>::max();
};

TEST_F(MemoryFileTest, TakesAMemoryFileChargesItAndGivesItByName) {
  Payload payload = store_.Take(SlaveWrites(1, kWindow * 2, 3), window_.data(), nullptr);
  ASSERT_TRUE(payload.in_memory_file());
  EXPECT_EQ(store_.memory_file_bytes(), kWindow * 2);
  EXPECT_EQ(SpillFiles(), 0u);
  ReplyMsg reply;
  store_.Give(payload, std::numeric_limits<std::uint64_t>::max(), window_.data(), reply, held_);
  EXPECT_EQ(reply.where, Where::kMemoryFile);
  EXPECT_EQ(reply.file_id, MakeFileId(2, 1));
  EXPECT_EQ(reply.file_ino, payload.file()->inode());
  std::vector<std::byte> read(kWindow * 2);
  store_.memory_dir().ReadPrefix(reply.file_id, reply.file_ino, read.data(), read.size());
  EXPECT_EQ(read, Bytes(kWindow * 2, 3));
  payload = Payload();
  EXPECT_EQ(MemoryFiles(), 1u);  // the slave has not read it yet
  held_.clear();
  EXPECT_EQ(MemoryFiles(), 0u);
  EXPECT_EQ(store_.memory_file_bytes(), 0u);
}

TEST_F(MemoryFileTest, AMemoryFileOverTheNodeBudgetGoesToDiskAtOnce) {
  room_ = kWindow * 3;
  Payload first = store_.Take(SlaveWrites(1, kWindow * 2, 1), window_.data(), nullptr);
  Payload second = store_.Take(SlaveWrites(2, kWindow * 2, 2), window_.data(), nullptr);
  EXPECT_TRUE(first.in_memory_file());
  ASSERT_TRUE(second.on_disk());
  EXPECT_FALSE(second.in_memory_file());
  EXPECT_EQ(FileIdOwner(second.file_id()), kMasterFileOwner);
  EXPECT_EQ(FileBytes(second.file()->path()), Bytes(kWindow * 2, 2));
  EXPECT_EQ(store_.memory_file_bytes(), kWindow * 2);
  EXPECT_EQ(MemoryFiles(), 1u);
  EXPECT_EQ(SpillFiles(), 1u);
  ReplyMsg reply;
  store_.Give(second, kWindow * 2, window_.data(), reply, held_);
  EXPECT_EQ(reply.where, Where::kFile);
}

TEST_F(MemoryFileTest, MovesHeldMemoryFilesToDiskButNotThoseInUse) {
  Payload handed_out = store_.Take(SlaveWrites(1, kWindow * 2, 1), window_.data(), nullptr);
  Payload pinned = store_.Take(SlaveWrites(2, kWindow * 2, 2), window_.data(), nullptr);
  Payload held = store_.Take(SlaveWrites(3, kWindow * 2, 3), window_.data(), nullptr);
  ReplyMsg reply;
  store_.Give(handed_out, kWindow * 2, window_.data(), reply, held_);  // being read
  pinned.Pin();                                                        // the network's
  EXPECT_EQ(store_.MoveMemoryFilesToDisk(std::numeric_limits<std::uint64_t>::max()),
            kWindow * 2);
  EXPECT_TRUE(handed_out.in_memory_file());
  EXPECT_TRUE(pinned.in_memory_file());
  ASSERT_FALSE(held.in_memory_file());
  ASSERT_TRUE(held.on_disk());
  EXPECT_EQ(FileBytes(held.file()->path()), Bytes(kWindow * 2, 3));
  MappedFile map = store_.Map(held, kWindow * 2, /*writable=*/false);
  EXPECT_EQ(map.data()[kWindow * 2 - 1], std::byte{3});
  EXPECT_EQ(store_.memory_file_bytes(), kWindow * 4);
  EXPECT_EQ(MemoryFiles(), 2u);
  EXPECT_EQ(SpillFiles(), 1u);
  // Given out again, it is a spill file now.
  store_.Give(held, kWindow * 2, window_.data(), reply, held_);
  EXPECT_EQ(reply.where, Where::kFile);
  EXPECT_EQ(reply.file_id, held.file_id());
}

TEST_F(MemoryFileTest, MovesOnlyAsMuchAsWanted) {
  Payload first = store_.Take(SlaveWrites(1, kWindow * 2, 1), window_.data(), nullptr);
  Payload second = store_.Take(SlaveWrites(2, kWindow * 2, 2), window_.data(), nullptr);
  EXPECT_EQ(store_.MoveMemoryFilesToDisk(1), kWindow * 2);
  EXPECT_FALSE(first.in_memory_file());  // the oldest first
  EXPECT_TRUE(second.in_memory_file());
}

TEST_F(MemoryFileTest, StoreAndAllocatePutLargeDataInMemoryFiles) {
  Payload stored = store_.Store(Bytes(kWindow + 8, 4));
  ASSERT_TRUE(stored.in_memory_file());
  EXPECT_EQ(FileBytes(stored.file()->path()), Bytes(kWindow + 8, 4));
  std::optional<MappedFile> map;
  Payload allocated = store_.Allocate(kWindow * 2, map);
  ASSERT_TRUE(allocated.in_memory_file());
  std::memset(map->data(), 6, kWindow * 2);
  map.reset();
  EXPECT_EQ(store_.memory_file_bytes(), kWindow * 3 + 8);
  // Filled through a mapping the network thread holds: it stays put.
  EXPECT_EQ(store_.MoveMemoryFilesToDisk(kWindow * 10), kWindow + 8);
  EXPECT_TRUE(allocated.in_memory_file());
  EXPECT_EQ(FileBytes(allocated.file()->path()), Bytes(kWindow * 2, 6));
  room_ = 0;
  EXPECT_FALSE(store_.Store(Bytes(kWindow + 8, 5)).in_memory_file());
}

TEST_F(MemoryFileTest, RefusesAMemoryFileWithASecondLink) {
  RequestMsg request = SlaveWrites(1, kWindow * 2, 1);
  std::string path = store_.memory_dir().FilePath(request.file_id);
  ASSERT_EQ(link(path.c_str(), scratch_.Child("other").c_str()), 0);
  EXPECT_ERROR_WITH(store_.Take(request, window_.data(), nullptr), path);
  EXPECT_EQ(store_.memory_file_bytes(), 0u);
}

TEST_F(MemoryFileTest, ReadsAMemoryFileWithoutKeepingIt) {
  RequestMsg request = SlaveWrites(1, 64, 7);
  std::vector<std::byte> back(64);
  store_.Read(request, window_.data(), nullptr, back.data(), back.size());
  EXPECT_EQ(back, Bytes(64, 7));
  EXPECT_EQ(MemoryFiles(), 0u);
}

// ------------------------------------------------------------ kept mappings

// A slave's payload segment (common/payload_segments.h) holding `bytes` of
// `value`: written in place when it exists, as the slave reuses it.
RequestMsg SegmentHolds(const SpillDir& dir, std::size_t bytes, std::uint8_t value) {
  std::uint64_t file_id = SegmentFileId(2, 0);
  std::vector<std::byte> data = Bytes(bytes, value);
  UniqueFd fd(open(dir.FilePath(file_id).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  EXPECT_EQ(pwrite(fd.get(), data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
  RequestMsg request;
  request.type = MsgType::kSend;
  request.where = Where::kMemoryFile;
  request.bytes = bytes;
  request.file_id = file_id;
  return request;
}

TEST_F(MemoryFileTest, KeepsTheMappingOfASlavesSegmentFromOnePayloadToTheNext) {
  store_.CreateSegmentFlags(3);  // slave 2's segments are given back, not unlinked
  Payload first = store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 2, 1),
                              window_.data(), nullptr);
  std::byte* mapped = store_.KeptMapping(first, first.bytes());
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(std::vector<std::byte>(mapped, mapped + kWindow * 2), Bytes(kWindow * 2, 1));
  std::memset(mapped, 9, 16);  // the master reduces into it in place
  EXPECT_EQ(FileBytes(first.file()->path())[15], std::byte{9});
  first = Payload();

  // The slave writes its segment again: the same mapping, the new bytes.
  Payload second = store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 2, 2),
                               window_.data(), nullptr);
  EXPECT_EQ(store_.KeptMapping(second, second.bytes()), mapped);
  EXPECT_EQ(mapped[kWindow * 2 - 1], std::byte{2});
  std::string path = second.file()->path();
  second = Payload();

  // A segment made anew (another inode, larger) is mapped anew.
  ASSERT_EQ(unlink(path.c_str()), 0);
  Payload third = store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 4, 3),
                              window_.data(), nullptr);
  std::byte* remapped = store_.KeptMapping(third, third.bytes());
  ASSERT_NE(remapped, nullptr);
  EXPECT_EQ(std::vector<std::byte>(remapped, remapped + kWindow * 4), Bytes(kWindow * 4, 3));
}

TEST_F(MemoryFileTest, KeepsNoMappingOfAFileMadeForOneMessageOrOfASpillFile) {
  Payload once = store_.Take(SlaveWrites(1, kWindow * 2, 1), window_.data(), nullptr);
  ASSERT_TRUE(once.in_memory_file());
  EXPECT_EQ(store_.KeptMapping(once, once.bytes()), nullptr);
  store_.MoveMemoryFilesToDisk(kWindow * 4);
  ASSERT_FALSE(once.in_memory_file());
  EXPECT_EQ(store_.KeptMapping(once, once.bytes()), nullptr);
}

// ------------------------------------------------------------ idle segments
// The warm pages of a free segment count against the node budget and are
// given back (punched, the flag free-emptied) on demand; a retired slave's
// segments go with the master's mappings of them (master/memory/slave_segments.h).

std::uint64_t AllocatedBytes(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? static_cast<std::uint64_t>(info.st_blocks) * 512 : 0;
}

std::uint32_t& SegmentState(const SpillDir& dir, std::uint64_t owner, int index) {
  static std::optional<MappedFile> flags;  // slave 2's flags file, mapped once per test
  std::uint64_t file_id = SegmentFlagsFileId(owner);
  UniqueFd fd = dir.Open(file_id, O_RDWR, 0);
  flags.emplace(MappedFile::Map(dir.FilePath(file_id), fd.get(), kSegmentFlagsBytes, true));
  return reinterpret_cast<std::uint32_t*>(flags->data())[index];
}

// Whether this process maps `path` (/proc/self/maps names mapped files).
bool Mapped(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(path) != std::string::npos) return true;
  return false;
}

class IdleSegmentTest : public MemoryFileTest {
 protected:
  IdleSegmentTest() { store_.CreateSegmentFlags(3); }
  std::string SegmentPath() const { return store_.memory_dir().FilePath(SegmentFileId(2, 0)); }
};

TEST_F(IdleSegmentTest, AFreeSegmentsWarmPagesCountUntilTrimmed) {
  Payload payload = store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 4, 1),
                                window_.data(), nullptr);
  std::uint64_t warm = AllocatedBytes(SegmentPath());
  ASSERT_GE(warm, kWindow * 4);
  EXPECT_EQ(store_.memory_file_bytes(), warm);  // held: charged with its message
  EXPECT_EQ(store_.idle_segment_bytes(), 0u);
  payload = Payload();
  EXPECT_EQ(store_.memory_file_bytes(), 0u);
  EXPECT_EQ(store_.idle_segment_bytes(), warm);  // free, its pages still there
  EXPECT_EQ(SegmentState(store_.memory_dir(), 2, 0), kSegmentFree);

  EXPECT_EQ(store_.TrimIdleSegments(1), warm);
  EXPECT_EQ(store_.idle_segment_bytes(), 0u);
  EXPECT_EQ(store_.trimmed_segment_bytes(), warm);
  EXPECT_LT(AllocatedBytes(SegmentPath()), kWindow);  // punched, the file stays
  EXPECT_EQ(fs::file_size(SegmentPath()), kWindow * 4);
  EXPECT_EQ(SegmentState(store_.memory_dir(), 2, 0), kSegmentFreeEmptied);
  EXPECT_EQ(store_.TrimIdleSegments(1), 0u);
}

TEST_F(IdleSegmentTest, ASegmentTheSlaveClaimedIsNotTrimmed) {
  store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 4, 1), window_.data(), nullptr);
  std::uint64_t warm = AllocatedBytes(SegmentPath());
  SegmentState(store_.memory_dir(), 2, 0) = kSegmentBusy;  // the slave writes it again
  EXPECT_EQ(store_.TrimIdleSegments(warm), 0u);
  EXPECT_EQ(AllocatedBytes(SegmentPath()), warm);
  EXPECT_EQ(SegmentState(store_.memory_dir(), 2, 0), kSegmentBusy);
  // Its next message counts with the message, no longer as idle.
  Payload again = store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 4, 2),
                              window_.data(), nullptr);
  EXPECT_EQ(store_.idle_segment_bytes(), 0u);
  EXPECT_EQ(store_.memory_file_bytes(), warm);
}

TEST_F(IdleSegmentTest, ASegmentMovedToDiskGivesAllItsPagesBack) {
  // An earlier, larger message left pages beyond this one's end.
  store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 8, 1), window_.data(), nullptr);
  Payload payload = store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 2, 2),
                                window_.data(), nullptr);
  EXPECT_EQ(store_.memory_file_bytes(), AllocatedBytes(SegmentPath()));
  EXPECT_GT(store_.MoveMemoryFilesToDisk(1), kWindow * 2);
  EXPECT_LT(AllocatedBytes(SegmentPath()), kWindow);
  payload = Payload();
  EXPECT_EQ(store_.idle_segment_bytes(), 0u);
  EXPECT_EQ(SegmentState(store_.memory_dir(), 2, 0), kSegmentFreeEmptied);
}

TEST_F(IdleSegmentTest, ARetiredSlavesSegmentsGoWithTheMastersMappings) {
  Payload payload = store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 4, 1),
                                window_.data(), nullptr);
  ASSERT_NE(store_.KeptMapping(payload, payload.bytes()), nullptr);  // a reduction's
  payload = Payload();
  ASSERT_TRUE(Mapped(SegmentPath()));
  store_.RetireSegments(2);
  EXPECT_FALSE(fs::exists(SegmentPath()));
  EXPECT_FALSE(Mapped(SegmentPath()));  // no mapping keeps the deleted file
  EXPECT_EQ(store_.idle_segment_bytes(), 0u);
}

TEST_F(IdleSegmentTest, ARetiredSlavesBusySegmentGoesWithItsMessage) {
  Payload payload = store_.Take(SegmentHolds(store_.memory_dir(), kWindow * 4, 1),
                                window_.data(), nullptr);
  store_.RetireSegments(2);
  EXPECT_TRUE(fs::exists(SegmentPath()));  // a receiver has yet to read it
  ReplyMsg reply;
  store_.Give(payload, kWindow * 4, window_.data(), reply, held_);
  payload = Payload();
  EXPECT_TRUE(fs::exists(SegmentPath()));
  held_.clear();  // read
  EXPECT_FALSE(fs::exists(SegmentPath()));
  EXPECT_EQ(store_.idle_segment_bytes(), 0u);
}

// ------------------------------------------------------------ Lent blocks

// A block "lent" by this very process (the tests' stand-in for a slave),
// at `data`: the store names it in a reply, or copies it out of the
// lender's memory (process_vm_readv) into a file of its own.
LentSendArgs Lent(const std::vector<std::byte>& data, std::uint64_t send_id) {
  return {reinterpret_cast<std::uintptr_t>(data.data()), data.size(), send_id};
}

TEST_F(MemoryFileTest, ALentBlockIsNamedInTheReplyAndGoesBackWithItsLastHolder) {
  std::vector<std::byte> block = Bytes(kWindow * 2, 5);
  Payload payload = store_.Lend(Lent(block, 7), getpid(), 1, 11);
  ASSERT_TRUE(payload.lent());
  ReplyMsg reply;
  std::shared_ptr<LentBlock> held;
  store_.GiveLent(payload, reply, held);
  EXPECT_EQ(reply.where, Where::kLent);
  EXPECT_EQ(LentReplyArgs::Of(reply).address, reinterpret_cast<std::uintptr_t>(block.data()));
  EXPECT_EQ(LentReplyArgs::Of(reply).lender_pid, static_cast<std::uint64_t>(getpid()));
  EXPECT_EQ(reply.bytes, block.size());
  payload = Payload();
  EXPECT_TRUE(store_.LentInHand(1));  // the receiver may be reading it
  EXPECT_FALSE(store_.LentInHand(2));
  // Not copied while in hand; back to rank 11's send 7 when let go of.
  EXPECT_EQ(store_.MaterializeLent([](int) { return true; }), 0u);
  EXPECT_TRUE(store_.TakeLentReturns().empty());
  held.reset();
  EXPECT_FALSE(store_.LentInHand(1));
  std::vector<LentReturn> back = store_.TakeLentReturns();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].lender, 1);
  EXPECT_EQ(back[0].send_id, 7u);
}

TEST_F(MemoryFileTest, MaterializingALentBlockCopiesItIntoAFileAndGivesItBack) {
  std::vector<std::byte> block = Bytes(kWindow * 2, 6);
  Payload mine = store_.Lend(Lent(block, 7), getpid(), 1, 11);
  Payload other = store_.Lend(Lent(block, 8), getpid(), 2, 12);
  EXPECT_EQ(store_.MaterializeLent([](int lender) { return lender == 1; }), 1u);
  EXPECT_FALSE(mine.lent());
  EXPECT_TRUE(other.lent());
  std::vector<LentReturn> back = store_.TakeLentReturns();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].send_id, 7u);
  EXPECT_EQ(store_.lent_copied(), 1u);
  // Now an ordinary memory file, charged, and the bytes are the block's.
  block.assign(block.size(), std::byte{0});  // the lender may reuse its buffer
  ASSERT_TRUE(mine.in_memory_file());
  EXPECT_EQ(store_.memory_file_bytes(), kWindow * 2);
  ReplyMsg reply;
  store_.Give(mine, std::numeric_limits<std::uint64_t>::max(), window_.data(), reply, held_);
  EXPECT_EQ(reply.where, Where::kMemoryFile);
  std::vector<std::byte> read(kWindow * 2);
  store_.memory_dir().ReadPrefix(reply.file_id, reply.file_ino, read.data(), read.size());
  EXPECT_EQ(read, Bytes(kWindow * 2, 6));
  // Over the node's memory: a spill file.
  room_ = 0;
  store_.Materialize(other);
  EXPECT_FALSE(other.lent());
  EXPECT_TRUE(other.on_disk());
  EXPECT_FALSE(other.in_memory_file());
  EXPECT_EQ(SpillFiles(), 1u);
}

TEST_F(MemoryFileTest, ACopyKeptForItsSenderStartsWhereTheBlockStartsInItsPage) {
  std::vector<std::byte> buffer = Bytes(kWindow * 2 + 100, 9);
  std::vector<std::byte> block(buffer.begin() + 100, buffer.end());
  LentSendArgs lent{reinterpret_cast<std::uintptr_t>(buffer.data()) + 100, block.size(), 7};
  Payload message = store_.Lend(lent, getpid(), 1, 11);
  store_.OweCopiesTo(1);
  store_.Materialize(message);
  store_.OweCopiesTo(-1);
  std::uint64_t lead = lent.address % kLentCopyPage;
  // The receiver reads the block after the lead.
  ReplyMsg reply;
  store_.Give(message, std::numeric_limits<std::uint64_t>::max(), window_.data(), reply, held_);
  ASSERT_EQ(reply.where, Where::kMemoryFile);
  EXPECT_EQ(reply.lead, lead);
  std::vector<std::byte> file(lead + block.size());
  store_.memory_dir().ReadPrefix(reply.file_id, reply.file_ino, file.data(), file.size());
  EXPECT_TRUE(std::equal(block.begin(), block.end(), file.begin() + static_cast<long>(lead)));
  held_.clear();
  message = Payload();
  // Mapped by its sender: kept where it is until settled, then gone.
  const Payload* kept = store_.KeepOwedMapped(1, lent.address);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(store_.KeepOwedMapped(1, lent.address), nullptr);  // once
  EXPECT_EQ(store_.MoveMemoryFilesToDisk(std::numeric_limits<std::uint64_t>::max()), 0u);
  EXPECT_FALSE(store_.TakeOwed(1, lent.address));  // not as an unmapped copy
  EXPECT_TRUE(store_.TakeOwed(1, lent.address, /*mapped=*/true));
  EXPECT_EQ(MemoryFiles(), 0u);
  EXPECT_EQ(store_.memory_file_bytes(), 0u);
}

}  // namespace
}  // namespace bdmpi
