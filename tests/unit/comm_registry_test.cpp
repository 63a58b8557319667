// The master's communicator registry: the predefined communicators of a
// node and its tag channels for communicators spanning nodes.
#include "master/comm/comm_registry.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/error.h"
#include "common/protocol.h"

namespace bdmpi {
namespace {

// Node 1 of 2, three slaves each: world ranks 3, 4, 5 are local.
constexpr int kNode = 1, kSlaves = 3, kNodes = 2;

TEST(CommRegistryTest, RegistersThePredefinedCommunicators) {
  CommRegistry comms(kNode, RankLayout(kSlaves * kNodes, kNodes));
  const MasterComm& world = comms.Get(kWorldCommId);
  EXPECT_EQ(world.world_ranks, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(world.local_ranks, (std::vector<int>{3, 4, 5}));
  EXPECT_TRUE(world.spans_nodes);
  EXPECT_EQ(world.channel, 0);
  // BDMPI_COMM_CWORLD numbers ranks cyclically across nodes, on channel 1.
  const MasterComm& cworld = comms.Get(CworldCommId(6));
  EXPECT_EQ(cworld.world_ranks, (std::vector<int>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(cworld.local_ranks, (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(cworld.channel, 1);
  const MasterComm& node = comms.Get(NodeCommId(3, 6));
  EXPECT_EQ(node.world_ranks, (std::vector<int>{3, 4, 5}));
  EXPECT_FALSE(node.spans_nodes);
  EXPECT_EQ(node.channel, -1);
  const MasterComm& self = comms.Get(CommId(4, 0, 6));
  EXPECT_EQ(self.world_ranks, (std::vector<int>{4}));
  // A collective twin finds its communicator; only exact ids are found.
  EXPECT_EQ(&comms.Get(CollectiveCommId(kWorldCommId)), &world);
  EXPECT_EQ(comms.Find(CollectiveCommId(kWorldCommId)), nullptr);
  EXPECT_THROW(comms.Get(12345), Error);
  EXPECT_EQ(comms.NodeOf(4), 1);
  EXPECT_EQ(comms.WorldSize(), 6);
}

TEST(CommRegistryTest, ChannelsAreReusedOnceFreedAndLimited) {
  CommRegistry comms(kNode, RankLayout(kSlaves * kNodes, kNodes));
  // 0 and 1 belong to MPI_COMM_WORLD and BDMPI_COMM_CWORLD.
  int channel = comms.AllocateChannel(4);
  EXPECT_EQ(channel, 2);
  const MasterComm& added = comms.Add(100, {0, 3}, {{0, 5}, {1, channel}});
  EXPECT_TRUE(added.spans_nodes);
  EXPECT_EQ(added.channel, channel);
  EXPECT_EQ(added.group->channels, (std::vector<int>{5, channel}));
  EXPECT_EQ(comms.AllocateChannel(4), 3);
  EXPECT_THROW(comms.AllocateChannel(4), Error);
  comms.Erase(100);  // frees its channel
  EXPECT_EQ(comms.Find(100), nullptr);
  EXPECT_EQ(comms.AllocateChannel(4), 2);
  EXPECT_THROW(comms.Add(kWorldCommId, {0}), Error);
}

TEST(CommRegistryTest, AnUnevenLayoutGivesEachNodeItsBlock) {
  // -n 7 on 3 nodes: 0-2 on node 0, 3-4 on node 1 (this one), 5-6 on node 2.
  CommRegistry comms(1, RankLayout(7, 3));
  const MasterComm& world = comms.Get(kWorldCommId);
  EXPECT_EQ(world.world_ranks.size(), 7u);
  EXPECT_EQ(world.local_ranks, (std::vector<int>{3, 4}));
  EXPECT_EQ(world.group->nodes, (std::vector<int>{0, 1, 2}));
  const MasterComm& cworld = comms.Get(CworldCommId(7));
  EXPECT_EQ(cworld.world_ranks, (std::vector<int>{0, 3, 5, 1, 4, 6, 2}));
  EXPECT_EQ(cworld.local_ranks, (std::vector<int>{1, 4}));
  const MasterComm& node = comms.Get(NodeCommId(3, 7));
  EXPECT_EQ(node.world_ranks, (std::vector<int>{3, 4}));
  EXPECT_FALSE(node.spans_nodes);
  EXPECT_EQ(comms.Get(CommId(4, 0, 7)).world_ranks, (std::vector<int>{4}));
  EXPECT_EQ(comms.Find(CommId(5, 0, 7)), nullptr);  // node 2's
  EXPECT_EQ(comms.NodeOf(2), 0);
  EXPECT_EQ(comms.NodeOf(5), 2);
  EXPECT_EQ(comms.WorldSize(), 7);
}

}  // namespace
}  // namespace bdmpi
