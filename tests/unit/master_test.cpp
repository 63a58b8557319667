// The master's request handling, driven in-process through MasterHarness:
// MPI matching order, two-phase collectives, deadlock reports and the
// Release/Released hand-shake, each in milliseconds and without processes.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <regex>
#include <string>

#include "common/handles.h"
#include "master/p2p/mailbox.h"
#include "master_harness.h"

namespace bdmpi {
namespace {

using test_util::MasterHarness;

// The reply `index` must have now: its flag, status and data.
ReplyMsg ExpectReply(MasterHarness& harness, int index) {
  std::optional<ReplyMsg> reply = harness.TakeReply(index);
  EXPECT_TRUE(reply.has_value()) << "rank " << index << " has no reply";
  return reply.value_or(ReplyMsg{});
}

void ExpectNoReply(MasterHarness& harness, int index) {
  std::optional<ReplyMsg> reply = harness.TakeReply(index);
  EXPECT_FALSE(reply.has_value()) << "rank " << index << " got a reply to "
                                  << MsgTypeName(reply->type);
}

// A received message: its status and its data in the window.
void ExpectMessage(MasterHarness& harness, int index, int source, int tag,
                   const std::string& text) {
  ReplyMsg reply = ExpectReply(harness, index);
  EXPECT_EQ(reply.flag, 1);
  EXPECT_EQ(reply.source, source);
  EXPECT_EQ(reply.tag, tag);
  EXPECT_EQ(reply.where, Where::kWindow);
  ASSERT_EQ(reply.bytes, text.size());
  EXPECT_EQ(harness.WindowText(index, text.size()), text);
}

// Nothing of the job stays in /dev/shm once its master is gone.
void ExpectNothingLeft(const std::string& job_id) {
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm"))
    EXPECT_EQ(entry.path().filename().string().find(job_id), std::string::npos)
        << entry.path() << " left behind";
}

TEST(MasterTest, MatchesInMpiOrderWithAnySourceAndAnyTag) {
  std::string job_id;
  {
    MasterHarness harness(3);
    job_id = harness.job_id();
    harness.InitAll();
    ExpectReply(harness, 0);  // one runs at a time: rank 0 first
    ExpectNoReply(harness, 1);

    // Rank 0 posts two receives, the wildcard first, then waits in a third.
    RequestMsg irecv;
    irecv.type = MsgType::kPostRecv;
    irecv.bytes = 64;
    irecv.id = 10;
    irecv.peer = kAnySource;
    irecv.tag = kAnyTag;
    harness.Send(0, irecv);
    irecv.id = 11;
    irecv.peer = 1;
    irecv.tag = 7;
    harness.Send(0, irecv);
    harness.Recv(0, 12, kAnySource, 7);
    EXPECT_EQ(harness.state(0), SlaveState::kRBlocked);
    ExpectReply(harness, 1);  // rank 1 runs in its place

    // Rank 1's first tag-7 message takes the receive posted first (10),
    // though 11 names its source and tag exactly; its second takes 11.
    harness.SendText(1, 0, 7, "first");
    harness.SendText(1, 0, 5, "five");
    harness.SendText(1, 0, 7, "second");
    harness.Recv(1, 20, 2, 0);  // rank 1 waits for rank 2
    ExpectNoReply(harness, 0);  // 12 (ANY_SOURCE, tag 7) is still open
    ExpectReply(harness, 2);
    harness.SendText(2, 0, 7, "third");  // completes 12: rank 0 runnable
    harness.SendText(2, 0, 9, "nine");
    harness.SendText(2, 1, 0, "go");    // completes rank 1's receive
    harness.Recv(2, 30, 0, 0);          // rank 2 waits: rank 0 resumes
    ExpectMessage(harness, 0, 2, 7, "third");

    RequestMsg wait;
    wait.type = MsgType::kWaitRecv;
    wait.bytes = 64;
    wait.id = 10;
    harness.Send(0, wait);
    ExpectMessage(harness, 0, 1, 7, "first");
    wait.id = 11;
    harness.Send(0, wait);
    ExpectMessage(harness, 0, 1, 7, "second");
    // ANY_TAG from rank 2 finds its first unreceived message; ANY_SOURCE
    // with ANY_TAG then finds the oldest left (rank 1's tag 5).
    harness.Recv(0, 13, 2, kAnyTag);
    ExpectMessage(harness, 0, 2, 9, "nine");
    harness.Recv(0, 14, kAnySource, kAnyTag);
    ExpectMessage(harness, 0, 1, 5, "five");
    EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
  }
  ExpectNothingLeft(job_id);
}

// MPI_Comm_create_group's master side (kCommNewId, kCommChannel, kCommMembers): a fresh id
// led by the asker, this node's channel, then the members; the new
// communicator carries messages and is freed like any other, and a rank
// that registers a communicator it is not in ends the job.
TEST(MasterTest, RegistersACommunicatorItsMembersAgreedOn) {
  MasterHarness harness(3);
  harness.InitAll();
  ExpectReply(harness, 0);
  RequestMsg ask;
  ask.type = MsgType::kCommNewId;
  harness.Send(0, ask);
  std::int32_t id = ExpectReply(harness, 0).comm;
  // Ids multiply by the universe size (room for spawned ranks).
  EXPECT_EQ(id, CommId(0, kFirstCommCreation, UniverseSize(JobOptions{}, 3)));
  ask.type = MsgType::kCommChannel;
  ask.comm = id;
  harness.Send(0, ask);
  EXPECT_EQ(ExpectReply(harness, 0).tag, 0);  // one node: no channels
  // Members: world rank 2, then world rank 0 (rank 1 of the new one).
  std::uint64_t members[2] = {std::uint64_t{2} << 32, std::uint64_t{0} << 32};
  ask.type = MsgType::kCommMembers;
  harness.Send(0, ask, std::as_bytes(std::span(members)));
  ExpectReply(harness, 0);
  RequestMsg send;
  send.type = MsgType::kSend;
  send.comm = id;
  send.rank = 1;
  send.peer = 0;
  send.tag = 3;
  std::string text = "hi";
  harness.Send(0, send, std::as_bytes(std::span(text.data(), text.size())));
  RequestMsg free;
  free.type = MsgType::kCommFree;
  free.comm = id;
  harness.Send(0, free);
  EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
  // World rank 1 is not among the members it names.
  harness.Recv(0, 1, 2, 0);  // rank 0 waits: rank 1 runs
  ExpectReply(harness, 1);
  std::uint64_t others[1] = {std::uint64_t{2} << 32};
  ask.comm = CommId(2, kFirstCommCreation, 3);
  harness.Send(1, ask, std::as_bytes(std::span(others)));
  EXPECT_TRUE(harness.master().failed());
  EXPECT_NE(harness.master().failure().find("rank 1 registered communicator"), std::string::npos)
      << harness.master().failure();
}

TEST(MasterTest, BcastIsTwoPhase) {
  MasterHarness harness(4, 4);
  harness.InitAll();
  for (int rank = 0; rank < 4; ++rank) ExpectReply(harness, rank);
  const std::string data = "broadcast data";
  RequestMsg bcast;
  bcast.type = MsgType::kBcast;
  bcast.peer = 2;  // root
  bcast.bytes = data.size();
  bcast.wants_reply = true;
  // Members other than the root arrive first and wait (cblocked).
  for (int rank : {0, 1, 3}) {
    harness.Send(rank, bcast);
    EXPECT_EQ(harness.state(rank), SlaveState::kCBlocked);
    ExpectNoReply(harness, rank);
  }
  RequestMsg root = bcast;
  root.wants_reply = false;  // an inline payload needs no acknowledgement
  harness.Send(2, root, std::as_bytes(std::span(data.data(), data.size())));
  ExpectNoReply(harness, 2);
  for (int rank : {0, 1, 3}) {
    ReplyMsg reply = ExpectReply(harness, rank);
    EXPECT_EQ(reply.type, MsgType::kBcast);
    EXPECT_EQ(reply.error, 0);
    ASSERT_EQ(reply.bytes, data.size());
    EXPECT_EQ(harness.WindowText(rank, data.size()), data);
    EXPECT_EQ(harness.state(rank), SlaveState::kRunning);
  }
  EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
}

TEST(MasterTest, AllreduceAnswersEveryMemberOnceAllContributed) {
  MasterHarness harness(3, 1);
  harness.InitAll();
  RequestMsg allreduce;
  allreduce.type = MsgType::kAllreduce;
  allreduce.datatype = static_cast<std::uint16_t>(DatatypeId::kInt);
  allreduce.op = static_cast<std::uint16_t>(OpId::kSum);
  allreduce.bytes = sizeof(int);
  allreduce.wants_reply = true;
  // One running slot: each member runs after the previous one blocks.
  for (int rank = 0; rank < 3; ++rank) {
    ExpectReply(harness, rank);  // its Init
    int value = 10 * (rank + 1);
    harness.Send(rank, allreduce, std::as_bytes(std::span(&value, 1)));
    if (rank < 2) {
      EXPECT_EQ(harness.state(rank), SlaveState::kCBlocked);
      ExpectNoReply(harness, rank);
    }
  }
  // The last contribution completes it: the last member is answered at
  // once, the others as they get the slot back.
  for (int rank : {2, 0, 1}) {
    ReplyMsg reply = ExpectReply(harness, rank);
    ASSERT_EQ(reply.bytes, sizeof(int));
    int sum = 0;
    std::memcpy(&sum, harness.Window(rank), sizeof sum);
    EXPECT_EQ(sum, 60) << "rank " << rank;
    if (rank != 1) {
      RequestMsg recv;  // gives up the slot to the next one
      recv.type = MsgType::kPostRecv;
      recv.id = 1;
      recv.peer = kAnySource;
      recv.tag = 99;
      recv.wants_reply = true;
      harness.Send(rank, recv);
    }
  }
  EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
}

TEST(MasterTest, ReportsASingleNodeDeadlockNamingEachCall) {
  MasterHarness harness(3, 3);
  harness.InitAll();
  for (int rank = 0; rank < 3; ++rank) ExpectReply(harness, rank);
  harness.Recv(0, 1, 1, 4);
  RequestMsg probe;
  probe.type = MsgType::kProbe;
  probe.peer = kAnySource;
  probe.tag = kAnyTag;
  harness.Send(1, probe);
  EXPECT_FALSE(harness.master().failed()) << "rank 2 can still run";
  RequestMsg bcast;
  bcast.type = MsgType::kBcast;
  bcast.peer = 0;
  bcast.bytes = 8;
  bcast.wants_reply = true;
  harness.Send(2, bcast);
  ASSERT_TRUE(harness.master().failed());
  EXPECT_EQ(harness.master().exit_status(), 1);
  EXPECT_EQ(harness.master().failure(),
            "deadlock: every live rank is blocked: rank 0 in MPI_Recv(source 1, tag 4); "
            "rank 1 in MPI_Probe(source MPI_ANY_SOURCE, tag MPI_ANY_TAG); "
            "rank 2 in MPI_Bcast(root 0)");
}

// MPI_Ssend: the sender stays rblocked until a receive takes its message;
// a matched probe takes a message out of matching; MPI_Cancel withdraws an
// unmatched receive and an unmatched send of the node.
TEST(MasterTest, SynchronousSendWaitsForItsMatch) {
  MasterHarness harness(2, 2);
  harness.InitAll();
  ExpectReply(harness, 0);
  ExpectReply(harness, 1);
  RequestMsg ssend;
  ssend.type = MsgType::kSyncSend;
  ssend.peer = 1;
  ssend.tag = 3;
  ssend.id = 40;
  harness.Send(0, ssend);
  RequestMsg wait;
  wait.type = MsgType::kWaitSsend;
  wait.id = 40;
  wait.wants_reply = true;
  harness.Send(0, wait);
  EXPECT_EQ(harness.state(0), SlaveState::kRBlocked);
  ExpectNoReply(harness, 0);
  harness.Recv(1, 50, 0, 3);  // the match completes the send
  ExpectReply(harness, 1);
  ReplyMsg done = ExpectReply(harness, 0);
  EXPECT_EQ(done.type, MsgType::kWaitSsend);
  EXPECT_EQ(done.flag, 1);
}

// A lent block (a collective's, LentSend): the receiver's reply names
// the sender's address and size; the sender's send completes only at the
// receiver's next request, which proves it has read the block.
TEST(MasterTest, LentBlockGoesBackAtTheReceiversNextRequest) {
  MasterHarness harness(2, 2);
  harness.InitAll();
  ExpectReply(harness, 0);
  ExpectReply(harness, 1);
  RequestMsg lend;
  lend.type = MsgType::kLentSend;
  lend.peer = 1;
  lend.tag = 3;
  LentSendArgs block{0x7f0012345000, 1 << 20, 40};
  block.Into(lend);
  harness.Send(0, lend);
  RequestMsg wait;
  wait.type = MsgType::kWaitRecv;
  wait.id = 40;
  wait.wants_reply = true;
  harness.Send(0, wait);
  EXPECT_EQ(harness.state(0), SlaveState::kRBlocked);
  harness.Recv(1, 50, 0, 3, 1 << 20);
  ReplyMsg got = ExpectReply(harness, 1);
  EXPECT_EQ(got.where, Where::kLent);
  EXPECT_EQ(LentReplyArgs::Of(got).address, block.address);
  EXPECT_EQ(got.bytes, block.bytes);
  EXPECT_EQ(got.source, 0);
  // Read, not yet let go of: the sender still waits.
  ExpectNoReply(harness, 0);
  EXPECT_EQ(harness.state(0), SlaveState::kRBlocked);
  harness.Recv(1, 51, 0, 4);  // the receiver's next request
  ReplyMsg done = ExpectReply(harness, 0);
  EXPECT_EQ(done.type, MsgType::kWaitRecv);
  EXPECT_EQ(done.flag, 1);
}

// Only a LentSend, which waits for its block, may lend (with a request
// id): anything else is refused like a forged file id.
TEST(MasterTest, LentBlockWithoutItsSendIdEndsTheJob) {
  MasterHarness harness(2, 2);
  harness.InitAll();
  ExpectReply(harness, 0);
  RequestMsg lend;
  lend.type = MsgType::kLentSend;
  lend.peer = 1;
  LentSendArgs{0x7f0012345000, 1 << 20, 0}.Into(lend);
  harness.Send(0, lend);
  ASSERT_TRUE(harness.master().failed());
  EXPECT_NE(harness.master().failure().find("a lent block outside a send that waits for it"),
            std::string::npos)
      << harness.master().failure();
}

TEST(MasterTest, SynchronousSendDeadlockNamesTheSend) {
  MasterHarness harness(2, 2);
  harness.InitAll();
  for (int rank = 0; rank < 2; ++rank) {
    ExpectReply(harness, rank);
    RequestMsg ssend;
    ssend.type = MsgType::kSyncSend;
    ssend.peer = 1 - rank;
    ssend.tag = 7;
    ssend.id = 1;
    harness.Send(rank, ssend);
    RequestMsg wait;
    wait.type = MsgType::kWaitSsend;
    wait.id = 1;
    wait.wants_reply = true;
    harness.Send(rank, wait);
  }
  ASSERT_TRUE(harness.master().failed());
  EXPECT_EQ(harness.master().failure(),
            "deadlock: every live rank is blocked: rank 0 in MPI_Ssend(dest 1, tag 7); "
            "rank 1 in MPI_Ssend(dest 0, tag 7)");
}

TEST(MasterTest, MatchedProbeAndCancel) {
  MasterHarness harness(2, 2);
  harness.InitAll();
  ExpectReply(harness, 0);
  ExpectReply(harness, 1);
  harness.SendText(0, 1, 4, "probed");
  harness.SendText(0, 1, 4, "next");
  RequestMsg mprobe;
  mprobe.type = MsgType::kMprobe;
  mprobe.peer = kAnySource;
  mprobe.tag = kAnyTag;
  mprobe.id = 60;
  mprobe.wants_reply = true;
  harness.Send(1, mprobe);
  ReplyMsg found = ExpectReply(harness, 1);
  EXPECT_EQ(found.flag, 1);
  EXPECT_EQ(found.bytes, 6u);
  // A wildcard receive now gets the second message, the probed one is 60's.
  harness.Recv(1, 61, kAnySource, kAnyTag);
  ExpectMessage(harness, 1, 0, 4, "next");
  RequestMsg mrecv;
  mrecv.type = MsgType::kMrecv;
  mrecv.id = 60;
  mrecv.bytes = 64;
  mrecv.wants_reply = true;
  harness.Send(1, mrecv);
  ExpectMessage(harness, 1, 0, 4, "probed");

  // An unmatched receive is cancelled; a send with an id too, while its
  // message waits unreceived on this node.
  RequestMsg irecv;
  irecv.type = MsgType::kPostRecv;
  irecv.id = 70;
  irecv.peer = 0;
  irecv.tag = 9;
  irecv.bytes = 8;
  harness.Send(1, irecv);
  RequestMsg cancel;
  cancel.type = MsgType::kCancel;
  cancel.id = 70;
  cancel.wants_reply = true;
  harness.Send(1, cancel);
  EXPECT_EQ(ExpectReply(harness, 1).flag, 1);
  harness.Send(1, cancel);  // gone already
  EXPECT_EQ(ExpectReply(harness, 1).flag, 0);
  RequestMsg isend;
  isend.type = MsgType::kSend;
  isend.peer = 1;
  isend.tag = 9;
  isend.id = 80;
  harness.Send(0, isend);
  cancel.type = MsgType::kCancelSend;
  cancel.id = 80;
  cancel.peer = 1;
  harness.Send(0, cancel);
  EXPECT_EQ(ExpectReply(harness, 0).flag, 1);
  RequestMsg iprobe;
  iprobe.type = MsgType::kIprobe;
  iprobe.peer = 0;
  iprobe.tag = 9;
  iprobe.wants_reply = true;
  harness.Send(1, iprobe);
  EXPECT_EQ(ExpectReply(harness, 1).flag, 0) << "the cancelled message is gone";
}

// BDMPI_Enter_critical with -nc 1: one rank inside, the others wait in
// arrival order; leaving (Exit_critical, or MPI_Finalize inside) admits the
// next.
TEST(MasterTest, CriticalSectionAdmitsInArrivalOrder) {
  MasterHarness harness(3, 3, [](MasterOptions& options) { options.ncritical = 1; });
  harness.InitAll();
  for (int rank = 0; rank < 3; ++rank) ExpectReply(harness, rank);
  RequestMsg enter;
  enter.type = MsgType::kEnterCritical;
  harness.Send(0, enter);
  ExpectReply(harness, 0);
  harness.Send(2, enter);
  harness.Send(1, enter);
  ExpectNoReply(harness, 1);
  ExpectNoReply(harness, 2);
  EXPECT_EQ(harness.state(1), SlaveState::kCBlocked);
  RequestMsg exit;
  exit.type = MsgType::kExitCritical;
  harness.Send(0, exit);
  ExpectReply(harness, 2);  // it asked first
  ExpectNoReply(harness, 1);
  RequestMsg finalize;
  finalize.type = MsgType::kFinalize;
  harness.Send(2, finalize);
  ExpectReply(harness, 2);
  ExpectReply(harness, 1);
  EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
}

TEST(MasterTest, HoldsAResumedSlavesReplyUntilReleased) {
  constexpr std::uint64_t kMiB = 1024 * 1024;
  MasterHarness harness(2, 1, [](MasterOptions& options) { options.node_memory = kMiB; });
  harness.InitAll();
  ExpectReply(harness, 0);
  // Rank 0 holds most of the node's memory and blocks; rank 1 is expected
  // to need as much (the largest peak so far) when it first runs.
  harness.SetStorageBytes(0, 3 * kMiB / 4);
  harness.Recv(0, 1, 1, 0);
  ReplyMsg release = ExpectReply(harness, 0);
  EXPECT_EQ(release.type, MsgType::kRelease);
  ExpectNoReply(harness, 1);  // its Init reply waits for the memory
  EXPECT_EQ(harness.state(1), SlaveState::kRunning);

  RequestMsg released;
  released.type = MsgType::kReleased;
  released.bytes = 3 * kMiB / 4;
  harness.Send(0, released);
  ReplyMsg init = ExpectReply(harness, 1);
  EXPECT_EQ(init.type, MsgType::kInit);
  EXPECT_EQ(harness.state(0), SlaveState::kRBlocked);
  ExpectNoReply(harness, 0);  // still waiting for its message

  harness.SendText(1, 0, 0, "x");
  harness.Recv(1, 2, 0, 0);  // rank 1 blocks: rank 0 runs again
  ExpectMessage(harness, 0, 1, 0, "x");
  EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
}

// A releasing slave reports its progress as it drops its data piece by
// piece: the resumed slave's reply goes out as soon as what is left to
// write fits the budget next to its own data, not at Released.
TEST(MasterTest, ResumesOnceTheRestOfAWriteBackFits) {
  constexpr std::uint64_t kMiB = 1024 * 1024;
  MasterHarness harness(2, 1, [](MasterOptions& options) { options.node_memory = 8 * kMiB; });
  harness.InitAll();
  ExpectReply(harness, 0);
  harness.SetStorageBytes(0, 6 * kMiB);
  harness.Recv(0, 1, 1, 0);  // rank 1 is expected to need 6 MiB too
  ReplyMsg release = ExpectReply(harness, 0);
  EXPECT_EQ(release.type, MsgType::kRelease);
  EXPECT_EQ(release.bytes, kMiB) << "progress every eighth of the budget";
  ExpectNoReply(harness, 1);

  RequestMsg progress;
  progress.type = MsgType::kReleaseProgress;
  progress.bytes = 3 * kMiB;  // 3 left + 6 > 8
  harness.Send(0, progress);
  ExpectNoReply(harness, 1);
  progress.bytes = 4 * kMiB;  // 2 left + 6 = 8
  harness.Send(0, progress);
  EXPECT_EQ(ExpectReply(harness, 1).type, MsgType::kInit) << "started during the write-back";
  ExpectNoReply(harness, 0);

  RequestMsg released;
  released.type = MsgType::kReleased;
  released.bytes = 6 * kMiB;
  harness.Send(0, released);
  progress.bytes = 6 * kMiB;  // late: ignored once released
  harness.Send(0, progress);
  ExpectNoReply(harness, 0);
  ExpectNoReply(harness, 1);
  harness.SetStorageBytes(1, 6 * kMiB);
  harness.SendText(1, 0, 0, "x");
  harness.Recv(1, 2, 0, 0);  // rank 1 blocks: rank 0 runs again, rank 1 releases
  EXPECT_EQ(ExpectReply(harness, 1).type, MsgType::kRelease);
  released.bytes = 0;
  harness.Send(1, released);
  ExpectMessage(harness, 0, 1, 0, "x");
  EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
}

// A test that finds nothing yields to a runnable rank, unless the rank
// sent right before and the other could not resume without taking its
// memory (master/sched/sending_turn.cpp): then its next four such tests
// are answered at once, and the fifth yields.
TEST(MasterTest, TestsRightAfterASendKeepTheTurnOnlyWhereAYieldWouldPage) {
  constexpr std::uint64_t kKiB = 1024;
  for (bool tight : {false, true}) {
    SCOPED_TRACE(tight ? "the other rank needs the sender's memory" : "both fit");
    MasterHarness harness(2, 1, [](MasterOptions& options) { options.node_memory = 1024 * kKiB; });
    harness.InitAll();
    ExpectReply(harness, 0);  // rank 1 waits for the running slot
    // Rank 0 holds more than the budget: rank 1 cannot run beside it.
    harness.SetStorageBytes(0, tight ? 1100 * kKiB : 100 * kKiB);
    RequestMsg post;
    post.type = MsgType::kPostRecv;
    post.id = 1;
    post.peer = 1;
    harness.Send(0, post);
    harness.SendText(0, 1, 0, "x");
    RequestMsg test;
    test.type = MsgType::kTestRecv;
    test.id = 1;
    test.wants_reply = true;
    test.sent = 1;
    int answered = 0;
    std::optional<ReplyMsg> reply;
    for (; answered < 8; ++answered) {
      harness.Send(0, test);
      test.sent = 0;
      reply = harness.TakeReply(0);
      if (!reply || reply->type != MsgType::kTestRecv) break;
      EXPECT_EQ(reply->flag, 0);
    }
    EXPECT_EQ(answered, tight ? 4 : 0);
    EXPECT_EQ(harness.state(0), SlaveState::kRunnable) << "the last test yielded";
    if (tight) {  // rank 1 takes its memory
      ASSERT_TRUE(reply.has_value());
      EXPECT_EQ(reply->type, MsgType::kRelease);
      RequestMsg released;
      released.type = MsgType::kReleased;
      harness.Send(0, released);
    } else {
      EXPECT_FALSE(reply.has_value());
    }
    EXPECT_EQ(ExpectReply(harness, 1).type, MsgType::kInit);
    EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
  }
}

// --prefetch ahead: a released slave that will run next is told to read
// its data back while another runs, only when both fit in the budget.
TEST(MasterTest, ReadsAheadTheNextSlaveWithinTheBudget) {
  constexpr std::uint64_t kKiB = 1024;
  for (std::uint64_t running_bytes : {300 * kKiB, 500 * kKiB}) {
    SCOPED_TRACE("the running rank holds " + std::to_string(running_bytes) + " bytes");
    MasterHarness harness(2, 1, [](MasterOptions& options) {
      options.node_memory = 1024 * kKiB;
      options.prefetch = Prefetch::kAhead;
    });
    harness.InitAll();
    ExpectReply(harness, 0);
    harness.SetStorageBytes(0, 600 * kKiB);
    harness.Recv(0, 1, 1, 0);  // rank 1 starts: rank 0 is switched out
    EXPECT_EQ(ExpectReply(harness, 0).type, MsgType::kRelease);
    RequestMsg released;
    released.type = MsgType::kReleased;
    harness.Send(0, released);
    EXPECT_EQ(ExpectReply(harness, 1).type, MsgType::kInit);

    harness.SetStorageBytes(1, running_bytes);
    harness.SendText(1, 0, 0, "x");  // rank 0 is runnable, next to run
    bool fits = 600 * kKiB + running_bytes <= 1024 * kKiB;
    if (fits) {
      EXPECT_EQ(ExpectReply(harness, 0).type, MsgType::kReadAhead);
    }
    ExpectNoReply(harness, 0);
    ExpectNoReply(harness, 1);  // the running rank is never asked to release
    harness.Recv(1, 2, 0, 0);   // rank 0 runs
    if (!fits) {  // its data comes back at resume, after rank 1 released
      EXPECT_EQ(ExpectReply(harness, 1).type, MsgType::kRelease);
      harness.Send(1, released);
    }
    ExpectMessage(harness, 0, 1, 0, "x");
    EXPECT_FALSE(harness.master().failed()) << harness.master().failure();
  }
}

}  // namespace
}  // namespace bdmpi
