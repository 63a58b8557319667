// The slave's one choice of a send's path (src/slave/p2p/send_path.*):
// each row of the table in docs/data-path.md, "Paths", and the way back
// from a path that turns out closed.
#include "slave/p2p/send_path.h"

#include <gtest/gtest.h>

#include "common/protocol.h"

namespace bdmpi {
namespace {

constexpr std::uint64_t kWindow = 64 * 1024;

SendSettings Everything() {
  SendSettings settings;
  settings.window = kWindow;
  settings.memory_payloads = true;
  settings.lending = true;
  settings.placing = true;
  settings.place_min_bytes = kWindow + 1;
  return settings;
}

SendFacts Facts(std::uint64_t bytes, SendKind kind) {
  SendFacts facts;
  facts.bytes = bytes;
  facts.kind = kind;
  return facts;
}

SendPath PathOf(const SendFacts& facts, const SendSettings& settings = Everything()) {
  return ChooseSendPath(facts, settings).path;
}

TEST(SendPathTest, SmallPayloadsGoBySizeWhateverTheKind) {
  for (SendKind kind : {SendKind::kStandard, SendKind::kMatchNotice, SendKind::kCollective,
                        SendKind::kCollectiveBlock, SendKind::kRequestData}) {
    EXPECT_EQ(PathOf(Facts(0, kind)), SendPath::kEmpty);
    EXPECT_EQ(PathOf(Facts(1, kind)), SendPath::kInline);
    EXPECT_EQ(PathOf(Facts(kInlinePayloadMax, kind)), SendPath::kInline);
    EXPECT_EQ(PathOf(Facts(kInlinePayloadMax + 1, kind)), SendPath::kWindow);
    EXPECT_EQ(PathOf(Facts(kWindow, kind)), SendPath::kWindow);
  }
}

TEST(SendPathTest, AStandardSendAboveTheWindowAsksToBePlaced) {
  SendChoice choice = ChooseSendPath(Facts(kWindow + 1, SendKind::kStandard), Everything());
  EXPECT_EQ(choice.path, SendPath::kPlaced);
  EXPECT_EQ(choice.reason, SendReason::kReceiveMayBePosted);
  EXPECT_FALSE(choice.skipped_placing);
  // Refused (or the write failed): a segment, else a spill file.
  SendFacts facts = Facts(kWindow + 1, SendKind::kStandard);
  facts.place_refused = true;
  EXPECT_EQ(PathOf(facts), SendPath::kSegment);
  facts.no_free_segment = true;
  EXPECT_EQ(PathOf(facts), SendPath::kSpill);
}

TEST(SendPathTest, PlacingNeedsAStandardSendToThisNodeWhilePlacingIsOn) {
  EXPECT_EQ(PathOf(Facts(kWindow + 1, SendKind::kMatchNotice)), SendPath::kSegment);
  EXPECT_EQ(PathOf(Facts(kWindow + 1, SendKind::kCollective)), SendPath::kSegment);
  EXPECT_EQ(PathOf(Facts(kWindow + 1, SendKind::kRequestData)), SendPath::kSegment);
  SendFacts remote = Facts(kWindow + 1, SendKind::kStandard);
  remote.dest_on_node = false;
  EXPECT_EQ(PathOf(remote), SendPath::kSegment);
  SendSettings off = Everything();
  off.placing = false;
  EXPECT_EQ(PathOf(Facts(kWindow + 1, SendKind::kStandard), off), SendPath::kSegment);
  // --placed-messages with a size: the smallest placed.
  SendSettings from_1m = Everything();
  from_1m.place_min_bytes = 1 << 20;
  EXPECT_EQ(PathOf(Facts((1 << 20) - 1, SendKind::kStandard), from_1m), SendPath::kSegment);
  EXPECT_EQ(PathOf(Facts(1 << 20, SendKind::kStandard), from_1m), SendPath::kPlaced);
}

TEST(SendPathTest, BackingOffSkipsThePlacementAndSaysSo) {
  SendFacts facts = Facts(kWindow + 1, SendKind::kStandard);
  facts.place_backing_off = true;
  SendChoice choice = ChooseSendPath(facts, Everything());
  EXPECT_EQ(choice.path, SendPath::kSegment);
  EXPECT_EQ(choice.reason, SendReason::kPlaceBackingOff);
  EXPECT_TRUE(choice.skipped_placing);
  // Only a send that would have been placed uses up a skip.
  SendFacts small = Facts(kWindow, SendKind::kStandard);
  small.place_backing_off = true;
  EXPECT_FALSE(ChooseSendPath(small, Everything()).skipped_placing);
  SendFacts remote = facts;
  remote.dest_on_node = false;
  EXPECT_FALSE(ChooseSendPath(remote, Everything()).skipped_placing);
}

TEST(SendPathTest, ACollectivesBlockAboveTheWindowIsLentOnThisNode) {
  SendChoice choice = ChooseSendPath(Facts(kWindow + 1, SendKind::kCollectiveBlock), Everything());
  EXPECT_EQ(choice.path, SendPath::kLent);
  EXPECT_EQ(choice.reason, SendReason::kBlockStaysPut);
  SendFacts remote = Facts(kWindow + 1, SendKind::kCollectiveBlock);
  remote.dest_on_node = false;
  EXPECT_EQ(PathOf(remote), SendPath::kSegment);
  SendFacts unreadable = Facts(kWindow + 1, SendKind::kCollectiveBlock);
  unreadable.unreadable = true;
  EXPECT_EQ(PathOf(unreadable), SendPath::kSegment);
  SendSettings no_lending = Everything();
  no_lending.lending = false;
  EXPECT_EQ(PathOf(Facts(kWindow + 1, SendKind::kCollectiveBlock), no_lending),
            SendPath::kSegment);
  // A standard send is never lent: its buffer is the program's again at once.
  SendFacts refused = Facts(kWindow + 1, SendKind::kStandard);
  refused.place_refused = true;
  EXPECT_NE(PathOf(refused), SendPath::kLent);
}

TEST(SendPathTest, WithoutAMemoryDirectoryLargePayloadsSpill) {
  SendSettings no_memory = Everything();
  no_memory.memory_payloads = false;
  SendChoice choice = ChooseSendPath(Facts(kWindow + 1, SendKind::kMatchNotice), no_memory);
  EXPECT_EQ(choice.path, SendPath::kSpill);
  EXPECT_EQ(choice.reason, SendReason::kNoMemoryDirectory);
  SendFacts busy = Facts(kWindow + 1, SendKind::kRequestData);
  busy.no_free_segment = true;
  choice = ChooseSendPath(busy, Everything());
  EXPECT_EQ(choice.path, SendPath::kSpill);
  EXPECT_EQ(choice.reason, SendReason::kNoFreeSegment);
}

TEST(SendPathTest, EveryPathAndReasonHasAName) {
  for (SendPath path : {SendPath::kEmpty, SendPath::kInline, SendPath::kWindow, SendPath::kPlaced,
                        SendPath::kLent, SendPath::kSegment, SendPath::kSpill})
    EXPECT_STRNE(SendPathName(path), "?");
  for (int reason = 0; reason <= static_cast<int>(SendReason::kNoFreeSegment); ++reason)
    EXPECT_STRNE(SendReasonText(static_cast<SendReason>(reason)), "?");
}


// A small standard send to this node first tries the receiver's published
// receives; refused, or not standard, or too large, it goes by size.
TEST(SendPathTest, ASmallStandardSendToThisNodeTriesTheDirectPathFirst) {
  SendSettings settings = Everything();
  settings.direct = true;
  settings.direct_max_bytes = 4096;
  EXPECT_EQ(PathOf(Facts(8, SendKind::kStandard), settings), SendPath::kDirect);
  EXPECT_EQ(PathOf(Facts(4096, SendKind::kStandard), settings), SendPath::kDirect);
  EXPECT_EQ(PathOf(Facts(4097, SendKind::kStandard), settings), SendPath::kWindow);
  EXPECT_EQ(PathOf(Facts(8, SendKind::kMatchNotice), settings), SendPath::kInline);
  SendFacts refused = Facts(8, SendKind::kStandard);
  refused.direct_refused = true;
  EXPECT_EQ(PathOf(refused, settings), SendPath::kInline);
  SendFacts elsewhere = Facts(8, SendKind::kStandard);
  elsewhere.dest_on_node = false;
  EXPECT_EQ(PathOf(elsewhere, settings), SendPath::kInline);
  // Off by default (and with --direct-max 0).
  EXPECT_EQ(PathOf(Facts(8, SendKind::kStandard)), SendPath::kInline);
}

}  // namespace
}  // namespace bdmpi
