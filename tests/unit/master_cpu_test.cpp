// Where a master pins itself (master/sched/master_cpu.h): the masters of one
// host take different processors, one master alone stays where it runs.
#include "master/sched/master_cpu.h"

#include <gtest/gtest.h>

#include <initializer_list>

namespace bdmpi {
namespace {

cpu_set_t Cpus(std::initializer_list<int> cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  return set;
}

TEST(AutoRunningSlotsTest, OneRankPerCoreSharedAmongTheHostsMasters) {
  EXPECT_EQ(AutoRunningSlots(4, 1, 16), 4);
  EXPECT_EQ(AutoRunningSlots(4, 2, 16), 2);  // -nn 2 on one machine
  EXPECT_EQ(AutoRunningSlots(2, 3, 16), 1);  // fewer cores than masters: one each
  EXPECT_EQ(AutoRunningSlots(8, 1, 3), 3);   // never more than the node's ranks
  EXPECT_EQ(AutoRunningSlots(0, 1, 3), 1);   // nothing known: one at a time
  EXPECT_EQ(AutoRunningSlots(2, 0, 0), 1);
}

TEST(MasterCpuTest, AMasterAloneStaysOnItsProcessor) {
  EXPECT_EQ(ChooseMasterCpu(Cpus({0, 1, 2, 3}), 2, -1, -1), 2);  // -nn 1: no local rank
  EXPECT_EQ(ChooseMasterCpu(Cpus({0, 1, 2, 3}), 2, 0, 1), 2);   // one master on this host
}

TEST(MasterCpuTest, TheMastersOfOneHostTakeDifferentProcessors) {
  cpu_set_t two = Cpus({0, 1});
  EXPECT_EQ(ChooseMasterCpu(two, 0, 0, 2), 0);
  EXPECT_EQ(ChooseMasterCpu(two, 0, 1, 2), 1);
  // Round robin over the processors it may use, not all of the machine's.
  cpu_set_t some = Cpus({2, 5, 7});
  EXPECT_EQ(ChooseMasterCpu(some, 0, 0, 4), 2);
  EXPECT_EQ(ChooseMasterCpu(some, 0, 1, 4), 5);
  EXPECT_EQ(ChooseMasterCpu(some, 0, 2, 4), 7);
  EXPECT_EQ(ChooseMasterCpu(some, 0, 3, 4), 2);
  EXPECT_EQ(ChooseMasterCpu(some, 0, 1, -1), 5);  // a local rank, no count
}

TEST(MasterCpuTest, AMasterBoundToOneProcessorStaysThere) {
  // Bound by the launcher (mpirun --bind-to core): nothing to choose.
  EXPECT_EQ(ChooseMasterCpu(Cpus({3}), 3, 1, 2), 3);
}

}  // namespace
}  // namespace bdmpi
