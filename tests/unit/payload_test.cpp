// Buffered payloads: the memory budget, in-memory payloads giving their
// bytes back, and spill files unlinked when their last holder lets go.
#include "master/memory/payload.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "test_util.h"

namespace bdmpi {
namespace {

namespace fs = std::filesystem;

std::vector<std::byte> Bytes(std::size_t size, std::uint8_t value = 1) {
  return std::vector<std::byte>(size, std::byte{value});
}

// Reserves `size` bytes of `budget` and wraps them in a payload.
Payload Charged(MemoryBudget& budget, std::size_t size) {
  EXPECT_TRUE(budget.TryReserve(size));
  return Payload::InMemory(Bytes(size), &budget);
}

// A fresh private directory per test, removed afterwards.
class SpillDirTest : public ::testing::Test {
 protected:
  // A spill file of `size` bytes, owned by the returned OwnedFile.
  std::shared_ptr<OwnedFile> NewSpillFile(const std::string& name,
                                          std::size_t size) {
    std::string path = dir_.Child(name);
    std::vector<std::byte> data = Bytes(size, 7);
    WriteNewFile(path, data.data(), data.size());
    return std::make_shared<OwnedFile>(path);
  }

  test_util::ScopedTempDir dir_;
};

// ------------------------------------------------------------ MemoryBudget

TEST(MemoryBudgetTest, ReserveAndRelease) {
  MemoryBudget budget(100);
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(budget.peak(), 0u);
  EXPECT_TRUE(budget.TryReserve(40));
  EXPECT_TRUE(budget.TryReserve(60));
  EXPECT_EQ(budget.used(), 100u);
  budget.Release(40);
  EXPECT_EQ(budget.used(), 60u);
  budget.Release(60);
  EXPECT_EQ(budget.used(), 0u);
}

TEST(MemoryBudgetTest, RefusesBeyondLimitAndChargesNothing) {
  MemoryBudget budget(100);
  EXPECT_FALSE(budget.TryReserve(101));
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_TRUE(budget.TryReserve(70));
  EXPECT_FALSE(budget.TryReserve(31));
  EXPECT_EQ(budget.used(), 70u);
  EXPECT_EQ(budget.peak(), 70u);
  EXPECT_TRUE(budget.TryReserve(30));  // exactly the limit is fine
  EXPECT_FALSE(budget.TryReserve(1));
  budget.Release(50);
  EXPECT_TRUE(budget.TryReserve(50));
}

TEST(MemoryBudgetTest, ZeroBytesAlwaysFit) {
  MemoryBudget budget(0);
  EXPECT_TRUE(budget.TryReserve(0));
  EXPECT_FALSE(budget.TryReserve(1));
  EXPECT_EQ(budget.used(), 0u);
}

TEST(MemoryBudgetTest, PeakIsTheHighWaterMark) {
  MemoryBudget budget(1000);
  ASSERT_TRUE(budget.TryReserve(300));
  ASSERT_TRUE(budget.TryReserve(400));
  EXPECT_EQ(budget.peak(), 700u);
  budget.Release(600);
  EXPECT_EQ(budget.peak(), 700u);
  ASSERT_TRUE(budget.TryReserve(200));
  EXPECT_EQ(budget.used(), 300u);
  EXPECT_EQ(budget.peak(), 700u);
  ASSERT_TRUE(budget.TryReserve(500));
  EXPECT_EQ(budget.peak(), 800u);
  // A refused reservation does not raise the peak.
  EXPECT_FALSE(budget.TryReserve(500));
  EXPECT_EQ(budget.peak(), 800u);
}

TEST(MemoryBudgetTest, HugeRequestIsRefusedWithoutWrapping) {
  // used + bytes must not overflow into a small number that fits.
  MemoryBudget budget(1000);
  ASSERT_TRUE(budget.TryReserve(10));
  EXPECT_FALSE(budget.TryReserve(std::numeric_limits<std::size_t>::max()));
  EXPECT_FALSE(budget.TryReserve(std::numeric_limits<std::size_t>::max() - 5));
  EXPECT_EQ(budget.used(), 10u);
  EXPECT_EQ(budget.peak(), 10u);
}

// ------------------------------------------------------------ in memory

TEST(PayloadTest, DefaultIsEmpty) {
  Payload payload;
  EXPECT_EQ(payload.bytes(), 0u);
  EXPECT_FALSE(payload.on_disk());
  EXPECT_TRUE(payload.memory().empty());
  EXPECT_EQ(payload.file(), nullptr);
}

TEST(PayloadTest, InMemoryHoldsItsData) {
  MemoryBudget budget(100);
  ASSERT_TRUE(budget.TryReserve(3));
  Payload payload = Payload::InMemory(
      {std::byte{1}, std::byte{2}, std::byte{3}}, &budget);
  EXPECT_EQ(payload.bytes(), 3u);
  EXPECT_FALSE(payload.on_disk());
  EXPECT_EQ(payload.memory(),
            (std::vector<std::byte>{std::byte{1}, std::byte{2}, std::byte{3}}));
}

TEST(PayloadTest, InMemoryReleasesBudgetOnDestruction) {
  MemoryBudget budget(100);
  {
    Payload payload = Charged(budget, 40);
    EXPECT_EQ(budget.used(), 40u);
  }
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(budget.peak(), 40u);
}

TEST(PayloadTest, InMemoryWithoutBudget) {
  Payload payload = Payload::InMemory(Bytes(10), nullptr);
  EXPECT_EQ(payload.bytes(), 10u);
}

TEST(PayloadTest, MoveConstructionTransfersTheCharge) {
  MemoryBudget budget(100);
  {
    Payload first = Charged(budget, 30);
    Payload second(std::move(first));
    EXPECT_EQ(second.bytes(), 30u);
    EXPECT_EQ(first.bytes(), 0u);  // NOLINT(bugprone-use-after-move)
    {
      Payload dead(std::move(first));  // NOLINT(bugprone-use-after-move)
    }
    // The moved-from payload released nothing.
    EXPECT_EQ(budget.used(), 30u);
  }
  EXPECT_EQ(budget.used(), 0u);
}

TEST(PayloadTest, MoveAssignmentReleasesTheOverwrittenPayload) {
  MemoryBudget budget(100);
  Payload target = Charged(budget, 20);
  Payload source = Charged(budget, 50);
  ASSERT_EQ(budget.used(), 70u);
  target = std::move(source);
  EXPECT_EQ(budget.used(), 50u);  // the 20 bytes went back
  EXPECT_EQ(target.bytes(), 50u);
  EXPECT_EQ(source.bytes(), 0u);  // NOLINT(bugprone-use-after-move)
  source = Payload();             // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(budget.used(), 50u);
  target = Payload();
  EXPECT_EQ(budget.used(), 0u);
}

TEST(PayloadTest, MoveAssignmentBetweenBudgets) {
  MemoryBudget a(100);
  MemoryBudget b(100);
  Payload target = Charged(a, 10);
  target = Charged(b, 20);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(b.used(), 20u);
  target = Payload();
  EXPECT_EQ(b.used(), 0u);
}

TEST(PayloadTest, SelfMoveAssignmentKeepsTheCharge) {
  MemoryBudget budget(100);
  Payload payload = Charged(budget, 25);
  Payload* alias = &payload;  // hides the self-move from the compiler
  payload = std::move(*alias);
  EXPECT_EQ(payload.bytes(), 25u);
  EXPECT_EQ(budget.used(), 25u);
}

TEST(PayloadTest, PayloadsInAVectorReleaseEverything) {
  MemoryBudget budget(1000);
  {
    std::vector<Payload> payloads;
    for (std::size_t size = 1; size <= 20; ++size)
      payloads.push_back(Charged(budget, size));  // reallocation moves them
    EXPECT_EQ(budget.used(), 210u);
    payloads.erase(payloads.begin() + 2);  // shifting move-assigns
    EXPECT_EQ(budget.used(), 207u);
  }
  EXPECT_EQ(budget.used(), 0u);
}

// ------------------------------------------------------------ on disk

TEST_F(SpillDirTest, OnDiskHoldsItsFile) {
  std::shared_ptr<OwnedFile> file = NewSpillFile("a", 64);
  Payload payload = Payload::OnDisk(file, /*file_id=*/0x1234, 64);
  EXPECT_TRUE(payload.on_disk());
  EXPECT_EQ(payload.bytes(), 64u);
  EXPECT_EQ(payload.file_id(), 0x1234u);
  EXPECT_EQ(payload.file(), file);
  EXPECT_TRUE(payload.memory().empty());
}

TEST_F(SpillDirTest, OnDiskFileUnlinkedWhenPayloadGoes) {
  std::string path;
  {
    Payload payload = Payload::OnDisk(NewSpillFile("b", 10), 1, 10);
    path = payload.file()->path();
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(SpillDirTest, OnDiskFileLivesUntilTheLastHolder) {
  std::shared_ptr<OwnedFile> file = NewSpillFile("c", 10);
  std::string path = file->path();
  auto first = std::make_unique<Payload>(Payload::OnDisk(file, 1, 10));
  auto second = std::make_unique<Payload>(Payload::OnDisk(file, 1, 10));
  // A slave holding the file for a reply is a holder too.
  std::shared_ptr<OwnedFile> reader = file;
  file.reset();
  first.reset();
  EXPECT_TRUE(fs::exists(path));
  second.reset();
  EXPECT_TRUE(fs::exists(path));
  reader.reset();
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(SpillDirTest, OnDiskMoveKeepsTheFile) {
  std::string path;
  {
    Payload first = Payload::OnDisk(NewSpillFile("d", 10), 3, 10);
    path = first.file()->path();
    Payload second(std::move(first));
    EXPECT_FALSE(first.on_disk());  // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(second.on_disk());
    EXPECT_EQ(second.file_id(), 3u);
    {
      Payload dead(std::move(first));  // NOLINT(bugprone-use-after-move)
    }
    EXPECT_TRUE(fs::exists(path));
    Payload third;
    third = std::move(second);
    EXPECT_TRUE(fs::exists(path));
    EXPECT_EQ(third.file_id(), 3u);
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(SpillDirTest, MoveAssignmentUnlinksTheOverwrittenFile) {
  Payload target = Payload::OnDisk(NewSpillFile("e", 10), 1, 10);
  std::string old_path = target.file()->path();
  target = Payload::OnDisk(NewSpillFile("f", 10), 2, 10);
  EXPECT_FALSE(fs::exists(old_path));
  EXPECT_TRUE(fs::exists(target.file()->path()));
  EXPECT_EQ(target.file_id(), 2u);
}

TEST_F(SpillDirTest, DiskPayloadOverMemoryPayloadReleasesBudget) {
  MemoryBudget budget(100);
  Payload payload = Charged(budget, 60);
  payload = Payload::OnDisk(NewSpillFile("g", 10), 1, 10);
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_TRUE(payload.on_disk());
}

TEST_F(SpillDirTest, OwnedFileOfMissingPathIsHarmless) {
  { OwnedFile file(dir_.Child("never-written")); }
  EXPECT_TRUE(fs::is_directory(dir_.path()));
}

}  // namespace
}  // namespace bdmpi
