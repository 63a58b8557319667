// Communicator splits as every master computes them (src/master/comm/split.h),
// and the job-wide communicator ids (CommId in src/common/protocol.h).
#include "master/comm/split.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/error.h"

namespace bdmpi {
namespace {

SplitEntry Entry(int rank, int color, int key, int world_rank, std::uint32_t creation = 1) {
  SplitEntry entry;
  entry.rank = rank;
  entry.color = color;
  entry.key = key;
  entry.world_rank = world_rank;
  entry.creation = creation;
  return entry;
}

std::vector<int> Ranks(const PlannedComm& comm) {
  std::vector<int> ranks;
  for (const SplitEntry* member : comm.members) ranks.push_back(member->rank);
  return ranks;
}

TEST(SplitTest, ColorsKeysAndTies) {
  // Parent ranks 0..5 (world ranks 10..15): colors 1,0,1,undefined,0,1.
  std::vector<SplitEntry> entries = {
      Entry(0, 1, 5, 10), Entry(1, 0, 0, 11), Entry(2, 1, 5, 12),
      Entry(3, kUndefinedColor, 0, 13), Entry(4, 0, -1, 14), Entry(5, 1, 2, 15)};
  std::vector<PlannedComm> comms = PlanSplit(entries, 64);
  ASSERT_EQ(comms.size(), 2u);
  EXPECT_EQ(comms[0].color, 0);
  EXPECT_EQ(Ranks(comms[0]), (std::vector<int>{4, 1}));  // key -1 before key 0
  EXPECT_EQ(comms[1].color, 1);
  // Key 2 first; equal keys keep the parent's order.
  EXPECT_EQ(Ranks(comms[1]), (std::vector<int>{5, 0, 2}));
  // Each is named by its lowest world rank and that rank's creation count.
  EXPECT_EQ(comms[0].id, CommId(11, 1, 64));
  EXPECT_EQ(comms[1].id, CommId(10, 1, 64));
}

TEST(SplitTest, InputOrderDoesNotMatter) {
  // Masters gather the entries in node order; the plan must not depend on it.
  std::vector<SplitEntry> a = {Entry(0, 0, 3, 0), Entry(1, 0, 1, 1), Entry(2, 0, 2, 2)};
  std::vector<SplitEntry> b = {a[2], a[0], a[1]};
  std::vector<PlannedComm> pa = PlanSplit(a, 3), pb = PlanSplit(b, 3);
  ASSERT_EQ(pa.size(), 1u);
  ASSERT_EQ(pb.size(), 1u);
  EXPECT_EQ(Ranks(pa[0]), Ranks(pb[0]));
  EXPECT_EQ(pa[0].id, pb[0].id);
}

TEST(SplitTest, AllUndefinedMakesNothing) {
  std::vector<SplitEntry> entries = {Entry(0, kUndefinedColor, 0, 0)};
  EXPECT_TRUE(PlanSplit(entries, 1).empty());
}

TEST(SplitTest, CommIdsAreUniqueAndWorldIsZero) {
  std::set<std::int32_t> ids = {kWorldCommId};
  const int world_size = 7;
  for (int leader = 0; leader < world_size; ++leader) {
    for (std::uint64_t creation = 0; creation < 50; ++creation) {
      EXPECT_TRUE(ids.insert(CommId(leader, creation, world_size)).second)
          << leader << " " << creation;
    }
  }
  EXPECT_EQ(CommId(0, 0, 1), 1);  // rank 0's MPI_COMM_SELF
  EXPECT_EQ(CommId(0, std::uint64_t{1} << 40, 4), -1);
}

TEST(SplitTest, IdOverflowIsAnError) {
  std::vector<SplitEntry> entries = {Entry(0, 0, 0, 3, 0xffffffffu)};
  EXPECT_THROW(PlanSplit(entries, 1024), Error);
}

}  // namespace
}  // namespace bdmpi
