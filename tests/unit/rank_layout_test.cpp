// Where a job's ranks run (common/rank_layout.h): blocks node by node, the
// first N % nn nodes with one more, and BDMPI_COMM_CWORLD's cyclic
// numbering over such a layout.
#include "common/rank_layout.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "common/error.h"

namespace bdmpi {
namespace {

// Every (world size, node count) pair up to 12 ranks.
template <class Check>
void ForEveryLayout(Check check) {
  for (int size = 1; size <= 12; ++size) {
    for (int nnodes = 1; nnodes <= size; ++nnodes) check(RankLayout(size, nnodes));
  }
}

TEST(RankLayoutTest, SevenRanksOnThreeNodesRunThreeTwoAndTwo) {
  RankLayout layout(7, 3);
  EXPECT_EQ(layout.Count(0), 3);
  EXPECT_EQ(layout.Count(1), 2);
  EXPECT_EQ(layout.Count(2), 2);
  EXPECT_EQ(layout.FirstRank(0), 0);
  EXPECT_EQ(layout.FirstRank(1), 3);
  EXPECT_EQ(layout.FirstRank(2), 5);
  EXPECT_EQ(layout.MaxCount(), 3);
  EXPECT_TRUE(layout.uneven());
  std::vector<int> nodes;
  for (int rank = 0; rank < 7; ++rank) nodes.push_back(layout.NodeOf(rank));
  EXPECT_EQ(nodes, (std::vector<int>{0, 0, 0, 1, 1, 2, 2}));
}

TEST(RankLayoutTest, AnEvenLayoutIsRankOverNodeSize) {
  RankLayout layout(12, 4);
  EXPECT_FALSE(layout.uneven());
  for (int rank = 0; rank < 12; ++rank) {
    EXPECT_EQ(layout.NodeOf(rank), rank / 3);
    EXPECT_EQ(layout.CworldRank(rank), (rank % 3) * 4 + rank / 3);
  }
}

TEST(RankLayoutTest, BlocksCoverEveryRankOnceInOrder) {
  ForEveryLayout([](const RankLayout& layout) {
    int next = 0;
    for (int node = 0; node < layout.nnodes(); ++node) {
      EXPECT_EQ(layout.FirstRank(node), next);
      EXPECT_GE(layout.Count(node), 1);
      EXPECT_LE(layout.MaxCount() - layout.Count(node), 1);
      for (int i = 0; i < layout.Count(node); ++i) EXPECT_EQ(layout.NodeOf(next + i), node);
      next += layout.Count(node);
    }
    EXPECT_EQ(next, layout.world_size());
  });
}

TEST(RankLayoutTest, CworldNumbersEveryRankOnceAndBack) {
  ForEveryLayout([](const RankLayout& layout) {
    std::set<int> seen;
    for (int rank = 0; rank < layout.world_size(); ++rank) {
      int cworld = layout.CworldRank(rank);
      EXPECT_GE(cworld, 0);
      EXPECT_LT(cworld, layout.world_size());
      seen.insert(cworld);
      EXPECT_EQ(layout.WorldRankOfCworld(cworld), rank);
    }
    EXPECT_EQ(static_cast<int>(seen.size()), layout.world_size());
  });
}

TEST(RankLayoutTest, CworldGoesRoundTheNodes) {
  // 7 on 3: slave 0 of nodes 0, 1, 2, then slave 1 of each, then node 0's third.
  RankLayout layout(7, 3);
  std::vector<int> world;
  for (int c = 0; c < 7; ++c) world.push_back(layout.WorldRankOfCworld(c));
  EXPECT_EQ(world, (std::vector<int>{0, 3, 5, 1, 4, 6, 2}));
}

TEST(RankLayoutTest, EveryNodeNeedsARank) {
  EXPECT_THROW(RankLayout(2, 3), Error);
  EXPECT_THROW(RankLayout(4, 0), Error);
  EXPECT_NO_THROW(RankLayout(3, 3));
}

// Reserved places for spawned ranks: job ranks world_size onwards, in
// blocks over the nodes too, each node's after its own ranks; every job
// rank has exactly one (node, slot) and back.
TEST(RankLayoutTest, ReservedRanksFollowEachNodesOwnInBlocks) {
  RankLayout layout(5, 2, 12);  // 3 + 2 ranks, 4 + 3 reserved
  EXPECT_EQ(layout.universe_size(), 12);
  EXPECT_EQ(layout.ReservedCount(0), 4);
  EXPECT_EQ(layout.ReservedCount(1), 3);
  EXPECT_EQ(layout.FirstReserved(0), 5);
  EXPECT_EQ(layout.FirstReserved(1), 9);
  EXPECT_EQ(layout.SlotCount(0), 7);
  EXPECT_EQ(layout.NodeOf(8), 0);
  EXPECT_EQ(layout.NodeOf(9), 1);
  EXPECT_EQ(layout.SlotOf(5), 3);
  EXPECT_EQ(layout.SlotOf(9), 2);
  EXPECT_EQ(layout.JobRankOfSlot(1, 4), 11);
  for (int size = 1; size <= 9; ++size) {
    for (int nnodes = 1; nnodes <= size; ++nnodes) {
      for (int extra : {0, 1, nnodes - 1, 7}) {
        RankLayout with(size, nnodes, size + extra);
        std::set<std::pair<int, int>> places;
        for (int rank = 0; rank < size + extra; ++rank) {
          int node = with.NodeOf(rank), slot = with.SlotOf(rank);
          EXPECT_GE(slot, 0);
          EXPECT_LT(slot, with.SlotCount(node));
          EXPECT_EQ(with.JobRankOfSlot(node, slot), rank);
          EXPECT_TRUE(places.insert({node, slot}).second);
          if (rank < size) {
            EXPECT_EQ(slot, rank - with.FirstRank(node));
          }
        }
      }
    }
  }
  EXPECT_THROW(RankLayout(4, 1, 3), Error);
}

}  // namespace
}  // namespace bdmpi
