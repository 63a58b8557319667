// What the master reads of a rank's memory (common/process_memory.h):
// statm's anonymous resident pages, the measure of what the runtime cannot
// page out, follow a mapping the process touches and gives back.
#include "common/process_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>

#include "common/file_io.h"

namespace bdmpi {
namespace {

std::uint64_t AnonymousBytes(int fd) {
  Statm statm;
  EXPECT_TRUE(ReadStatm(fd, statm));
  EXPECT_GE(statm.size, statm.resident);
  EXPECT_GE(statm.resident, statm.shared);
  return statm.anonymous() * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

TEST(ProcessMemoryTest, StatmCountsTouchedAnonymousMemory) {
  UniqueFd fd(open("/proc/self/statm", O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  constexpr std::size_t kBytes = 32 << 20;
  std::uint64_t before = AnonymousBytes(fd.get());
  void* block = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(block, MAP_FAILED);
  // Mapped but untouched: not resident.
  EXPECT_LT(AnonymousBytes(fd.get()), before + kBytes / 2);
  std::memset(block, 1, kBytes);
  // The kernel's counters may lag by a few pages per CPU.
  std::uint64_t touched = AnonymousBytes(fd.get());
  EXPECT_GE(touched, before + kBytes - (1 << 20));
  munmap(block, kBytes);
  EXPECT_LT(AnonymousBytes(fd.get()), touched - kBytes / 2);
}

TEST(ProcessMemoryTest, FilePagesAreNotAnonymous) {
  UniqueFd fd(open("/proc/self/statm", O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  char path[] = "/tmp/bdmpi-statm-XXXXXX";
  UniqueFd file(mkstemp(path));
  ASSERT_TRUE(file);
  unlink(path);
  constexpr std::size_t kBytes = 16 << 20;
  ASSERT_EQ(ftruncate(file.get(), kBytes), 0);
  std::uint64_t before = AnonymousBytes(fd.get());
  auto* mapped = static_cast<char*>(
      mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, file.get(), 0));
  ASSERT_NE(mapped, MAP_FAILED);
  std::memset(mapped, 1, kBytes);  // resident, shared with the file
  EXPECT_LT(AnonymousBytes(fd.get()), before + kBytes / 2);
  munmap(mapped, kBytes);
}

TEST(ProcessMemoryTest, AnUnreadableStatmSaysSo) {
  Statm statm;
  EXPECT_FALSE(ReadStatm(-1, statm));
}

}  // namespace
}  // namespace bdmpi
