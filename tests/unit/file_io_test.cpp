// The owning descriptor and the positioned full-read/full-write helpers of
// common/file_io.h.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "test_util.h"

namespace bdmpi {
namespace {

using test_util::ScopedTempDir;

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

TEST(UniqueFdTest, ClosesOnDestruction) {
  int raw = -1;
  {
    UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd.valid());
    raw = fd.get();
    EXPECT_TRUE(IsOpen(raw));
  }
  EXPECT_FALSE(IsOpen(raw));
}

TEST(UniqueFdTest, MoveTransfersOwnership) {
  UniqueFd first(open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = first.get();
  UniqueFd second(std::move(first));
  EXPECT_FALSE(first.valid());
  EXPECT_EQ(second.get(), raw);
  UniqueFd third;
  third = std::move(second);
  EXPECT_EQ(third.get(), raw);
  EXPECT_TRUE(IsOpen(raw));
  third.reset();
  EXPECT_FALSE(IsOpen(raw));
}

TEST(UniqueFdTest, ReleaseGivesUpWithoutClosing) {
  UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = fd.release();
  EXPECT_FALSE(fd.valid());
  EXPECT_TRUE(IsOpen(raw));
  close(raw);
}

TEST(OpenFileTest, FailureNamesTheCallAndThePath) {
  ScopedTempDir dir;
  std::string path = dir.Child("missing");
  try {
    OpenFile(path, O_RDONLY | O_CLOEXEC);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "open " + path + ": No such file or directory");
  }
}

TEST(PositionedIoTest, RoundTripAtAnOffset) {
  ScopedTempDir dir;
  UniqueFd fd = OpenFile(dir.Child("f"), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  std::vector<char> data(3 << 20);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  ASSERT_EQ(PwriteFull(fd.get(), data.data(), data.size(), 4096),
            static_cast<ssize_t>(data.size()));
  std::vector<char> back(data.size());
  ReadExactlyAt(fd.get(), back.data(), back.size(), 4096, dir.Child("f"));
  EXPECT_EQ(back, data);
}

TEST(PositionedIoTest, PreadFullStopsAtTheEndOfTheFile) {
  ScopedTempDir dir;
  UniqueFd fd = OpenFile(dir.Child("f"), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_EQ(PwriteFull(fd.get(), "abcdef", 6, 0), 6);
  char back[16] = {};
  EXPECT_EQ(PreadFull(fd.get(), back, sizeof back, 2), 4);
  EXPECT_EQ(std::string(back, 4), "cdef");
  EXPECT_EQ(PreadFull(fd.get(), back, sizeof back, 100), 0);
}

TEST(PositionedIoTest, ReadExactlyAtReportsAnEarlyEnd) {
  ScopedTempDir dir;
  std::string path = dir.Child("short");
  UniqueFd fd = OpenFile(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_EQ(PwriteFull(fd.get(), "abcd", 4, 0), 4);
  char back[8];
  try {
    ReadExactlyAt(fd.get(), back, sizeof back, 0, path);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), kErrIo);
    EXPECT_EQ(std::string(e.what()), "pread " + path + ": the file ends 4 bytes early (at byte 4)");
  }
}

TEST(PositionedIoTest, ErrorsNameTheCallAndThePath) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  char byte = 0;
  // Pipes cannot seek: pread and pwrite fail with ESPIPE.
  EXPECT_EQ(PreadFull(read_end.get(), &byte, 1, 0), -1);
  EXPECT_EQ(errno, ESPIPE);
  try {
    WriteAllAt(write_end.get(), &byte, 1, 0, "the pipe");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "pwrite the pipe: Illegal seek");
  }
}

// A write that the file-size limit cuts short: the first pwrite is short,
// the next fails; PwriteFull continues after the short count and reports the
// failure, with what fitted written.
TEST(PositionedIoTest, PwriteFullContinuesAfterAShortWriteThenReports) {
  ScopedTempDir dir;
  UniqueFd fd = OpenFile(dir.Child("f"), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &old);
  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  rlimit small = saved;
  small.rlim_cur = 10000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::vector<char> data(20000, 'x');
  ssize_t n = PwriteFull(fd.get(), data.data(), data.size(), 0);
  int err = errno;
  setrlimit(RLIMIT_FSIZE, &saved);
  sigaction(SIGXFSZ, &old, nullptr);
  EXPECT_EQ(n, -1);
  EXPECT_EQ(err, EFBIG);
  EXPECT_EQ(lseek(fd.get(), 0, SEEK_END), 10000);
}

}  // namespace
}  // namespace bdmpi
