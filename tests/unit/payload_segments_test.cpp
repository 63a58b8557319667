// A slave's payload segments (src/slave/p2p/payload_segments.*): a segment
// whose pages this process has not mapped (new, or emptied by the master)
// is written through the kernel, without a page fault per 4 KiB; one
// written again without being emptied in between is copied into through
// its mapping; every way keeps the bytes, and an unreadable send buffer is
// MPI_ERR_BUFFER either way.
#include "slave/p2p/payload_segments.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/payload_segments.h"
#include "common/private_dir.h"
#include "test_util.h"

namespace bdmpi {
namespace {

constexpr std::uint64_t kOwner = 2;
constexpr std::size_t kBytes = 4 << 20;

class PayloadSegmentsTest : public ::testing::Test {
 protected:
  PayloadSegmentsTest() {
    std::string path = scratch_.Child("mem");
    dir_ = SpillDir(CreatePrivateDirAt(AT_FDCWD, path, path), path);
    // The flags file, as the master makes it: every segment free.
    std::uint64_t inode = 0;
    UniqueFd flags = dir_.Create(SegmentFlagsFileId(kOwner), O_RDWR, &inode);
    EXPECT_EQ(ftruncate(flags.get(), kSegmentFlagsBytes), 0);
    void* map = mmap(nullptr, kSegmentFlagsBytes, PROT_READ | PROT_WRITE, MAP_SHARED,
                     flags.get(), 0);
    EXPECT_NE(map, MAP_FAILED);
    flags_ = static_cast<std::uint32_t*>(map);
    segments_.emplace(&dir_, kOwner);
  }
  ~PayloadSegmentsTest() override { munmap(flags_, kSegmentFlagsBytes); }

  // A payload of `value`s, every page touched before it is sent.
  static std::vector<unsigned char> Payload(unsigned char value) {
    return std::vector<unsigned char>(kBytes, value);
  }
  // The segment's bytes as the master would read them.
  std::vector<unsigned char> Read(std::uint64_t file_id) const {
    std::vector<unsigned char> out(kBytes);
    dir_.ReadPrefix(file_id, 0, out.data(), out.size());
    return out;
  }
  // What the master does when it lets go of a message, or empties a free
  // segment for the node budget.
  void Free(std::uint64_t file_id) { flags_[SegmentIndex(file_id)] = kSegmentFree; }
  void Empty(std::uint64_t file_id) {
    UniqueFd fd = dir_.Open(file_id, O_RDWR, 0);
    EXPECT_EQ(fallocate(fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, kBytes), 0);
    flags_[SegmentIndex(file_id)] = kSegmentFreeEmptied;
  }

  test_util::ScopedTempDir scratch_;
  SpillDir dir_;
  std::uint32_t* flags_ = nullptr;
  std::optional<PayloadSegments> segments_;
};

TEST_F(PayloadSegmentsTest, AColdSegmentIsWrittenWithoutAFaultPerPage) {
  // A fault per 4 KiB would be 1024 of them.
  constexpr long kFewFaults = 64;
  // Writes a payload of `value`s, expecting segment `id` (0: any) to take
  // it and hold its bytes; returns the page faults the write took.
  auto write = [&](std::uint64_t& id, unsigned char value) {
    std::vector<unsigned char> payload = Payload(value);
    long before = test_util::MinorFaults();
    std::uint64_t got = segments_->Write(payload.data(), payload.size());
    long faults = test_util::MinorFaults() - before;
    EXPECT_NE(got, 0u);
    if (id != 0) {
      EXPECT_EQ(got, id);
    }
    id = got;
    EXPECT_EQ(Read(id), payload);
    return faults;
  };
  std::uint64_t id = 0;
  EXPECT_LT(write(id, 1), kFewFaults);
  ASSERT_NE(id, 0u);

  // Written again, not emptied: through the mapping, and from then on warm.
  Free(id);
  write(id, 2);
  Free(id);
  EXPECT_LT(write(id, 3), kFewFaults);

  // Emptied by the master: cold again.
  Empty(id);
  EXPECT_LT(write(id, 4), kFewFaults);
}

TEST_F(PayloadSegmentsTest, AnUnreadableSendBufferIsABufferErrorColdOrWarm) {
  void* unreadable = mmap(nullptr, kBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(unreadable, MAP_FAILED);
  auto expect_buffer_error = [&](const char* when) {
    try {
      segments_->Write(unreadable, kBytes);
      ADD_FAILURE() << when << ": no error thrown";
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), kErrBuffer) << when << ": " << error.what();
    }
  };
  expect_buffer_error("a new segment");
  std::vector<unsigned char> payload = Payload(5);
  std::uint64_t id = segments_->Write(payload.data(), payload.size());
  ASSERT_NE(id, 0u);
  Free(id);
  ASSERT_EQ(segments_->Write(payload.data(), payload.size()), id);
  Free(id);
  expect_buffer_error("a warm segment");
  munmap(unreadable, kBytes);
}

}  // namespace
}  // namespace bdmpi
