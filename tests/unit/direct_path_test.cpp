// The direct table (common/direct_table.h) as two ranks' direct paths use
// it (src/slave/p2p/direct_path.*): which published receive a sender's
// message goes into, and when it must go through the master instead.
// Both "ranks" are this process, which may write into its own memory.
#include "slave/p2p/direct_path.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/coll_engine.h"

namespace bdmpi {
namespace {

constexpr int kComm = 5;
constexpr int kSender = 0;
constexpr int kReceiver = 1;

class DirectPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::size_t bytes = (DirectTable::Bytes(2) + 4095) / 4096 * 4096;
    memory_ = std::aligned_alloc(4096, bytes);
    std::memset(memory_, 0, bytes);
    table_ = DirectTable(memory_, 2);
    sender_.StartWith(table_, kSender, 4096, 0);
    receiver_.StartWith(table_, kReceiver, 4096, 0);
  }
  void TearDown() override { std::free(memory_); }

  std::shared_ptr<DirectRecv> Post(int source, int tag, char* buffer, std::uint64_t capacity,
                                   std::uint64_t id) {
    return receiver_.Post(kComm, source, tag, reinterpret_cast<std::uint64_t>(buffer), capacity,
                          id);
  }
  // A receive of tag 100 (which no test sends) in every slot of the ring,
  // one byte each of `buffers`, ids from `first_id` on.
  std::vector<std::shared_ptr<DirectRecv>> FillRing(char* buffers, std::uint64_t first_id) {
    std::vector<std::shared_ptr<DirectRecv>> posted;
    for (std::uint64_t i = 0; i < kDirectSlots; ++i)
      posted.push_back(Post(kSender, 100, &buffers[i], 1, first_id + i));
    return posted;
  }
  DirectSend Send(const char* text, int tag, std::uint64_t* recv_id = nullptr) {
    std::uint64_t id = 0;
    DirectSend sent =
        sender_.TrySend(text, std::strlen(text) + 1, kComm, kSender, tag, kReceiver, &id);
    if (recv_id != nullptr) *recv_id = id;
    return sent;
  }

  void* memory_ = nullptr;
  DirectTable table_;
  DirectPath sender_;
  DirectPath receiver_;
};

TEST_F(DirectPathTest, GoesIntoTheFirstMatchingReceiveInPostingOrder) {
  char first[16] = {}, second[16] = {};
  auto r1 = Post(kSender, 7, first, sizeof first, 1);
  auto r2 = Post(kSender, 7, second, sizeof second, 2);
  ASSERT_TRUE(r1->published());
  EXPECT_EQ(Send("one", 7), DirectSend::kDone);
  EXPECT_TRUE(receiver_.Written(*r1));
  EXPECT_FALSE(receiver_.Written(*r2));
  EXPECT_EQ(Send("two", 7), DirectSend::kDone);
  DirectStatus status = receiver_.TakeWritten(*r1);
  EXPECT_EQ(status.source, kSender);
  EXPECT_EQ(status.tag, 7);
  EXPECT_EQ(status.bytes, 4u);
  EXPECT_STREQ(first, "one");
  receiver_.TakeWritten(*r2);
  EXPECT_STREQ(second, "two");
  // Nothing posted any more: through the master.
  EXPECT_EQ(Send("three", 7), DirectSend::kNo);
}

// Up to kDirectSlotBytes a message into a receive its rank completes
// itself waits in the slot (no system call) and reaches the buffer when
// the receiver takes it; a larger one is written straight into the buffer.
TEST_F(DirectPathTest, ASmallMessageWaitsInTheSlotALargerOneGoesIntoTheBuffer) {
  std::vector<char> small(kDirectSlotBytes, 's'), large(kDirectSlotBytes + 1, 'l');
  small.back() = '\0';
  large.back() = '\0';
  std::vector<char> in_small(kDirectSlotBytes), in_large(kDirectSlotBytes + 1);
  auto r1 = Post(kSender, 7, in_small.data(), in_small.size(), 1);
  auto r2 = Post(kSender, 7, in_large.data(), in_large.size(), 2);
  EXPECT_EQ(Send(small.data(), 7), DirectSend::kDone);
  EXPECT_EQ(Send(large.data(), 7), DirectSend::kDone);
  EXPECT_EQ(in_small[0], 0);  // still in the slot
  EXPECT_STREQ(in_large.data(), large.data());
  EXPECT_EQ(receiver_.TakeWritten(*r1).bytes, kDirectSlotBytes);
  EXPECT_STREQ(in_small.data(), small.data());
  EXPECT_EQ(receiver_.TakeWritten(*r2).bytes, kDirectSlotBytes + 1);
  EXPECT_STREQ(in_large.data(), large.data());
}

TEST_F(DirectPathTest, SkipsReceivesThatDoNotAcceptTheMessage) {
  char other_tag[16] = {}, other_source[16] = {}, any[16] = {};
  Post(kSender, 9, other_tag, sizeof other_tag, 1);
  Post(3, 7, other_source, sizeof other_source, 2);
  auto wild = Post(-1, -1, any, sizeof any, 3);
  EXPECT_EQ(Send("x", 7), DirectSend::kDone);
  EXPECT_TRUE(receiver_.Written(*wild));
  receiver_.TakeWritten(*wild);
  EXPECT_STREQ(any, "x");
  EXPECT_EQ(other_tag[0], 0);
  EXPECT_EQ(other_source[0], 0);
}

TEST_F(DirectPathTest, TheFirstMatchDecidesEvenWhenItCannotTakeIt) {
  char small[2] = {}, large[16] = {};
  Post(kSender, 7, small, sizeof small, 1);
  Post(kSender, 7, large, sizeof large, 2);
  // The first match is too small: the master truncates it, no later one
  // may take the message.
  EXPECT_EQ(Send("long", 7), DirectSend::kNo);
  EXPECT_EQ(large[0], 0);
}

TEST_F(DirectPathTest, AReceiveWithGapsSendsItsMatchesToTheMaster) {
  char large[16] = {};
  // A receive into a type with gaps (no address) is not written.
  receiver_.Post(kComm, kSender, 7, 0, 64, 1);
  Post(kSender, 7, large, sizeof large, 2);
  EXPECT_EQ(Send("gap", 7), DirectSend::kNo);
  EXPECT_EQ(large[0], 0);
}

TEST_F(DirectPathTest, AnEarlierMessageAtTheMasterKeepsLaterOnesThere) {
  char buffer[16] = {};
  auto recv = Post(kSender, 7, buffer, sizeof buffer, 1);
  RequestMsg request;
  sender_.CountMasterSend(kReceiver, request);
  EXPECT_EQ(request.counted, 1);
  EXPECT_EQ(Send("later", 7), DirectSend::kNo);
  // The master matched the earlier one.
  table_.pending(kSender, kReceiver).fetch_sub(1);
  EXPECT_EQ(Send("later", 7), DirectSend::kDone);
  EXPECT_TRUE(receiver_.Written(*recv));
}

TEST_F(DirectPathTest, NothingIsWrittenIntoARankThatIsNotAccepting) {
  char buffer[16] = {};
  auto recv = Post(kSender, 7, buffer, sizeof buffer, 1);
  receiver_.StopAccepting();
  EXPECT_EQ(Send("no", 7), DirectSend::kNo);
  EXPECT_EQ(table_.rank(kReceiver).writers.load(), 0u);
  receiver_.Accept();
  EXPECT_EQ(Send("yes", 7), DirectSend::kDone);
  receiver_.TakeWritten(*recv);
  EXPECT_STREQ(buffer, "yes");
}

TEST_F(DirectPathTest, AToldReceiveIsCompletedByTheMaster) {
  std::vector<char> buffer(2000), message(1500, 'm');
  message.back() = '\0';
  auto small = Post(kSender, 7, buffer.data(), buffer.size(), 41);
  auto recv = Post(kSender, 7, buffer.data(), buffer.size(), 42);
  ASSERT_TRUE(receiver_.Tell(*small));
  ASSERT_TRUE(receiver_.Tell(*recv));
  // Up to a KiB the message waits in the slot: the master hands it over.
  std::uint64_t id = 0;
  EXPECT_EQ(Send("told", 7, &id), DirectSend::kDoneTold);
  EXPECT_EQ(id, 41u);
  const DirectSlot& slot = table_.rank(kReceiver).slots[small->slot];
  EXPECT_EQ(slot.sent_in_slot.load(), 1u);
  EXPECT_EQ(slot.sent_bytes.load(), 5u);
  EXPECT_STREQ(buffer.data(), "");
  // A larger one is written into the buffer.
  EXPECT_EQ(Send(message.data(), 7, &id), DirectSend::kDoneTold);
  EXPECT_EQ(id, 42u);
  EXPECT_STREQ(buffer.data(), message.data());
  // The receiver collects them from the master, not from their slots.
  EXPECT_FALSE(receiver_.Written(*small));
  EXPECT_FALSE(receiver_.Written(*recv));
  EXPECT_EQ(table_.rank(kReceiver).slots[recv->slot].word.load(),
            DirectWord(recv->seq, DirectState::kDoneTold));
}

TEST_F(DirectPathTest, AToldReceiveItsRankPollsForTakesAnyMessageWithoutANotice) {
  DirectPath polling;
  polling.StartWith(table_, kReceiver, 4096, 10'000'000'000ull);  // polls up to 10 s
  char buffer[16] = {};
  auto recv = polling.Post(kComm, kSender, 7, reinterpret_cast<std::uint64_t>(buffer),
                           sizeof buffer, 42);
  ASSERT_TRUE(polling.Tell(*recv));
  // An inline-sized one too: the receiver waits here, not at the master.
  std::thread sender([&] {
    while (DirectStateOf(table_.rank(kReceiver).slots[recv->slot].word.load()) !=
           DirectState::kPolling)
      std::this_thread::yield();
    EXPECT_EQ(Send("polled", 7), DirectSend::kDone);
  });
  EXPECT_TRUE(polling.PollTold(*recv, kSender));
  sender.join();
  DirectStatus status = polling.TakeWritten(*recv);
  EXPECT_STREQ(buffer, "polled");
  EXPECT_EQ(status.tag, 7);
  EXPECT_EQ(status.bytes, 7u);
  EXPECT_EQ(table_.rank(kReceiver).slots[recv->slot].word.load(),
            DirectWord(recv->seq, DirectState::kFree));
}

TEST_F(DirectPathTest, AToldReceiveNobodyWritesGoesBackToTheMaster) {
  DirectPath polling;
  polling.StartWith(table_, kReceiver, 4096, 1000);  // 1 µs
  char buffer[16] = {};
  auto recv = polling.Post(kComm, kSender, 7, reinterpret_cast<std::uint64_t>(buffer),
                           sizeof buffer, 42);
  ASSERT_TRUE(polling.Tell(*recv));
  EXPECT_FALSE(polling.PollTold(*recv, kSender));
  auto& word = table_.rank(kReceiver).slots[recv->slot].word;
  EXPECT_EQ(word.load(), DirectWord(recv->seq, DirectState::kTold));
  // Matched by the master meanwhile: polling finds it the master's at once.
  word.store(DirectWord(recv->seq, DirectState::kMaster));
  EXPECT_FALSE(polling.PollTold(*recv, kSender));
  EXPECT_EQ(word.load(), DirectWord(recv->seq, DirectState::kMaster));
  // Without polling (-nr 1) a told receive is never polled.
  word.store(DirectWord(recv->seq, DirectState::kTold));
  EXPECT_FALSE(receiver_.PollTold(*recv, kSender));
  EXPECT_EQ(word.load(), DirectWord(recv->seq, DirectState::kTold));
}

// A rank spins for its message only while that costs nobody a core: it
// stops as soon as the master says a rank waits for a running slot, or the
// message it waits for is queued at the master (its sender's earlier one
// went there), well before its 10 s bound.
TEST_F(DirectPathTest, ASpinStopsWhenARankWantsASlotOrTheMessageWaitsAtTheMaster) {
  DirectPath polling;
  polling.StartWith(table_, kReceiver, 4096, 10'000'000'000ull);
  char buffer[16] = {};
  auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 2; ++round) {
    auto recv = polling.Post(kComm, kSender, 7, reinterpret_cast<std::uint64_t>(buffer),
                             sizeof buffer, 42 + static_cast<std::uint64_t>(round));
    ASSERT_TRUE(polling.Tell(*recv));
    auto& word = table_.rank(kReceiver).slots[recv->slot].word;
    std::thread master([&] {
      while (DirectStateOf(word.load()) != DirectState::kPolling) std::this_thread::yield();
      if (round == 0)
        table_.node().slot_wanted.store(1);
      else
        table_.pending(kSender, kReceiver).store(1);
    });
    EXPECT_FALSE(polling.PollTold(*recv, kSender));
    master.join();
    EXPECT_EQ(word.load(), DirectWord(recv->seq, DirectState::kTold));
    // While either holds, a receive not told yet is not spun for at all.
    auto untold = polling.Post(kComm, kSender, 8, reinterpret_cast<std::uint64_t>(buffer),
                               sizeof buffer, 50 + static_cast<std::uint64_t>(round));
    EXPECT_FALSE(polling.Poll(*untold, kAnySender));
    table_.node().slot_wanted.store(0);
    table_.pending(kSender, kReceiver).store(0);
    word.store(DirectWord(recv->seq, DirectState::kMaster));
    polling.Collect(*recv);
    ASSERT_TRUE(polling.Tell(*untold));
    table_.rank(kReceiver).slots[untold->slot].word.store(
        DirectWord(untold->seq, DirectState::kMaster));
    polling.Collect(*untold);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// With more running ranks than cores (BDMPI_MAY_POLL=3) a waiting rank
// polls as the spinner does but yields its core between looks: it takes a
// message written meanwhile, and stops when a rank wants a running slot.
TEST_F(DirectPathTest, AYieldingWaitTakesItsMessageAndStopsWhenARankWantsASlot) {
  DirectPoll rule = ParseDirectPoll("3");
  EXPECT_TRUE(rule.poll && rule.yield && !rule.briefly);
  EXPECT_TRUE(ParseDirectPoll("2").briefly && !ParseDirectPoll("2").yield);
  EXPECT_FALSE(ParseDirectPoll("1").yield);
  EXPECT_FALSE(ParseDirectPoll(nullptr).poll || ParseDirectPoll("4").poll ||
               ParseDirectPoll("13").poll || ParseDirectPoll("").poll);
  DirectPath polling;
  polling.StartWith(table_, kReceiver, 4096, 10'000'000'000ull, kDirectSendWaitNs, false,
                    /*yield=*/true);
  char buffer[16] = {};
  auto recv = polling.Post(kComm, kSender, 7, reinterpret_cast<std::uint64_t>(buffer),
                           sizeof buffer, 42);
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_EQ(Send("yielded", 7), DirectSend::kDone);
  });
  // A yield that kept it off its core for long ends a poll early (and
  // backs off), which a loaded machine may cause: poll until it is there.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!polling.Poll(*recv, kSender) && std::chrono::steady_clock::now() < deadline) {
  }
  sender.join();
  ASSERT_TRUE(polling.Written(*recv));
  polling.TakeWritten(*recv);
  EXPECT_STREQ(buffer, "yielded");

  auto waiting = polling.Post(kComm, kSender, 8, reinterpret_cast<std::uint64_t>(buffer),
                              sizeof buffer, 43);
  std::thread master([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    table_.node().slot_wanted.store(1);
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(polling.Poll(*waiting, kSender));
  master.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  table_.node().slot_wanted.store(0);
}

// A sender that may spin waits for a receiver that runs to post the
// receive its message needs (a ping-pong's reply racing the next post),
// also past receives that do not take it; not for one that waits at its
// master, and after a wait in vain it skips the next one to that rank.
TEST_F(DirectPathTest, ASenderWaitsBrieflyForARunningReceiverToPost) {
  DirectPath patient;  // waits up to 10 s: the thread posts by then
  patient.StartWith(table_, kSender, 4096, 10'000'000'000ull, 10'000'000'000ull);
  char buffer[16] = {}, other[16] = {};
  std::uint64_t id = 0;
  std::thread receiver([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    Post(kSender, 9, other, sizeof other, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    auto recv = Post(kSender, 7, buffer, sizeof buffer, 2);
    while (!receiver_.Written(*recv)) std::this_thread::yield();
    receiver_.TakeWritten(*recv);
  });
  EXPECT_EQ(patient.TrySend("late", 5, kComm, kSender, 7, kReceiver, &id), DirectSend::kDone);
  receiver.join();
  EXPECT_STREQ(buffer, "late");

  // Waiting at its master: through the master at once.
  table_.rank(kReceiver).at_master.store(1);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(patient.TrySend("m", 2, kComm, kSender, 7, kReceiver, &id), DirectSend::kNo);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  table_.rank(kReceiver).at_master.store(0);

  DirectPath brief;  // the default wait
  brief.StartWith(table_, kSender, 4096, 1'000'000);
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(brief.TrySend("t", 2, kComm, kSender, 7, kReceiver, &id), DirectSend::kNo);
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::nanoseconds(kDirectSendWaitNs));
  // The next send to that rank skips waiting.
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(brief.TrySend("s", 2, kComm, kSender, 7, kReceiver, &id), DirectSend::kNo);
  auto skipped = std::chrono::steady_clock::now() - start;
  EXPECT_LT(skipped, std::chrono::seconds(5));
}

TEST_F(DirectPathTest, AFreedReceivesSlotIsPublishedOnAgainOnceTheMasterIsDone) {
  char buffer[16] = {};
  auto freed = Post(kSender, 7, buffer, sizeof buffer, 1);
  ASSERT_TRUE(receiver_.Tell(*freed));
  receiver_.Abandon(freed);
  auto& word = table_.rank(kReceiver).slots[freed->slot].word;
  // Matched by the master: over for the senders, the slot still taken.
  word.store(DirectWord(freed->seq, DirectState::kMaster));
  std::vector<std::shared_ptr<DirectRecv>> later;
  for (std::uint64_t k = 1; k < kDirectSlots; ++k)
    later.push_back(Post(kSender, 8, buffer, sizeof buffer, 1 + k));
  for (auto& recv : later) receiver_.Collect(*recv);
  // The receive that falls on it passes it over to the next free slot.
  auto wrapped = Post(kSender, 8, buffer, sizeof buffer, 100);
  EXPECT_TRUE(wrapped->published());
  EXPECT_NE(wrapped->slot, freed->slot);
  EXPECT_EQ(wrapped->seq, freed->seq + kDirectSlots + 1);
  receiver_.Collect(*wrapped);
  // The master is done with it: the next post frees it, and the receive
  // that falls on it next is published there.
  word.store(DirectWord(freed->seq, DirectState::kCancelled));
  std::shared_ptr<DirectRecv> again;
  for (std::uint64_t k = 0; k < kDirectSlots && (again == nullptr || again->slot != freed->slot);
       ++k) {
    if (again != nullptr) receiver_.Collect(*again);
    again = Post(kSender, 8, buffer, sizeof buffer, 200 + k);
  }
  EXPECT_EQ(again->slot, freed->slot);
  EXPECT_TRUE(again->published());
}

// A receive that outlives many turns of the ring (Graph500's receives of
// another node's messages, which never come on one node) keeps its slot;
// later receives pass it over, and a sender finds it first in posting
// order, while messages it does not match go into the later ones.
TEST_F(DirectPathTest, AReceiveThatOutlivesTheRingIsFoundFirstAndPassedOver) {
  char old_buffer[16] = {}, buffer[16] = {};
  auto old = Post(-1, 9, old_buffer, sizeof old_buffer, 1);
  for (std::uint64_t k = 0; k < 5 * kDirectSlots; ++k) {
    auto recv = Post(kSender, -1, buffer, sizeof buffer, 2 + k);
    ASSERT_TRUE(recv->published());
    ASSERT_NE(recv->slot, old->slot);
    ASSERT_EQ(Send("x", 7), DirectSend::kDone);
    ASSERT_TRUE(receiver_.Written(*recv));
    receiver_.TakeWritten(*recv);
  }
  // Tag 9: the old receive comes first, before a later one that matches too.
  auto later = Post(kSender, -1, buffer, sizeof buffer, 1000);
  EXPECT_EQ(Send("old", 9), DirectSend::kDone);
  EXPECT_TRUE(receiver_.Written(*old));
  EXPECT_FALSE(receiver_.Written(*later));
  receiver_.TakeWritten(*old);
  EXPECT_STREQ(old_buffer, "old");
  receiver_.Collect(*later);
}

TEST_F(DirectPathTest, AReceiveTakenBeforeItIsToldIsNotTold) {
  char first[16] = {}, second[16] = {};
  auto r1 = Post(kSender, 7, first, sizeof first, 1);
  auto r2 = Post(kSender, 8, second, sizeof second, 2);
  RequestMsg post1, post2;
  post1.id = 1;
  post2.id = 2;
  receiver_.Defer(r1, post1, kSender);
  receiver_.Defer(r2, post2, kSender);
  EXPECT_EQ(Send("one", 7), DirectSend::kDone);
  std::vector<std::uint64_t> told;
  receiver_.TellDeferred([&](const RequestMsg& post) { told.push_back(post.id); });
  EXPECT_EQ(told, std::vector<std::uint64_t>{2});
  EXPECT_FALSE(r1->told);
  EXPECT_TRUE(r2->told);
  EXPECT_TRUE(receiver_.Written(*r1));
  EXPECT_FALSE(receiver_.HasDeferred());
}

// Deferred receives stay untold while no message for any of them can come
// through the master; one that may is told with all the others, in order.
TEST_F(DirectPathTest, DeferredReceivesStayUntoldUntilOneMayComeThroughTheMaster) {
  char first[16] = {}, second[16] = {};
  auto r1 = Post(-1, -1, first, sizeof first, 1);  // MPI_ANY_SOURCE
  auto r2 = Post(kSender, -1, second, sizeof second, 2);
  RequestMsg post1, post2;
  post1.id = 1;
  post2.id = 2;
  receiver_.Defer(r1, post1, kAnySender);
  receiver_.Defer(r2, post2, kSender);
  EXPECT_TRUE(receiver_.DeferredMayStayUntold());
  // A message of the sender's waits at the master, or a rank wants a slot.
  table_.pending(kSender, kReceiver).store(1);
  EXPECT_FALSE(receiver_.DeferredMayStayUntold());
  table_.pending(kSender, kReceiver).store(0);
  table_.node().slot_wanted.store(1);
  EXPECT_FALSE(receiver_.DeferredMayStayUntold());
  table_.node().slot_wanted.store(0);
  // The first one written directly: the other alone decides.
  EXPECT_EQ(Send("one", 7), DirectSend::kDone);
  EXPECT_TRUE(receiver_.DeferredMayStayUntold());
  // A receive of another node's message never may.
  char third[16] = {};
  auto r3 = Post(kSender, 9, third, sizeof third, 3);
  RequestMsg post3;
  post3.id = 3;
  receiver_.Defer(r3, post3, kFarSender);
  EXPECT_FALSE(receiver_.DeferredMayStayUntold());
  std::vector<std::uint64_t> told;
  receiver_.TellDeferred([&](const RequestMsg& post) { told.push_back(post.id); });
  EXPECT_EQ(told, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_TRUE(receiver_.DeferredMayStayUntold());
  receiver_.TakeWritten(*r1);
  receiver_.Collect(*r2);
  receiver_.Collect(*r3);
}

TEST_F(DirectPathTest, AReceiveBeyondTheRingStopsSendersUntilItIsOver) {
  std::vector<char> buffers(kDirectSlots + 1);
  std::vector<std::shared_ptr<DirectRecv>> posted = FillRing(buffers.data(), 1);
  char last[16] = {};
  auto unpublished = Post(kSender, 7, last, sizeof last, 99);
  EXPECT_FALSE(unpublished->published());
  EXPECT_TRUE(unpublished->told);  // posted to the master at once
  // The master must match it: no later receive may take its message.
  EXPECT_EQ(Send("x", 7), DirectSend::kNo);
  receiver_.Collect(*unpublished);
  auto published = Post(kSender, 7, last, sizeof last, 100);
  // Its slot is the one of the oldest, still live: not published either.
  EXPECT_FALSE(published->published());
  receiver_.Collect(*published);
  for (auto& recv : posted) receiver_.Collect(*recv);
  auto again = Post(kSender, 7, last, sizeof last, 101);
  EXPECT_TRUE(again->published());
  EXPECT_EQ(Send("y", 7), DirectSend::kDone);
  receiver_.TakeWritten(*again);
  EXPECT_STREQ(last, "y");
}

TEST_F(DirectPathTest, OffCountsButSendsNothingDirectly) {
  DirectPath off;
  off.StartWith(table_, kSender, 0, 0);
  char buffer[16] = {};
  Post(kSender, 7, buffer, sizeof buffer, 1);
  std::uint64_t id = 0;
  EXPECT_EQ(off.TrySend("a", 2, kComm, kSender, 7, kReceiver, &id), DirectSend::kNo);
  RequestMsg request;
  off.CountMasterSend(kReceiver, request);
  EXPECT_EQ(table_.pending(kSender, kReceiver).load(), 1u);
}


// The inbox (common/direct_table.h): a small user message that finds no
// open receive waits in its receiver's inbox, and a receive posted later
// takes it there.
class DirectInboxTest : public DirectPathTest {
 protected:
  // Above what an inbox of two ranks takes (an eighth of 1 MiB).
  static constexpr std::uint64_t kMaxBytes = 256 * 1024;
  void SetUp() override {
    DirectPathTest::SetUp();
    sender_.StartWith(table_, kSender, kMaxBytes, 0, 0, /*queue=*/true);
    receiver_.StartWith(table_, kReceiver, kMaxBytes, 0, 0, /*queue=*/true);
  }
  // Posts a receive that must find its message in the inbox; returns the
  // message ("" when it found none).
  std::string Take(int source, int tag) {
    char buffer[16] = {};
    auto recv = Post(source, tag, buffer, sizeof buffer, ++next_id_);
    if (!recv->from_inbox) return "";
    receiver_.TakeWritten(*recv);
    return buffer;
  }

  std::uint64_t next_id_ = 0;
};

TEST_F(DirectInboxTest, AMessageWithoutAReceiveWaitsForItInTheInbox) {
  EXPECT_EQ(Send("one", 7), DirectSend::kQueued);
  EXPECT_EQ(Send("two", 7), DirectSend::kQueued);
  char first[16] = {}, second[16] = {};
  auto r1 = Post(kSender, 7, first, sizeof first, 1);
  EXPECT_TRUE(r1->from_inbox);
  EXPECT_TRUE(r1->published());  // waited for through this path
  EXPECT_FALSE(r1->in_ring());
  EXPECT_FALSE(receiver_.Tell(*r1));  // the master never hears of it
  EXPECT_TRUE(receiver_.Written(*r1));
  DirectStatus status = receiver_.TakeWritten(*r1);
  EXPECT_EQ(status.source, kSender);
  EXPECT_EQ(status.tag, 7);
  EXPECT_EQ(status.bytes, 4u);
  EXPECT_STREQ(first, "one");
  auto r2 = Post(-1, -1, second, sizeof second, 2);  // any source, any tag
  ASSERT_TRUE(r2->from_inbox);
  receiver_.TakeWritten(*r2);
  EXPECT_STREQ(second, "two");
}

TEST_F(DirectInboxTest, AReceiveTakesTheFirstMatchAndLeavesTheOthers) {
  EXPECT_EQ(Send("a7", 7), DirectSend::kQueued);
  EXPECT_EQ(Send("b8", 8), DirectSend::kQueued);
  EXPECT_EQ(Send("c7", 7), DirectSend::kQueued);
  EXPECT_EQ(Take(kSender, 8), "b8");
  // Nothing with tag 9 waits: published, and the next tag 9 goes into it.
  char buffer[16] = {};
  auto r9 = Post(kSender, 9, buffer, sizeof buffer, 99);
  EXPECT_TRUE(r9->in_ring());
  EXPECT_EQ(Send("d9", 9), DirectSend::kDone);
  receiver_.TakeWritten(*r9);
  EXPECT_STREQ(buffer, "d9");
  EXPECT_EQ(Take(kSender, 7), "a7");
  EXPECT_EQ(Take(kSender, -1), "c7");
}

TEST_F(DirectInboxTest, AnOpenReceiveThatTakesTheMessageIsNeverPassed) {
  char buffer[16] = {};
  // Published, told: a message for it never goes into the inbox; it is
  // left in the slot, and the master, told by the sender, hands it over
  // (the way through the master would keep the sender's next ones out of
  // the inbox until the receiver ran).
  auto told = Post(kSender, 7, buffer, sizeof buffer, 1);
  ASSERT_TRUE(receiver_.Tell(*told));
  std::uint64_t recv_id = 0;
  EXPECT_EQ(Send("x", 7, &recv_id), DirectSend::kDoneTold);
  EXPECT_EQ(recv_id, 1u);
  const DirectSlot& slot = table_.rank(kReceiver).slots[told->slot];
  EXPECT_EQ(slot.sent_in_slot.load(), 1u);
  EXPECT_STREQ(reinterpret_cast<const char*>(slot.data), "x");
  EXPECT_STREQ(buffer, "");  // the master's reply carries it
  EXPECT_EQ(Send("y", 7), DirectSend::kQueued);  // it is taken
  EXPECT_EQ(Send("z", 8), DirectSend::kQueued);
  // Switched out: the master's way.
  auto other = Post(kSender, 9, buffer, sizeof buffer, 2);
  ASSERT_TRUE(receiver_.Tell(*other));
  receiver_.StopAccepting();
  EXPECT_EQ(Send("w", 9), DirectSend::kNo);
  receiver_.Accept();
}

// Every told receive takes its message in the slot, the oldest first (a
// window of receives, Graph500's four persistent ones).
TEST_F(DirectInboxTest, AnOlderToldReceiveTakesItsMessageFirst) {
  char first[16] = {}, second[16] = {};
  auto older = Post(kSender, 7, first, sizeof first, 1);
  auto newer = Post(kSender, 7, second, sizeof second, 2);
  ASSERT_TRUE(receiver_.Tell(*older));
  ASSERT_TRUE(receiver_.Tell(*newer));
  std::uint64_t recv_id = 0;
  EXPECT_EQ(Send("x", 7, &recv_id), DirectSend::kDoneTold);
  EXPECT_EQ(recv_id, 1u);
  EXPECT_EQ(Send("y", 7, &recv_id), DirectSend::kDoneTold);
  EXPECT_EQ(recv_id, 2u);
}

// An open receive matches no waiting message: a sender claims it without
// the inbox's lock (held here, as by the receiver posting another), and
// takes the lock only to append when none is open.
TEST_F(DirectInboxTest, ASenderClaimsAnOpenReceiveWithoutTheLock) {
  char buffer[16] = {};
  auto recv = Post(kSender, 7, buffer, sizeof buffer, ++next_id_);
  ASSERT_TRUE(recv->in_ring());
  DirectInbox& inbox = table_.inbox(kReceiver);
  inbox.lock.store(1);
  auto sending = std::async(std::launch::async, [&] { return Send("x", 7); });
  bool returned = sending.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!returned) inbox.lock.store(0);
  ASSERT_TRUE(returned);
  EXPECT_EQ(sending.get(), DirectSend::kDone);
  receiver_.TakeWritten(*recv);
  EXPECT_STREQ(buffer, "x");
  auto appending = std::async(std::launch::async, [&] { return Send("y", 7); });
  EXPECT_EQ(appending.wait_for(std::chrono::milliseconds(20)), std::future_status::timeout);
  inbox.lock.store(0);
  EXPECT_EQ(appending.get(), DirectSend::kQueued);
  EXPECT_EQ(Take(kSender, 7), "y");
}

TEST_F(DirectInboxTest, AMessageAtTheMasterKeepsTheNextOnesThere) {
  RequestMsg request;
  sender_.CountMasterSend(kReceiver, request);
  EXPECT_EQ(Send("x", 7), DirectSend::kNo);
  table_.pending(kSender, kReceiver).store(0);
  EXPECT_EQ(Send("y", 7), DirectSend::kQueued);
}

TEST_F(DirectInboxTest, OnlyUserMessagesOfAtMostAnEighthOfTheInboxWait) {
  ASSERT_EQ(table_.inbox_capacity(), kDirectInboxMaxBytes);
  std::uint64_t id = 0;
  EXPECT_EQ(sender_.TrySend("c", 2, CollectiveCommId(kComm), kSender, 7, kReceiver, &id),
            DirectSend::kNo);
  EXPECT_EQ(sender_.TrySend("n", 2, kComm, kSender, -5, kReceiver, &id), DirectSend::kNo);
  std::uint64_t most = table_.inbox_capacity() / kDirectInboxMessageShare;
  std::vector<char> large(most + 1, 'l');
  EXPECT_EQ(sender_.TrySend(large.data(), large.size(), kComm, kSender, 7, kReceiver, &id),
            DirectSend::kNo);
  std::vector<char> fits(most, 'f');
  EXPECT_EQ(sender_.TrySend(fits.data(), fits.size(), kComm, kSender, 7, kReceiver, &id),
            DirectSend::kQueued);
}

// On a collective twin only the tags whose every receive looks in the
// inbox (the barrier schedule's, the node engine's) may wait there; a
// receive posted later takes the message.
TEST_F(DirectInboxTest, TwinMessagesWaitOnlyUnderTagsWhoseReceivesLookThere) {
  std::uint64_t id = 0;
  const int twin = CollectiveCommId(kComm);
  EXPECT_EQ(sender_.TrySend(nullptr, 0, twin, kSender, kScheduleBarrierTag, kReceiver, &id),
            DirectSend::kQueued);
  int node_tag = NodeCollTag(CollKind::kAllreduce);
  EXPECT_EQ(sender_.TrySend("p", 2, twin, kSender, node_tag, kReceiver, &id),
            DirectSend::kQueued);
  EXPECT_EQ(sender_.TrySend("s", 2, twin, kSender, kScheduleBarrierTag + 1, kReceiver, &id),
            DirectSend::kNo);
  char buffer[4] = {};
  auto part = receiver_.Post(twin, kSender, node_tag, reinterpret_cast<std::uint64_t>(buffer),
                             sizeof buffer, 1);
  ASSERT_TRUE(part->from_inbox);
  receiver_.TakeWritten(*part);
  EXPECT_STREQ(buffer, "p");
  auto barrier = receiver_.Post(twin, kSender, kScheduleBarrierTag,
                                reinterpret_cast<std::uint64_t>(buffer), 0, 2);
  ASSERT_TRUE(barrier->from_inbox);
  EXPECT_EQ(receiver_.TakeWritten(*barrier).bytes, 0u);
}

TEST_F(DirectInboxTest, AFullInboxSendsToTheMasterUntilAReceiveTakesOne) {
  // A message of up to 16 bytes takes 64 of the inbox.
  for (std::uint64_t i = 0; i < table_.inbox_capacity() / 64; ++i)
    ASSERT_EQ(Send("m", 7), DirectSend::kQueued);
  EXPECT_EQ(Send("m", 7), DirectSend::kNo);
  EXPECT_EQ(Take(kSender, 7), "m");
  EXPECT_EQ(Send("m", 7), DirectSend::kQueued);
}

TEST_F(DirectInboxTest, ASwitchedOutRanksInboxTakesWhatNoReceiveWaitsFor) {
  char buffer[16] = {};
  auto posted = Post(kSender, 7, buffer, sizeof buffer, 1);
  receiver_.StopAccepting();
  EXPECT_EQ(Send("x", 7), DirectSend::kNo);  // its receive is in its memory
  EXPECT_EQ(Send("y", 8), DirectSend::kQueued);
  receiver_.Accept();
  receiver_.Collect(*posted);
}

TEST_F(DirectInboxTest, ProbesSeeTheInboxAndABlockingOneClosesIt) {
  EXPECT_EQ(Send("abc", 7), DirectSend::kQueued);
  DirectStatus status;
  EXPECT_FALSE(receiver_.ProbeInbox(kComm, kSender, 8, false, &status));
  ASSERT_TRUE(receiver_.ProbeInbox(kComm, -1, -1, false, &status));
  EXPECT_EQ(status.tag, 7);
  EXPECT_EQ(status.bytes, 4u);
  // A matched probe takes it.
  std::vector<std::byte> data;
  ASSERT_TRUE(receiver_.ProbeInbox(kComm, kSender, 7, false, &status, &data));
  EXPECT_STREQ(reinterpret_cast<const char*>(data.data()), "abc");
  EXPECT_FALSE(receiver_.ProbeInbox(kComm, -1, -1, false, &status));
  // A probe that finds nothing and asks the master: the next messages go
  // there too, until every such probe is answered.
  EXPECT_FALSE(receiver_.ProbeInbox(kComm, -1, -1, true, &status));
  EXPECT_FALSE(receiver_.ProbeInbox(kComm, -1, -1, true, &status));
  EXPECT_EQ(Send("x", 7), DirectSend::kNo);
  receiver_.OpenInbox();
  EXPECT_EQ(Send("x", 7), DirectSend::kNo);
  receiver_.OpenInbox();
  EXPECT_EQ(Send("x", 7), DirectSend::kQueued);
}

TEST_F(DirectInboxTest, CancelWithdrawsAMessageNoReceiveHasTaken) {
  EXPECT_EQ(Send("one", 7), DirectSend::kQueued);
  DirectQueued one = sender_.TakeLastQueued();
  EXPECT_EQ(one.dest, kReceiver);
  EXPECT_EQ(sender_.TakeLastQueued().dest, -1);
  EXPECT_EQ(Send("two", 7), DirectSend::kQueued);
  DirectQueued two = sender_.TakeLastQueued();
  EXPECT_TRUE(sender_.Withdraw(one));
  EXPECT_FALSE(sender_.Withdraw(one));
  EXPECT_EQ(Take(kSender, 7), "two");
  EXPECT_FALSE(sender_.Withdraw(two));  // received
}

TEST_F(DirectInboxTest, ATooSmallOrScatteredReceiveGetsWhatFitsAndTheWholeSize) {
  EXPECT_EQ(Send("truncated", 7), DirectSend::kQueued);
  EXPECT_EQ(Send("scattered", 7), DirectSend::kQueued);
  char small[4] = {};
  auto cut = Post(kSender, 7, small, sizeof small, 1);
  ASSERT_TRUE(cut->from_inbox);
  EXPECT_EQ(receiver_.TakeWritten(*cut).bytes, 10u);
  EXPECT_EQ(std::memcmp(small, "trun", 4), 0);
  auto gaps = receiver_.Post(kComm, kSender, 7, 0, 64, 2);
  ASSERT_TRUE(gaps->from_inbox);
  ASSERT_EQ(gaps->inbox_data.size(), 10u);
  EXPECT_STREQ(reinterpret_cast<const char*>(gaps->inbox_data.data()), "scattered");
}

// A receive beyond the ring is live but not published: its slot, reused
// by a later receive, must not make a sender think it is over, and no
// message it may take waits in the inbox (it would never see it).
TEST_F(DirectInboxTest, AnUnpublishedReceiveKeepsMessagesOutOfTheInbox) {
  std::vector<char> buffers(2 * kDirectSlots + 1);
  std::vector<std::shared_ptr<DirectRecv>> ring = FillRing(buffers.data(), 1);
  char last[16] = {};
  auto beyond = Post(kSender, 7, last, sizeof last, 99);
  ASSERT_FALSE(beyond->published());
  for (auto& recv : ring) receiver_.Collect(*recv);
  ring.clear();
  // The next round of the ring: the last one takes the unpublished one's slot.
  ring = FillRing(&buffers[kDirectSlots], 200);
  ASSERT_TRUE(ring.back()->in_ring());
  EXPECT_EQ(ring.back()->slot, beyond->seq % kDirectSlots);
  EXPECT_EQ(Send("x", 7), DirectSend::kNo);  // the master matches it to `beyond`
  receiver_.Collect(*beyond);
  EXPECT_EQ(Send("y", 7), DirectSend::kQueued);
  for (auto& recv : ring) receiver_.Collect(*recv);
}

// Messages of many sizes, from none to 32 KiB (Graph500's buffers), wrap
// around the inbox's end many times; each comes out whole and in order,
// and a full inbox refuses until one is taken.
TEST_F(DirectInboxTest, MessagesOfEverySizeWrapAroundTheInbox) {
  constexpr std::size_t kLargest = 32 * 1024;
  std::vector<std::vector<char>> sent;
  std::uint64_t taken = 0;
  for (int i = 0; i < 2000; ++i) {
    std::size_t size = i % 4 == 0 ? kLargest : static_cast<std::size_t>(i * 3701) % (kLargest + 1);
    std::vector<char> message(size);
    for (std::size_t b = 0; b < message.size(); ++b) message[b] = static_cast<char>(i + b);
    std::uint64_t id = 0;
    while (sender_.TrySend(message.data(), message.size(), kComm, kSender, 7, kReceiver, &id) !=
           DirectSend::kQueued) {
      ASSERT_LT(taken, sent.size()) << "an empty inbox refused a message";
      std::vector<char> buffer(kLargest);
      auto recv = Post(kSender, 7, buffer.data(), buffer.size(), i + 1);
      ASSERT_TRUE(recv->from_inbox);
      DirectStatus status = receiver_.TakeWritten(*recv);
      const std::vector<char>& want = sent[taken++];
      ASSERT_EQ(status.bytes, want.size());
      ASSERT_EQ(std::memcmp(buffer.data(), want.data(), want.size()), 0);
    }
    sent.push_back(std::move(message));
  }
  EXPECT_GT(taken, 1000u);  // it was full many times
}

// A sender and a receiver on two threads: every message reaches a receive
// once, in the sender's order, whichever of inbox, ring and claim wins.
TEST_F(DirectInboxTest, ConcurrentSendsAndPostsKeepOrderAndLoseNothing) {
  constexpr int kMessages = 20000;
  std::thread sender([&] {
    for (int i = 0; i < kMessages; ++i) {
      std::uint64_t id = 0;
      // kNo stands for the master's path, which the test does not have:
      // the same message again, so that order is the sender's.
      while (sender_.TrySend(&i, sizeof i, kComm, kSender, i % 3, kReceiver, &id) ==
             DirectSend::kNo)
        std::this_thread::yield();
    }
  });
  int mismatches = 0;
  for (int i = 0; i < kMessages; ++i) {
    int value = -1;
    auto recv = receiver_.Post(kComm, i % 2 == 0 ? -1 : kSender, -1,
                               reinterpret_cast<std::uint64_t>(&value), sizeof value, i + 1);
    while (!receiver_.Written(*recv)) std::this_thread::yield();
    receiver_.TakeWritten(*recv);
    if (value != i) ++mismatches;
  }
  sender.join();
  EXPECT_EQ(mismatches, 0);
}

// Graph500's stream: messages of 2 to 32 KiB from a sender on one thread
// that never waits, into four receives a receiver on another thread keeps
// posted (MPI_ANY_SOURCE) and reposts as it takes them: each message
// reaches a receive once, in the sender's order, whether written into a
// receive or waiting in the inbox.
TEST_F(DirectInboxTest, AStreamOfMediumMessagesOutrunsFourReceivesInOrder) {
  constexpr int kMessages = 3000;
  constexpr std::size_t kLargest = 32 * 1024;
  auto size_of = [](int i) { return 2048 + static_cast<std::size_t>(i * 7919) % (30 * 1024); };
  std::thread sender([&] {
    std::vector<int> message(kLargest / sizeof(int));
    for (int i = 0; i < kMessages; ++i) {
      std::fill(message.begin(), message.end(), i);
      std::uint64_t id = 0;
      while (sender_.TrySend(message.data(), size_of(i), kComm, kSender, 7, kReceiver, &id) ==
             DirectSend::kNo)
        std::this_thread::yield();
    }
  });
  constexpr int kRecvs = 4;
  std::vector<std::vector<int>> buffers(kRecvs, std::vector<int>(kLargest / sizeof(int), -1));
  std::vector<std::shared_ptr<DirectRecv>> recvs(kRecvs);
  std::uint64_t next_id = 1;
  auto start = [&](int r) {
    std::fill(buffers[r].begin(), buffers[r].end(), -1);
    recvs[r] = receiver_.Post(kComm, -1, -1, reinterpret_cast<std::uint64_t>(buffers[r].data()),
                              kLargest, next_id++);
  };
  for (int r = 0; r < kRecvs; ++r) start(r);
  int mismatches = 0;
  // The receives complete in the order they were posted: take them so.
  for (int i = 0, r = 0; i < kMessages; ++i, r = (r + 1) % kRecvs) {
    while (!receiver_.Written(*recvs[r])) std::this_thread::yield();
    DirectStatus status = receiver_.TakeWritten(*recvs[r]);
    if (status.bytes != size_of(i) || buffers[r][0] != i ||
        buffers[r][status.bytes / sizeof(int) - 1] != i)
      ++mismatches;
    start(r);
  }
  sender.join();
  for (auto& recv : recvs) receiver_.Collect(*recv);
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace bdmpi
