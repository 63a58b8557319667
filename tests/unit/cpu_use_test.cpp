// The time limit's account of the processors (tools/bdmpiexec/cpu_use.h).
#include "bdmpiexec/cpu_use.h"

#include <gtest/gtest.h>

namespace bdmpi {
namespace {

TEST(CpuUse, ParsesEachProcessorAndSkipsTheSum) {
  CpuTimes times = ParseCpuTimes(
      "cpu  30 0 20 100 4 1 1 2 0 0\n"
      "cpu0 10 5 8 50 2 1 1 2 0 0\n"
      "cpu1 15 0 10 50 2 0 0 0 0 0\n"
      "intr 12345\n");
  ASSERT_EQ(times.size(), 2u);
  // user with nice; system with both interrupt times.
  EXPECT_EQ(times[0][kCpuUser], 15u);
  EXPECT_EQ(times[0][kCpuSystem], 10u);
  EXPECT_EQ(times[0][kCpuIdle], 50u);
  EXPECT_EQ(times[0][kCpuIowait], 2u);
  EXPECT_EQ(times[0][kCpuSteal], 2u);
  EXPECT_EQ(times[1][kCpuSteal], 0u);
}

TEST(CpuUse, GivesEachProcessorsSharesBetweenTwoReadings) {
  CpuTimes before = {{10, 10, 10, 0, 0}, {0, 0, 0, 0, 0}};
  CpuTimes after = {{50, 30, 30, 0, 0}, {0, 0, 100, 0, 0}};
  EXPECT_EQ(DescribeCpuUse(before, after),
            "cpu0 50% user, 25% system, 25% idle, 0% waiting for the disk, 0% stolen; "
            "cpu1 0% user, 0% system, 100% idle, 0% waiting for the disk, 0% stolen");
  // Ticks the hypervisor took count in the whole: 40 + 20 + 20 + 10.
  after[0][kCpuSteal] = 10;
  EXPECT_EQ(DescribeCpuUse(before, after).substr(0, 72),
            "cpu0 44% user, 22% system, 22% idle, 0% waiting for the disk, 11% stolen");
}

TEST(CpuUse, SaysNothingWhenTheReadingsDoNotMatch) {
  EXPECT_EQ(DescribeCpuUse({}, {{1, 1, 1, 1, 1}}), "");
  EXPECT_EQ(DescribeCpuUse({{1, 1, 1, 1, 1}}, {{1, 1, 1, 1, 1}, {2, 2, 2, 2, 2}}), "");
}

}  // namespace
}  // namespace bdmpi
