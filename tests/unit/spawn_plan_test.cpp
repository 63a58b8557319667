// MPI_Comm_spawn's plan (common/spawn_plan.h): the root's commands survive
// the trip to the master with their `host`, `bdmpi_node` and `wdir` fields, bytes
// that are no plan are refused, and a `host` names the node the master
// starts the command's ranks on.
#include "common/spawn_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"

namespace bdmpi {
namespace {

SpawnPlan TwoCommands() {
  SpawnPlan plan;
  SpawnCommand first;
  first.command = "./worker";
  first.args = {"-n", "", "last arg"};
  first.maxprocs = 3;
  first.host = "node-b";
  SpawnCommand second;
  second.command = "/bin/other";
  second.maxprocs = 2;
  second.node = 1;
  second.wdir = "/data/run 2";
  plan.commands = {first, second};
  return plan;
}

TEST(SpawnPlanTest, HostNodeAndWdirSurviveTheRoundTrip) {
  SpawnPlan plan = TwoCommands();
  std::vector<std::byte> bytes = plan.Encode();
  SpawnPlan back = SpawnPlan::Decode(bytes.data(), bytes.size());
  ASSERT_EQ(back.commands.size(), 2u);
  EXPECT_EQ(back.commands[0].host, "node-b");
  EXPECT_EQ(back.commands[0].node, -1);
  EXPECT_EQ(back.commands[0].command, "./worker");
  EXPECT_EQ(back.commands[0].args, (std::vector<std::string>{"-n", "", "last arg"}));
  EXPECT_EQ(back.commands[0].maxprocs, 3);
  EXPECT_EQ(back.commands[1].host, "");
  EXPECT_EQ(back.commands[1].node, 1);
  EXPECT_EQ(back.commands[0].wdir, "");
  EXPECT_EQ(back.commands[1].wdir, "/data/run 2");
  EXPECT_TRUE(back.commands[1].args.empty());
  EXPECT_EQ(back.TotalRanks(), 5);
}

TEST(SpawnPlanTest, CutOrGarbledBytesAreRefused) {
  std::vector<std::byte> bytes = TwoCommands().Encode();
  // Every cut inside the plan loses a field or its terminator.
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    try {
      SpawnPlan::Decode(bytes.data(), cut);
      ADD_FAILURE() << "a plan cut to " << cut << " of " << bytes.size() << " bytes was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), kErrArg);
    }
  }
  std::vector<std::byte> garbled = bytes;
  garbled[0] = std::byte{'x'};  // the count of commands
  EXPECT_THROW(SpawnPlan::Decode(garbled.data(), garbled.size()), Error);
}

TEST(SpawnPlanTest, HostNamesItsNode) {
  const std::vector<std::string> hosts = {"node-a", "node-b", "node-a", "node-c"};
  EXPECT_EQ(NodeOfHost("node-c", hosts, 0), 3);
  EXPECT_EQ(NodeOfHost("node-b", hosts, 3), 1);
  // A host of several nodes: the asking node when it is one of them, else
  // the first.
  EXPECT_EQ(NodeOfHost("node-a", hosts, 2), 2);
  EXPECT_EQ(NodeOfHost("node-a", hosts, 1), 0);
  EXPECT_EQ(NodeOfHost("localhost", hosts, 3), 3);
  EXPECT_EQ(NodeOfHost("node-z", hosts, 0), -1);
  EXPECT_EQ(NodeOfHost("", hosts, 0), -1);
  // One node, no network: its own host name.
  EXPECT_EQ(NodeOfHost("solo", {"solo"}, 0), 0);
  EXPECT_EQ(NodeOfHost("localhost", {"solo"}, 0), 0);
}

// A port name carries its job, rank, count, socket tag and TCP endpoint
// there and back;
// a name that is no port, or another job's to ParsePortName, is refused.
TEST(PortNameTest, RoundTripAndRefusals) {
  std::string name = PortName("jt42", 7, 3, 0xfedcba9876543210ull);
  PortAddress port = ParsePort(name);
  EXPECT_EQ(port.job, "jt42");
  EXPECT_EQ(port.rank, 7);
  EXPECT_EQ(port.count, 3u);
  EXPECT_EQ(port.tag, 0xfedcba9876543210ull);
  EXPECT_EQ(ParsePortName(name, "jt42"), (std::uint64_t{7} << 32) | 3);
  // As fgets reads it back from a file.
  EXPECT_EQ(ParsePort(name + "\n").tag, 0xfedcba9876543210ull);
  EXPECT_EQ(ParsePortName(name + " \r\n", "jt42"), (std::uint64_t{7} << 32) | 3);
  EXPECT_EQ(port.tcp, "");
  // With the TCP endpoint of a host that has a network address.
  PortAddress reached = ParsePort(PortName("jt42", 7, 3, 0xff, "10.77.0.2:4321"));
  EXPECT_EQ(reached.tcp, "10.77.0.2:4321");
  EXPECT_EQ(reached.tag, 0xffu);
  for (const char* bad : {"", "bdmpi-port:", "bdmpi-port:jt42:7:3", "bdmpi-port::7:3:ff",
                          "bdmpi-port:jt42:-7:3:ff", "bdmpi-port:jt42:7:3:fg",
                          "bdmpi-port:jt42:7:3:ff:1", "port:jt42:7:3:ff",
                          "bdmpi-port:jt42:7:3:ff:10.0.0:80", "bdmpi-port:jt42:7:3:ff:10.0.0.1:0",
                          "bdmpi-port:jt42:7:3:ff:10.0.0.1:65536"}) {
    try {
      ParsePort(bad);
      ADD_FAILURE() << "'" << bad << "' was taken for a port";
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), kErrPort) << bad;
    }
  }
  try {
    ParsePortName(name, "jt43");
    ADD_FAILURE() << "another job's port was taken for this job's";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), kErrPort);
  }
}

}  // namespace
}  // namespace bdmpi
