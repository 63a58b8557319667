// The master's EventWatcher: descriptors it opens are closed on every path,
// including a constructor that fails half-way.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/message_queue.h"
#include "common/protocol.h"
#include "master/launch/event_watcher.h"
#include "test_util.h"

namespace bdmpi {
namespace {

int OpenDescriptors() {
  int count = 0;
  DIR* dir = opendir("/proc/self/fd");
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count - 1;  // the directory's own descriptor
}

// The `n`-th lowest descriptor number that is free now (from 1).
int FreeDescriptor(int n) {
  for (int fd = 0;; ++fd) {
    if (fcntl(fd, F_GETFD) == -1 && --n == 0) return fd;
  }
}

TEST(EventWatcherTest, ClosesWhatItOpenedWhenSignalfdFails) {
#ifdef BDMPI_SANITIZED
  GTEST_SKIP() << "the sanitizers' run-time needs descriptors of its own (a pipe to "
                  "check that memory is readable) while this test leaves none";
#endif
  std::string name = test_util::UniqueIpcName("watcher");
  MessageQueue queue = MessageQueue::Create(name, 4, kRequestMsgSize, false);
  int before = OpenDescriptors();
  // Room for exactly two more descriptors below the limit: the queue the
  // watcher opens and its epoll descriptor. signalfd then fails (EMFILE).
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(FreeDescriptor(2) + 1);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
  std::string what;
  try {
    EventWatcher watcher(name, /*token=*/1);
  } catch (const Error& e) {
    what = e.what();
  }
  setrlimit(RLIMIT_NOFILE, &saved);
  EXPECT_EQ(what, "signalfd: Too many open files");
  EXPECT_EQ(OpenDescriptors(), before);
}

TEST(EventWatcherTest, StartsAndStopsWithoutLeaking) {
  std::string name = test_util::UniqueIpcName("watcher");
  MessageQueue queue = MessageQueue::Create(name, 4, kRequestMsgSize, false);
  int before = OpenDescriptors();
  {
    EventWatcher watcher(name, /*token=*/1);
    watcher.Start();
  }
  EXPECT_EQ(OpenDescriptors(), before);
}

}  // namespace
}  // namespace bdmpi
