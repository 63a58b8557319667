// The text that tells an out-of-memory kill (common/oom_kill.h), which the
// master's message about a rank and bdmpiexec's about the master share:
// from given counts and cgroups, so that no kill is needed.
#include "common/oom_kill.h"

#include <gtest/gtest.h>

namespace bdmpi {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

MemoryCgroup V1Cgroup() {
  MemoryCgroup cgroup;
  cgroup.dir = "/sys/fs/cgroup/memory/job";
  cgroup.limit = 48 * kMiB;
  cgroup.limit_file = cgroup.dir + "/memory.limit_in_bytes";
  return cgroup;
}

TEST(OomKillTest, CgroupCountThatGrewNamesItsFileTheLimitAndThePeak) {
  EXPECT_EQ(DescribeOomCounts(V1Cgroup(), {.cgroup = 2, .machine = 5},
                              {.cgroup = 3, .machine = 6}, 47 * kMiB, 0),
            "was killed by the kernel's out-of-memory killer (signal 9, SIGKILL; "
            "oom_kill in /sys/fs/cgroup/memory/job/memory.oom_control went from 2 to 3): "
            "the memory limit is 48.0 MiB (/sys/fs/cgroup/memory/job/memory.limit_in_bytes, "
            "cgroup v1), which the job's cgroup used up to 47.0 MiB");
}

TEST(OomKillTest, V2CgroupNamesMemoryEvents) {
  MemoryCgroup cgroup;
  cgroup.v2 = true;
  cgroup.dir = "/sys/fs/cgroup/job";
  cgroup.limit = 64 * kMiB;
  cgroup.limit_file = cgroup.dir + "/memory.max";
  EXPECT_EQ(DescribeOomCounts(cgroup, {.cgroup = 0, .machine = -1}, {.cgroup = 1, .machine = -1},
                              64 * kMiB, 0),
            "was killed by the kernel's out-of-memory killer (signal 9, SIGKILL; "
            "oom_kill in /sys/fs/cgroup/job/memory.events went from 0 to 1): the memory "
            "limit is 64.0 MiB (/sys/fs/cgroup/job/memory.max, cgroup v2), which the job's "
            "cgroup used up to 64.0 MiB");
}

// A parent's limit: the job's own cgroup's peak is not what that limit
// bounds, so it is not said.
TEST(OomKillTest, LimitOfAParentLeavesThePeakOut) {
  MemoryCgroup cgroup = V1Cgroup();
  cgroup.limit_file = "/sys/fs/cgroup/memory/memory.limit_in_bytes";
  std::string text =
      DescribeOomCounts(cgroup, {.cgroup = 0, .machine = 0}, {.cgroup = 1, .machine = 1},
                        40 * kMiB, 0);
  EXPECT_TRUE(text.ends_with("(/sys/fs/cgroup/memory/memory.limit_in_bytes, cgroup v1)"))
      << text;
}

TEST(OomKillTest, WithoutACgroupTheMachineCountAndMemoryAreSaid) {
  EXPECT_EQ(DescribeOomCounts(MemoryCgroup{}, {.cgroup = -1, .machine = 7},
                              {.cgroup = -1, .machine = 9}, 0, 16ull << 30),
            "was killed by the kernel's out-of-memory killer (signal 9, SIGKILL; "
            "oom_kill in /proc/vmstat went from 7 to 9): no memory cgroup limits this "
            "node; the machine has 16.0 GiB and no swap to spare");
}

// Only the machine's count grew: a kill elsewhere on the machine, told by
// the count that moved.
TEST(OomKillTest, MachineCountNamedWhenTheCgroupsDidNotGrow) {
  std::string text = DescribeOomCounts(V1Cgroup(), {.cgroup = 4, .machine = 10},
                                       {.cgroup = 4, .machine = 11}, 0, 0);
  EXPECT_TRUE(text.starts_with("was killed by the kernel's out-of-memory killer (signal 9, "
                               "SIGKILL; oom_kill in /proc/vmstat went from 10 to 11): the "
                               "memory limit is 48.0 MiB"))
      << text;
  EXPECT_EQ(text.find("used up to"), std::string::npos) << text;
}

TEST(OomKillTest, NoTextWhenNoCountGrew) {
  EXPECT_EQ(DescribeOomCounts(V1Cgroup(), {.cgroup = 3, .machine = 8},
                              {.cgroup = 3, .machine = 8}, 48 * kMiB, 0),
            "");
  // Counts unknown at the start never grew, whatever is read later.
  EXPECT_EQ(DescribeOomCounts(V1Cgroup(), {.cgroup = -1, .machine = -1},
                              {.cgroup = 2, .machine = 2}, 48 * kMiB, 0),
            "");
  EXPECT_FALSE(OomCountsGrew({.cgroup = 1, .machine = 1}, {.cgroup = -1, .machine = -1}));
  EXPECT_TRUE(OomCountsGrew({.cgroup = 1, .machine = 1}, {.cgroup = 1, .machine = 2}));
}

}  // namespace
}  // namespace bdmpi
