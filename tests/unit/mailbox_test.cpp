// MPI matching in one slave's mailbox: which posted receive a new message
// completes, which queued message a new receive takes, and what Probe sees.
#include "master/p2p/mailbox.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "master/memory/payload.h"

namespace bdmpi {
namespace {

// A message whose one-byte payload `marker` tells the test which it is.
Message MakeMessage(int comm, int source, int tag, std::uint8_t marker) {
  Message message;
  message.envelope = Envelope{comm, source, tag};
  message.payload =
      Payload::InMemory(std::vector<std::byte>{std::byte{marker}}, nullptr);
  return message;
}

PostedRecv MakeRecv(std::uint64_t id, int comm, int source, int tag) {
  return PostedRecv{id, comm, source, tag, /*capacity=*/1};
}

// The marker of the message that completed receive `id`; -1 if none.
int TakeMarker(Mailbox& mailbox, std::uint64_t id) {
  std::optional<CompletedRecv> done = mailbox.TakeCompleted(id);
  if (!done) return -1;
  EXPECT_EQ(done->recv.id, id);
  if (done->message.payload.memory().size() != 1) return -2;
  return static_cast<int>(done->message.payload.memory()[0]);
}

// ------------------------------------------------------------ Matches

TEST(MatchesTest, ExactSourceAndTag) {
  Envelope envelope{/*comm=*/3, /*source=*/2, /*tag=*/7};
  EXPECT_TRUE(Matches(MakeRecv(1, 3, 2, 7), envelope));
  EXPECT_FALSE(Matches(MakeRecv(1, 3, 1, 7), envelope));
  EXPECT_FALSE(Matches(MakeRecv(1, 3, 2, 8), envelope));
  EXPECT_FALSE(Matches(MakeRecv(1, 4, 2, 7), envelope));
}

TEST(MatchesTest, Wildcards) {
  Envelope envelope{/*comm=*/3, /*source=*/2, /*tag=*/7};
  EXPECT_TRUE(Matches(MakeRecv(1, 3, kAnySource, 7), envelope));
  EXPECT_TRUE(Matches(MakeRecv(1, 3, 2, kAnyTag), envelope));
  EXPECT_TRUE(Matches(MakeRecv(1, 3, kAnySource, kAnyTag), envelope));
  EXPECT_FALSE(Matches(MakeRecv(1, 3, kAnySource, 8), envelope));
  EXPECT_FALSE(Matches(MakeRecv(1, 3, 1, kAnyTag), envelope));
  // A wildcard never crosses communicators.
  EXPECT_FALSE(Matches(MakeRecv(1, 4, kAnySource, kAnyTag), envelope));
}

// Partitioned sends and receives of one envelope pair by their ordinal:
// a message takes the later-posted receive of its number over the first.
TEST(MailboxTest, OrdinalsPairPartitionedRequests) {
  Mailbox mailbox;
  PostedRecv first = MakeRecv(1, 3, 2, 7);
  PostedRecv second = MakeRecv(2, 3, 2, 7);
  second.ordinal = 1;
  EXPECT_FALSE(mailbox.Post(first));
  EXPECT_FALSE(mailbox.Post(second));
  Message late = MakeMessage(3, 2, 7, 22);
  late.envelope.ordinal = 1;
  EXPECT_EQ(mailbox.Deliver(std::move(late)), std::optional<std::uint64_t>(2));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(3, 2, 7, 11)), std::optional<std::uint64_t>(1));
  EXPECT_EQ(TakeMarker(mailbox, 1), 11);
  EXPECT_EQ(TakeMarker(mailbox, 2), 22);
  // No wildcard takes another ordinal's message, and a queued one waits
  // for its own receive.
  Message queued = MakeMessage(3, 2, 7, 33);
  queued.envelope.ordinal = 1;
  EXPECT_EQ(mailbox.Deliver(std::move(queued)), std::nullopt);
  EXPECT_FALSE(mailbox.Post(MakeRecv(4, 3, kAnySource, kAnyTag)));
  EXPECT_EQ(mailbox.Probe(3, kAnySource, kAnyTag), nullptr);
  PostedRecv own = MakeRecv(5, 3, 2, 7);
  own.ordinal = 1;
  EXPECT_TRUE(mailbox.Post(own));
  EXPECT_EQ(TakeMarker(mailbox, 5), 33);
}

// ------------------------------------------------------------ Deliver / Post

TEST(MailboxTest, MessageWithoutReceiveIsQueued) {
  Mailbox mailbox;
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), std::nullopt);
  EXPECT_EQ(mailbox.queued(), 1u);
  EXPECT_EQ(mailbox.posted(), 0u);
}

TEST(MailboxTest, ReceiveWithoutMessageIsPosted) {
  Mailbox mailbox;
  EXPECT_FALSE(mailbox.Post(MakeRecv(1, 0, 1, 5)));
  EXPECT_EQ(mailbox.posted(), 1u);
  EXPECT_EQ(mailbox.queued(), 0u);
  EXPECT_FALSE(mailbox.IsComplete(1));
}

// Deadlock messages name the source and tag of what a wait waits for.
TEST(MailboxTest, FindPostedGivesPendingReceivesOnly) {
  Mailbox box;
  box.Post(MakeRecv(1, 0, 3, 7));
  box.Post(MakeRecv(2, 0, kAnySource, 8));
  ASSERT_NE(box.FindPosted(1), nullptr);
  EXPECT_EQ(box.FindPosted(1)->source, 3);
  EXPECT_EQ(box.FindPosted(1)->tag, 7);
  EXPECT_EQ(box.FindPosted(2)->source, kAnySource);
  box.Deliver(MakeMessage(0, 3, 7, 4));
  EXPECT_EQ(box.FindPosted(1), nullptr);  // completed
  EXPECT_EQ(box.FindPosted(99), nullptr);
}

TEST(MailboxTest, MessageCompletesPostedReceive) {
  Mailbox mailbox;
  ASSERT_FALSE(mailbox.Post(MakeRecv(42, 0, 1, 5)));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), 42u);
  EXPECT_TRUE(mailbox.IsComplete(42));
  EXPECT_EQ(mailbox.posted(), 0u);
  EXPECT_EQ(mailbox.queued(), 0u);
  EXPECT_EQ(TakeMarker(mailbox, 42), 10);
}

// The word a test of the slave reads instead of asking the master: 1 +
// the completed receives not taken yet, kept through every way in and out.
TEST(MailboxTest, PublishesCompletedReceivesNotTaken) {
  Mailbox mailbox;
  std::atomic<std::uint32_t> word{0};
  mailbox.PublishCompletedTo(&word);
  EXPECT_EQ(word.load(), 1u);
  mailbox.Post(MakeRecv(1, 0, 3, 7));
  mailbox.Post(MakeRecv(2, 0, kAnySource, kAnyTag));
  EXPECT_EQ(word.load(), 1u);  // posted, not complete
  mailbox.Deliver(MakeMessage(0, 3, 7, 10));
  mailbox.Deliver(MakeMessage(0, 4, 8, 11));
  EXPECT_EQ(word.load(), 3u);
  EXPECT_EQ(TakeMarker(mailbox, 1), 10);
  EXPECT_EQ(word.load(), 2u);
  mailbox.Discard(2);
  EXPECT_EQ(word.load(), 1u);
  mailbox.Deliver(MakeMessage(0, 5, 9, 12));  // queued: nothing completes
  EXPECT_EQ(word.load(), 1u);
  mailbox.Post(MakeRecv(3, 0, 5, 9));
  EXPECT_EQ(word.load(), 2u);
  mailbox.CompleteUnposted(4, MakeMessage(0, 6, 1, 13));
  EXPECT_EQ(word.load(), 3u);
}

TEST(MailboxTest, ReceiveTakesQueuedMessage) {
  Mailbox mailbox;
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), std::nullopt);
  EXPECT_TRUE(mailbox.Post(MakeRecv(42, 0, 1, 5)));
  EXPECT_TRUE(mailbox.IsComplete(42));
  EXPECT_EQ(mailbox.queued(), 0u);
  EXPECT_EQ(mailbox.posted(), 0u);
  EXPECT_EQ(TakeMarker(mailbox, 42), 10);
}

TEST(MailboxTest, MessageMatchesFirstPostedReceiveInPostingOrder) {
  Mailbox mailbox;
  // All three accept the message; the first posted must get it.
  ASSERT_FALSE(mailbox.Post(MakeRecv(1, 0, kAnySource, kAnyTag)));
  ASSERT_FALSE(mailbox.Post(MakeRecv(2, 0, 1, 5)));
  ASSERT_FALSE(mailbox.Post(MakeRecv(3, 0, 1, kAnyTag)));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), 1u);
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 11)), 2u);
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 12)), 3u);
  EXPECT_EQ(TakeMarker(mailbox, 1), 10);
  EXPECT_EQ(TakeMarker(mailbox, 2), 11);
  EXPECT_EQ(TakeMarker(mailbox, 3), 12);
}

TEST(MailboxTest, MessageSkipsPostedReceivesThatDoNotAcceptIt) {
  Mailbox mailbox;
  ASSERT_FALSE(mailbox.Post(MakeRecv(1, 0, 2, 5)));  // other source
  ASSERT_FALSE(mailbox.Post(MakeRecv(2, 0, 1, 6)));  // other tag
  ASSERT_FALSE(mailbox.Post(MakeRecv(3, 1, 1, 5)));  // other comm
  ASSERT_FALSE(mailbox.Post(MakeRecv(4, 0, 1, 5)));
  ASSERT_FALSE(mailbox.Post(MakeRecv(5, 0, 1, 5)));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), 4u);
  EXPECT_EQ(mailbox.posted(), 4u);
  EXPECT_FALSE(mailbox.IsComplete(1));
  EXPECT_FALSE(mailbox.IsComplete(2));
  EXPECT_FALSE(mailbox.IsComplete(3));
  EXPECT_FALSE(mailbox.IsComplete(5));
}

TEST(MailboxTest, ReceiveTakesFirstQueuedMessageInArrivalOrder) {
  Mailbox mailbox;
  // Different sources and tags, all acceptable to an ANY/ANY receive.
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 3, 9, 10)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 11)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 2, 7, 12)), std::nullopt);
  for (std::uint64_t id = 1; id <= 3; ++id)
    EXPECT_TRUE(mailbox.Post(MakeRecv(id, 0, kAnySource, kAnyTag)));
  EXPECT_EQ(TakeMarker(mailbox, 1), 10);
  EXPECT_EQ(TakeMarker(mailbox, 2), 11);
  EXPECT_EQ(TakeMarker(mailbox, 3), 12);
}

TEST(MailboxTest, ReceiveSkipsQueuedMessagesItDoesNotAccept) {
  Mailbox mailbox;
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 2, 5, 10)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 6, 11)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(1, 1, 5, 12)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 13)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 14)), std::nullopt);
  EXPECT_TRUE(mailbox.Post(MakeRecv(1, 0, 1, 5)));
  EXPECT_EQ(TakeMarker(mailbox, 1), 13);
  EXPECT_EQ(mailbox.queued(), 4u);
  // The skipped ones are still there, in order.
  EXPECT_TRUE(mailbox.Post(MakeRecv(2, 0, kAnySource, kAnyTag)));
  EXPECT_EQ(TakeMarker(mailbox, 2), 10);
}

TEST(MailboxTest, AnySourceTakesWhicheverSourceCameFirst) {
  Mailbox mailbox;
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 4, 5, 10)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 2, 5, 11)), std::nullopt);
  EXPECT_TRUE(mailbox.Post(MakeRecv(1, 0, kAnySource, 5)));
  std::optional<CompletedRecv> done = mailbox.TakeCompleted(1);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->message.envelope.source, 4);
  EXPECT_EQ(done->message.envelope.tag, 5);
  // The posted receive keeps its wildcard; the envelope has the real source.
  EXPECT_EQ(done->recv.source, kAnySource);
}

TEST(MailboxTest, AnyTagTakesWhicheverTagCameFirst) {
  Mailbox mailbox;
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 9, 10)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 3, 11)), std::nullopt);
  EXPECT_TRUE(mailbox.Post(MakeRecv(1, 0, 1, kAnyTag)));
  std::optional<CompletedRecv> done = mailbox.TakeCompleted(1);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->message.envelope.tag, 9);
  EXPECT_EQ(done->recv.tag, kAnyTag);
}

TEST(MailboxTest, AnySourceAnyTagPostedBeforeMessages) {
  Mailbox mailbox;
  ASSERT_FALSE(mailbox.Post(MakeRecv(1, 0, kAnySource, kAnyTag)));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 6, 123, 10)), 1u);
  EXPECT_EQ(TakeMarker(mailbox, 1), 10);
}

TEST(MailboxTest, CommunicatorsNeverMatchEachOther) {
  Mailbox mailbox;
  // Same source and tag on two communicators.
  ASSERT_FALSE(mailbox.Post(MakeRecv(1, 7, kAnySource, kAnyTag)));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(8, 1, 5, 10)), std::nullopt);
  EXPECT_FALSE(mailbox.IsComplete(1));
  EXPECT_EQ(mailbox.queued(), 1u);
  EXPECT_EQ(mailbox.Probe(7, kAnySource, kAnyTag), nullptr);
  EXPECT_FALSE(mailbox.Post(MakeRecv(2, 9, 1, 5)));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(7, 1, 5, 11)), 1u);
  EXPECT_TRUE(mailbox.Post(MakeRecv(3, 8, 1, 5)));
  EXPECT_EQ(TakeMarker(mailbox, 1), 11);
  EXPECT_EQ(TakeMarker(mailbox, 3), 10);
  EXPECT_FALSE(mailbox.IsComplete(2));
}

TEST(MailboxTest, NonOvertakingMessagesQueuedFirst) {
  Mailbox mailbox;
  constexpr int kCount = 20;
  for (int i = 0; i < kCount; ++i)
    ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 3, 5, static_cast<std::uint8_t>(i))),
              std::nullopt);
  for (int i = 0; i < kCount; ++i) {
    std::uint64_t id = 100 + static_cast<std::uint64_t>(i);
    // Alternate exact and wildcard receives: all must see send order.
    int source = i % 2 == 0 ? 3 : kAnySource;
    int tag = i % 3 == 0 ? 5 : kAnyTag;
    EXPECT_TRUE(mailbox.Post(MakeRecv(id, 0, source, tag)));
    EXPECT_EQ(TakeMarker(mailbox, id), i);
  }
  EXPECT_EQ(mailbox.queued(), 0u);
}

TEST(MailboxTest, NonOvertakingReceivesPostedFirst) {
  Mailbox mailbox;
  constexpr int kCount = 20;
  for (int i = 0; i < kCount; ++i)
    ASSERT_FALSE(mailbox.Post(MakeRecv(100 + i, 0, 3, 5)));
  for (int i = 0; i < kCount; ++i)
    EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 3, 5, static_cast<std::uint8_t>(i))),
              100u + i);
  for (int i = 0; i < kCount; ++i) EXPECT_EQ(TakeMarker(mailbox, 100 + i), i);
}

TEST(MailboxTest, NonOvertakingInterleavedWithOtherSources) {
  Mailbox mailbox;
  // Source 1 sends 0, 2, 4, ...; source 2 sends 1, 3, 5, ... (markers), all
  // with one tag. Receives from source 1 see its messages in send order.
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1 + i % 2, 5, static_cast<std::uint8_t>(i))),
              std::nullopt);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(mailbox.Post(MakeRecv(i, 0, 1, 5)));
    EXPECT_EQ(TakeMarker(mailbox, i), 2 * i);
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(mailbox.Post(MakeRecv(10 + i, 0, 2, 5)));
    EXPECT_EQ(TakeMarker(mailbox, 10 + i), 2 * i + 1);
  }
}

// ------------------------------------------------------------ Probe

TEST(MailboxTest, ProbeSeesQueuedMessageWithoutTakingIt) {
  Mailbox mailbox;
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), std::nullopt);
  const Message* seen = mailbox.Probe(0, 1, 5);
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen->envelope.source, 1);
  EXPECT_EQ(seen->envelope.tag, 5);
  EXPECT_EQ(mailbox.queued(), 1u);
  // Probing again sees the same message.
  EXPECT_EQ(mailbox.Probe(0, kAnySource, kAnyTag), seen);
  EXPECT_TRUE(mailbox.Post(MakeRecv(1, 0, 1, 5)));
  EXPECT_EQ(TakeMarker(mailbox, 1), 10);
}

TEST(MailboxTest, ProbeFollowsArrivalOrderAndArguments) {
  Mailbox mailbox;
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 2, 6, 10)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 11)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(1, 1, 5, 12)), std::nullopt);
  const Message* any = mailbox.Probe(0, kAnySource, kAnyTag);
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->payload.memory()[0], std::byte{10});
  const Message* from1 = mailbox.Probe(0, 1, kAnyTag);
  ASSERT_NE(from1, nullptr);
  EXPECT_EQ(from1->payload.memory()[0], std::byte{11});
  const Message* comm1 = mailbox.Probe(1, kAnySource, 5);
  ASSERT_NE(comm1, nullptr);
  EXPECT_EQ(comm1->payload.memory()[0], std::byte{12});
  EXPECT_EQ(mailbox.Probe(0, 3, kAnyTag), nullptr);
  EXPECT_EQ(mailbox.Probe(0, kAnySource, 7), nullptr);
  EXPECT_EQ(mailbox.Probe(2, kAnySource, kAnyTag), nullptr);
}

TEST(MailboxTest, ProbeSeesOnlyUnmatchedMessages) {
  Mailbox mailbox;
  ASSERT_FALSE(mailbox.Post(MakeRecv(1, 0, 1, 5)));
  // Taken by the posted receive: no longer probe-able.
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), 1u);
  EXPECT_EQ(mailbox.Probe(0, 1, 5), nullptr);
  EXPECT_EQ(mailbox.Probe(0, kAnySource, kAnyTag), nullptr);
  // Queued, then matched by a later receive: gone too.
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 11)), std::nullopt);
  ASSERT_NE(mailbox.Probe(0, 1, 5), nullptr);
  ASSERT_TRUE(mailbox.Post(MakeRecv(2, 0, 1, 5)));
  EXPECT_EQ(mailbox.Probe(0, 1, 5), nullptr);
  // A completed but not yet taken receive hides its message as well.
  EXPECT_TRUE(mailbox.IsComplete(2));
  EXPECT_EQ(mailbox.Probe(0, kAnySource, kAnyTag), nullptr);
}

TEST(MailboxTest, ProbeOnEmptyMailbox) {
  Mailbox mailbox;
  EXPECT_EQ(mailbox.Probe(0, kAnySource, kAnyTag), nullptr);
}

// ------------------------------------------------------------ completion

TEST(MailboxTest, TakeCompletedRemoves) {
  Mailbox mailbox;
  ASSERT_FALSE(mailbox.Post(MakeRecv(7, 0, 1, 5)));
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), 7u);
  ASSERT_TRUE(mailbox.IsComplete(7));
  std::optional<CompletedRecv> done = mailbox.TakeCompleted(7);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->recv.id, 7u);
  EXPECT_EQ(done->recv.comm, 0);
  EXPECT_EQ(done->recv.source, 1);
  EXPECT_EQ(done->recv.tag, 5);
  EXPECT_EQ(done->recv.capacity, 1u);
  EXPECT_EQ(done->message.envelope.comm, 0);
  EXPECT_EQ(done->message.payload.bytes(), 1u);
  EXPECT_FALSE(mailbox.IsComplete(7));
  EXPECT_FALSE(mailbox.TakeCompleted(7));
}

TEST(MailboxTest, TakeCompletedOfUnknownOrPendingReceive) {
  Mailbox mailbox;
  EXPECT_FALSE(mailbox.TakeCompleted(1));
  ASSERT_FALSE(mailbox.Post(MakeRecv(1, 0, 1, 5)));
  EXPECT_FALSE(mailbox.IsComplete(1));
  EXPECT_FALSE(mailbox.TakeCompleted(1));
  // Asking did not cancel the receive.
  EXPECT_EQ(mailbox.posted(), 1u);
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), 1u);
}

TEST(MailboxTest, CompletedReceivesAreIndependent) {
  Mailbox mailbox;
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 10)), std::nullopt);
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 6, 11)), std::nullopt);
  ASSERT_TRUE(mailbox.Post(MakeRecv(1, 0, 1, 6)));
  ASSERT_TRUE(mailbox.Post(MakeRecv(2, 0, 1, 5)));
  EXPECT_TRUE(mailbox.IsComplete(1));
  EXPECT_TRUE(mailbox.IsComplete(2));
  // Taken out of order.
  EXPECT_EQ(TakeMarker(mailbox, 2), 10);
  EXPECT_TRUE(mailbox.IsComplete(1));
  EXPECT_EQ(TakeMarker(mailbox, 1), 11);
}

TEST(MailboxTest, MessageReleasesItsBudgetWhenTaken) {
  MemoryBudget budget(100);
  {
    Mailbox mailbox;
    ASSERT_TRUE(budget.TryReserve(10));
    Message message;
    message.envelope = Envelope{0, 1, 5};
    message.payload =
        Payload::InMemory(std::vector<std::byte>(10, std::byte{1}), &budget);
    ASSERT_EQ(mailbox.Deliver(std::move(message)), std::nullopt);
    EXPECT_EQ(budget.used(), 10u);
    ASSERT_TRUE(mailbox.Post(MakeRecv(1, 0, 1, 5)));
    EXPECT_EQ(budget.used(), 10u);
    {
      std::optional<CompletedRecv> done = mailbox.TakeCompleted(1);
      ASSERT_TRUE(done);
      EXPECT_EQ(budget.used(), 10u);
    }
    EXPECT_EQ(budget.used(), 0u);
    // A queued message is released with the mailbox.
    ASSERT_TRUE(budget.TryReserve(20));
    Message queued;
    queued.envelope = Envelope{0, 1, 5};
    queued.payload =
        Payload::InMemory(std::vector<std::byte>(20, std::byte{2}), &budget);
    ASSERT_EQ(mailbox.Deliver(std::move(queued)), std::nullopt);
    EXPECT_EQ(budget.used(), 20u);
  }
  EXPECT_EQ(budget.used(), 0u);
}

// ------------------------------------------------------------ Discard

TEST(MailboxTest, DiscardedPostedReceiveStillTakesItsMessage) {
  // MPI_Request_free of a receive: it keeps its place in the matching order
  // and the message it matches is dropped, not handed to a later receive.
  MemoryBudget budget(100);
  Mailbox mailbox;
  EXPECT_FALSE(mailbox.Post(MakeRecv(1, 0, 2, 5)));
  EXPECT_FALSE(mailbox.Post(MakeRecv(2, 0, 2, 5)));
  mailbox.Discard(1);
  ASSERT_TRUE(budget.TryReserve(1));
  Message first = MakeMessage(0, 2, 5, 11);
  first.payload = Payload::InMemory(std::vector<std::byte>{std::byte{11}}, &budget);
  EXPECT_EQ(mailbox.Deliver(std::move(first)), std::nullopt);
  EXPECT_FALSE(mailbox.IsComplete(1));
  EXPECT_EQ(budget.used(), 0u) << "the discarded message is released";
  EXPECT_EQ(mailbox.posted(), 1u);
  EXPECT_EQ(mailbox.queued(), 0u);
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 2, 5, 22)), std::optional<std::uint64_t>(2));
  EXPECT_EQ(TakeMarker(mailbox, 2), 22);
}

TEST(MailboxTest, DiscardCompletedReceiveDropsItsMessage) {
  Mailbox mailbox;
  ASSERT_EQ(mailbox.Deliver(MakeMessage(0, 1, 3, 7)), std::nullopt);
  EXPECT_TRUE(mailbox.Post(MakeRecv(4, 0, 1, 3)));
  mailbox.Discard(4);
  EXPECT_FALSE(mailbox.IsComplete(4));
  EXPECT_EQ(TakeMarker(mailbox, 4), -1);
  // Unknown ids are ignored.
  mailbox.Discard(99);
  EXPECT_EQ(mailbox.posted(), 0u);
  EXPECT_EQ(mailbox.queued(), 0u);
}

// ------------------------------------------- matched probes, cancellation

TEST(MailboxTest, MatchProbeTakesMessageOutOfMatching) {
  Mailbox mailbox;
  mailbox.Deliver(MakeMessage(0, 1, 3, 7));
  mailbox.Deliver(MakeMessage(0, 2, 4, 8));
  ASSERT_TRUE(mailbox.MatchProbe(/*id=*/5, 0, kAnySource, kAnyTag));
  // Neither a probe nor a wildcard receive sees the probed message again.
  const Message* next = mailbox.Probe(0, kAnySource, kAnyTag);
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->envelope.source, 2);
  EXPECT_TRUE(mailbox.Post(MakeRecv(6, 0, kAnySource, kAnyTag)));
  EXPECT_EQ(TakeMarker(mailbox, 6), 8);
  mailbox.SetCapacity(5, 1);
  EXPECT_EQ(TakeMarker(mailbox, 5), 7);
  EXPECT_FALSE(mailbox.MatchProbe(7, 0, kAnySource, kAnyTag));
}

TEST(MailboxTest, CancelRecvWithdrawsOnlyUnmatchedReceives) {
  Mailbox mailbox;
  mailbox.Post(MakeRecv(1, 0, kAnySource, 3));
  EXPECT_TRUE(mailbox.CancelRecv(1));
  // The message it would have taken goes to the next receive.
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 3, 7)), std::nullopt);
  EXPECT_TRUE(mailbox.Post(MakeRecv(2, 0, 1, 3)));
  EXPECT_FALSE(mailbox.CancelRecv(2));  // matched: not cancelled
  EXPECT_EQ(TakeMarker(mailbox, 2), 7);
  EXPECT_FALSE(mailbox.CancelRecv(99));
}

// ------------------------------------------------------ placed messages

// A receive whose buffer a sender may write into (address != 0).
PostedRecv PlaceableRecv(std::uint64_t id, int source, int tag, std::uint64_t capacity) {
  PostedRecv recv{id, 0, source, tag, capacity};
  recv.address = 0x1000 * id;
  return recv;
}

TEST(MailboxTest, PlacingReservesTheReceiveMpiOrderGives) {
  Mailbox mailbox;
  mailbox.Post(PlaceableRecv(1, kAnySource, kAnyTag, 100));
  mailbox.Post(PlaceableRecv(2, 1, 5, 100));
  std::optional<PostedRecv> recv = mailbox.ReserveForPlacing(Envelope{0, 1, 5}, 100);
  ASSERT_TRUE(recv);
  EXPECT_EQ(recv->id, 1u);  // the first posted, though both accept it
  EXPECT_EQ(recv->address, 0x1000u);
  // Reserved: other messages skip it, and it cannot be cancelled.
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 2, 5, 7)), std::nullopt);  // queued
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 8)), 2u);
  EXPECT_FALSE(mailbox.CancelRecv(1));
  Message placed;
  placed.envelope = Envelope{0, 1, 5};
  placed.payload = Payload::Placed(100);
  EXPECT_TRUE(mailbox.CompleteReserved(1, std::move(placed)));
  std::optional<CompletedRecv> done = mailbox.TakeCompleted(1);
  ASSERT_TRUE(done);
  EXPECT_TRUE(done->message.payload.placed());
  EXPECT_EQ(done->message.payload.bytes(), 100u);
  EXPECT_EQ(mailbox.posted(), 0u);
  EXPECT_EQ(mailbox.queued(), 1u);
}

TEST(MailboxTest, PlacingNeedsTheFirstMatchToTakeTheDataInPlace) {
  Mailbox mailbox;
  // Nothing posted, or the first match cannot take it: no other receive
  // is chosen instead (that would break MPI order).
  EXPECT_FALSE(mailbox.ReserveForPlacing(Envelope{0, 1, 5}, 100));
  mailbox.Post(MakeRecv(1, 0, 1, 5));                 // no address
  mailbox.Post(PlaceableRecv(2, 1, 5, 100));
  EXPECT_FALSE(mailbox.ReserveForPlacing(Envelope{0, 1, 5}, 100));
  EXPECT_TRUE(mailbox.CancelRecv(1));
  EXPECT_FALSE(mailbox.ReserveForPlacing(Envelope{0, 1, 5}, 101));  // too small
  mailbox.Discard(2);
  EXPECT_FALSE(mailbox.ReserveForPlacing(Envelope{0, 1, 5}, 100));  // freed
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 7)), std::nullopt);  // dropped
  EXPECT_EQ(mailbox.posted(), 0u);
}

TEST(MailboxTest, AnUndoneReservationKeepsTheReceiveInItsPlace) {
  Mailbox mailbox;
  mailbox.Post(PlaceableRecv(1, kAnySource, 5, 100));
  mailbox.Post(PlaceableRecv(2, kAnySource, 5, 100));
  ASSERT_TRUE(mailbox.ReserveForPlacing(Envelope{0, 1, 5}, 100));
  mailbox.Unreserve(1);  // the write failed: the message comes the usual way
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 1, 5, 7)), 1u);
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 2, 5, 8)), 2u);
  EXPECT_EQ(TakeMarker(mailbox, 1), 7);
  EXPECT_EQ(TakeMarker(mailbox, 2), 8);
}

TEST(MailboxTest, AReservedReceiveFreedMeanwhileDropsItsMessage) {
  Mailbox mailbox;
  mailbox.Post(PlaceableRecv(1, 1, 5, 100));
  ASSERT_TRUE(mailbox.ReserveForPlacing(Envelope{0, 1, 5}, 100));
  mailbox.Discard(1);
  Message placed;
  placed.envelope = Envelope{0, 1, 5};
  placed.payload = Payload::Placed(100);
  EXPECT_FALSE(mailbox.CompleteReserved(1, std::move(placed)));
  EXPECT_FALSE(mailbox.TakeCompleted(1));
  EXPECT_EQ(mailbox.posted(), 0u);
}

Message SyncMessage(int tag, std::uint8_t marker, int sender, std::uint64_t id) {
  Message message = MakeMessage(0, 1, tag, marker);
  message.sent_by = SentBy{sender, id, /*synchronous=*/true};
  return message;
}

TEST(MailboxTest, MatchingASynchronousMessageNamesItsSender) {
  Mailbox mailbox;
  mailbox.Deliver(SyncMessage(3, 7, /*sender=*/4, /*id=*/11));
  Message buffered = MakeMessage(0, 1, 5, 8);
  buffered.sent_by = SentBy{4, 10, /*synchronous=*/false};
  mailbox.Deliver(std::move(buffered));
  EXPECT_TRUE(mailbox.TakeMatchedSenders().empty());  // queued, not matched
  mailbox.Post(MakeRecv(1, 0, 1, 5));
  EXPECT_TRUE(mailbox.TakeMatchedSenders().empty());  // nobody waits for it
  mailbox.Post(MakeRecv(2, 0, 1, 3));
  std::vector<SentBy> senders = mailbox.TakeMatchedSenders();
  ASSERT_EQ(senders.size(), 1u);
  EXPECT_EQ(senders[0].world_rank, 4);
  EXPECT_EQ(senders[0].id, 11u);
  EXPECT_TRUE(mailbox.TakeMatchedSenders().empty());
  // Matched on arrival (posted receive) and by a matched probe too.
  mailbox.Post(MakeRecv(3, 0, 1, 6));
  mailbox.Deliver(SyncMessage(6, 9, 4, 12));
  mailbox.Deliver(SyncMessage(7, 10, 4, 13));
  mailbox.MatchProbe(4, 0, 1, 7);
  senders = mailbox.TakeMatchedSenders();
  ASSERT_EQ(senders.size(), 2u);
  EXPECT_EQ(senders[0].id, 12u);
  EXPECT_EQ(senders[1].id, 13u);
}

TEST(MailboxTest, AwaitedSynchronousSendCompletesWhenMatched) {
  Mailbox mailbox;
  mailbox.AwaitMatch(AwaitedMatch{21, 0, 2, 3});
  ASSERT_NE(mailbox.FindAwaited(21), nullptr);
  EXPECT_EQ(mailbox.FindAwaited(21)->dest, 2);
  EXPECT_FALSE(mailbox.IsComplete(21));
  EXPECT_TRUE(mailbox.Matched(21));
  EXPECT_TRUE(mailbox.IsComplete(21));
  EXPECT_EQ(mailbox.FindAwaited(21), nullptr);
  EXPECT_TRUE(mailbox.TakeCompleted(21).has_value());
  EXPECT_FALSE(mailbox.Matched(21));  // told twice: ignored
  // Freed before its match: nothing is kept for it.
  mailbox.AwaitMatch(AwaitedMatch{22, 0, 2, 3});
  mailbox.Discard(22);
  EXPECT_FALSE(mailbox.Matched(22));
  EXPECT_FALSE(mailbox.IsComplete(22));
  // Cancelled: forgotten.
  mailbox.AwaitMatch(AwaitedMatch{23, 0, 2, 3});
  mailbox.ForgetAwaited(23);
  EXPECT_EQ(mailbox.FindAwaited(23), nullptr);
}

TEST(MailboxTest, WithdrawMessageTakesOnlyThatSendersUnmatchedMessage) {
  Mailbox mailbox;
  mailbox.Deliver(SyncMessage(3, 7, 4, 11));
  mailbox.Deliver(SyncMessage(3, 8, 5, 11));
  EXPECT_FALSE(mailbox.WithdrawMessage(4, 12));
  EXPECT_TRUE(mailbox.WithdrawMessage(4, 11));
  EXPECT_FALSE(mailbox.WithdrawMessage(4, 11));
  EXPECT_FALSE(mailbox.WithdrawMessage(5, 0));  // id 0: not cancellable
  EXPECT_TRUE(mailbox.Post(MakeRecv(1, 0, kAnySource, kAnyTag)));
  EXPECT_EQ(TakeMarker(mailbox, 1), 8);
}

// ------------------------------------------------- direct messages

// A receive published in the direct table and told to the master
// (common/direct_table.h).
PostedRecv PublishedRecv(DirectSlot& slot, std::uint64_t id, std::uint64_t seq, int tag) {
  slot.word.store(DirectWord(seq, DirectState::kTold));
  PostedRecv recv = MakeRecv(id, 0, kAnySource, tag);
  recv.slot = &slot;
  recv.seq = seq;
  return recv;
}

TEST(MailboxTest, AReceiveASenderHasIsSkippedAndCompletedByItsNotice) {
  Mailbox mailbox;
  DirectSlot first{}, second{};
  mailbox.Post(PublishedRecv(first, 1, 1, kAnyTag));
  mailbox.Post(PublishedRecv(second, 2, 2, kAnyTag));
  // A sender of the node claimed the first one.
  first.word.store(DirectWord(1, DirectState::kClaimedTold));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 3, 7, 1)), std::optional<std::uint64_t>(2));
  EXPECT_EQ(second.word.load(), DirectWord(2, DirectState::kMaster));
  EXPECT_FALSE(mailbox.CancelRecv(1));
  first.word.store(DirectWord(1, DirectState::kDoneTold));
  EXPECT_TRUE(mailbox.CompleteDirect(1, MakeMessage(0, 4, 7, 9)));
  EXPECT_EQ(TakeMarker(mailbox, 1), 9);
  EXPECT_EQ(TakeMarker(mailbox, 2), 1);
}

TEST(MailboxTest, ACancelledPublishedReceiveIsMarkedSo) {
  Mailbox mailbox;
  DirectSlot slot{};
  mailbox.Post(PublishedRecv(slot, 1, 5, 3));
  EXPECT_TRUE(mailbox.CancelRecv(1));
  EXPECT_EQ(slot.word.load(), DirectWord(5, DirectState::kCancelled));
}

TEST(MailboxTest, AReceiveItsRankPollsIsTheMastersToMatchUntilASenderTakesIt) {
  Mailbox mailbox;
  DirectSlot first{}, second{};
  mailbox.Post(PublishedRecv(first, 1, 1, kAnyTag));
  mailbox.Post(PublishedRecv(second, 2, 2, kAnyTag));
  // Its rank polls both; the master matches the first anyway.
  first.word.store(DirectWord(1, DirectState::kPolling));
  second.word.store(DirectWord(2, DirectState::kPolling));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 3, 7, 1)), std::optional<std::uint64_t>(1));
  EXPECT_EQ(first.word.load(), DirectWord(1, DirectState::kMaster));
  // A sender wrote the second while its rank polled: skipped, then
  // forgotten on the rank's notice, whatever the slot holds by then.
  second.word.store(DirectWord(2, DirectState::kDonePolled));
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 3, 7, 2)), std::nullopt);
  second.word.store(DirectWord(2 + kDirectSlots, DirectState::kTold));
  mailbox.ForgetTaken(2);
  EXPECT_EQ(mailbox.FindPosted(2), nullptr);
  EXPECT_EQ(TakeMarker(mailbox, 1), 1);
  // The message waits for the next receive.
  EXPECT_TRUE(mailbox.Post(MakeRecv(3, 0, kAnySource, kAnyTag)));
  EXPECT_EQ(TakeMarker(mailbox, 3), 2);
}

TEST(MailboxTest, AFreedPublishedReceiveGivesItsSlotBackWhenOver) {
  Mailbox mailbox;
  DirectSlot matched{}, written{}, done{};
  mailbox.Post(PublishedRecv(matched, 1, 1, 5));
  mailbox.Post(PublishedRecv(written, 2, 2, 6));
  mailbox.Post(PublishedRecv(done, 3, 3, 7));
  mailbox.Discard(1);
  mailbox.Discard(2);
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 3, 5, 1)), std::nullopt);
  EXPECT_EQ(matched.word.load(), DirectWord(1, DirectState::kCancelled));
  written.word.store(DirectWord(2, DirectState::kDoneTold));
  EXPECT_FALSE(mailbox.CompleteDirect(2, MakeMessage(0, 3, 6, 2)));
  EXPECT_EQ(written.word.load(), DirectWord(2, DirectState::kCancelled));
  // Completed before it was freed.
  EXPECT_EQ(mailbox.Deliver(MakeMessage(0, 3, 7, 3)), std::optional<std::uint64_t>(3));
  mailbox.Discard(3);
  EXPECT_EQ(done.word.load(), DirectWord(3, DirectState::kCancelled));
}

TEST(MailboxTest, AMatchedOrWithdrawnMessageLeavesItsSendersCount) {
  Mailbox mailbox;
  std::atomic<std::uint32_t> pending{3};
  Message queued = MakeMessage(0, 1, 7, 1);
  queued.pending = &pending;
  mailbox.Deliver(std::move(queued));  // unexpected: still counted
  EXPECT_EQ(pending.load(), 3u);
  EXPECT_TRUE(mailbox.Post(MakeRecv(1, 0, 1, 7)));
  EXPECT_EQ(pending.load(), 2u);
  mailbox.Post(MakeRecv(2, 0, 1, 8));
  Message matched = MakeMessage(0, 1, 8, 2);
  matched.pending = &pending;
  mailbox.Deliver(std::move(matched));
  EXPECT_EQ(pending.load(), 1u);
  Message withdrawn = SyncMessage(0, 9, 1, 11);
  withdrawn.pending = &pending;
  mailbox.Deliver(std::move(withdrawn));
  EXPECT_TRUE(mailbox.WithdrawMessage(1, 11));
  EXPECT_EQ(pending.load(), 0u);
}

}  // namespace
}  // namespace bdmpi
