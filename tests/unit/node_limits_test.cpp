// What a node's share of a job needs against the host's limits
// (common/node_limits.h): each limit is named with the need and what to
// change, and a share that fits passes.
#include <gtest/gtest.h>

#include <string>

#include "common/node_limits.h"

namespace bdmpi {
namespace {

NodeLimits Roomy() {
  NodeLimits limits;
  limits.shm_bytes = 64ull << 30;
  limits.max_map_count = 1 << 20;
  limits.open_files = 1 << 20;
  limits.processes = -1;
  limits.pid_max = 4 << 20;
  limits.mq_bytes = 1ull << 30;
  limits.queues_max = -1;
  limits.msg_max = 10;
  return limits;
}

HostShare Share(long ranks, long masters = 1) {
  return {(ranks + masters - 1) / masters, masters, ranks};
}

TEST(NodeLimitsTest, AShareThatFitsPasses) {
  EXPECT_EQ(NodeLimitProblems(Share(64), 64 << 10, Roomy()), "");
  EXPECT_EQ(NodeLimitProblems(Share(10000, 4), 64 << 10, Roomy()), "");
}

TEST(NodeLimitsTest, WindowsBeyondSharedMemory) {
  NodeLimits limits = Roomy();
  limits.shm_bytes = 1ull << 30;
  std::string problems = NodeLimitProblems(Share(100000), 64 << 10, limits);
  EXPECT_NE(problems.find("the ranks' windows need 6.1 GiB of shared memory (100000 ranks on "
                          "this host x --mem-threshold 64.0 KiB), more than /dev/shm holds "
                          "(1.0 GiB): lower --mem-threshold"),
            std::string::npos)
      << problems;
  EXPECT_EQ(NodeLimitProblems(Share(16000), 64 << 10, limits), "");
}

TEST(NodeLimitsTest, EachLimitIsNamed) {
  struct Case {
    const char* what;
    void (*tighten)(NodeLimits&);
  };
  const Case cases[] = {
      {"vm.max_map_count (65530)", [](NodeLimits& l) { l.max_map_count = 65530; }},
      {"RLIMIT_NOFILE, 20000", [](NodeLimits& l) { l.open_files = 20000; }},
      {"RLIMIT_NPROC, 4096", [](NodeLimits& l) { l.processes = 4096; }},
      {"kernel.pid_max / threads-max, 32768", [](NodeLimits& l) { l.pid_max = 32768; }},
      {"queues_max (256)", [](NodeLimits& l) { l.queues_max = 256; }},
      {"RLIMIT_MSGQUEUE, 800.0 KiB", [](NodeLimits& l) { l.mq_bytes = 819200; }},
  };
  for (const Case& c : cases) {
    NodeLimits limits = Roomy();
    c.tighten(limits);
    std::string problems = NodeLimitProblems(Share(100000), 64 << 10, limits);
    EXPECT_NE(problems.find(c.what), std::string::npos) << c.what << ": " << problems;
    EXPECT_NE(problems.find("spread them over more nodes (-nn)"), std::string::npos) << problems;
    EXPECT_EQ(problems.find('\n'), std::string::npos) << "one limit, one line: " << problems;
  }
}

// The default message-queue budget (800 KiB) holds about 1400 go-queues:
// the kernel's charge per message is its bytes and 96 of bookkeeping.
TEST(NodeLimitsTest, MessageQueueBytesAsTheKernelCounts) {
  NodeLimits limits = Roomy();
  limits.mq_bytes = 819200;
  EXPECT_EQ(NodeLimitProblems(Share(1300), 64 << 10, limits), "");
  EXPECT_NE(NodeLimitProblems(Share(1500), 64 << 10, limits), "");
}

TEST(NodeLimitsTest, ThisHostsLimitsAreRead) {
  NodeLimits limits = NodeLimits::OfThisHost();
  EXPECT_GT(limits.shm_bytes, 0u);
  EXPECT_GT(limits.pid_max, 0);
  EXPECT_EQ(NodeLimitProblems(Share(2), 64 << 10, limits), "");
}

}  // namespace
}  // namespace bdmpi
