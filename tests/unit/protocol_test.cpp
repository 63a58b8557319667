// The slave <-> master wire protocol: messages survive a real POSIX message
// queue byte for byte, carry the version, fit the queues' message sizes, every
// message type has a name, and spill file ids pack owner and sequence.
#include "common/protocol.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/message_queue.h"
#include "test_util.h"

namespace bdmpi {
namespace {

using test_util::UniqueIpcName;

// A request with every field set to a value unlike its default.
RequestMsg FullRequest() {
  RequestMsg request;
  request.type = MsgType::kAllreduce;
  request.slave = 17;
  request.comm = 0x12345;
  request.rank = 4095;
  request.peer = -1;
  request.tag = 0x7fffffff;
  request.datatype = 0xbeef;
  request.op = 0x1234;
  request.where = Where::kFile;
  request.wants_reply = true;
  request.code = -42;
  request.bytes = 0xfedcba9876543210ull;
  request.id = 0x0123456789abcdefull;
  request.file_id = MakeFileId(3, 99);
  return request;
}

ReplyMsg FullReply() {
  ReplyMsg reply;
  reply.type = MsgType::kProbe;
  reply.error = 15;
  reply.source = 12;
  reply.tag = -7;
  reply.flag = 1;
  reply.where = Where::kWindow;
  reply.bytes = 1ull << 40;
  reply.file_id = MakeFileId(kMasterFileOwner, 5);
  return reply;
}

// Sends `sent` through a fresh queue of `message_size` and returns what came
// out, also checking the size the queue reports.
template <typename Msg>
Msg RoundTrip(const Msg& sent, long message_size) {
  MessageQueue queue = MessageQueue::Create(UniqueIpcName("proto"), 4,
                                            message_size, /*nonblocking=*/false);
  queue.Send(&sent, sizeof sent);
  Msg received;
  std::memset(static_cast<void*>(&received), 0xa5, sizeof received);
  EXPECT_EQ(queue.Receive(&received, sizeof received), sizeof received);
  return received;
}

TEST(ProtocolTest, VersionSetByDefault) {
  EXPECT_EQ(RequestMsg{}.version, kProtocolVersion);
  EXPECT_EQ(ReplyMsg{}.version, kProtocolVersion);
  EXPECT_GE(kProtocolVersion, 1);
  // And the version is the first field, where any version can find it.
  EXPECT_EQ(offsetof(RequestMsg, version), 0u);
  EXPECT_EQ(offsetof(ReplyMsg, version), 0u);
}

TEST(ProtocolTest, DefaultsAreHarmless) {
  RequestMsg request;
  EXPECT_EQ(request.slave, -1);
  EXPECT_EQ(request.where, Where::kNone);
  EXPECT_FALSE(request.wants_reply);
  EXPECT_EQ(request.bytes, 0u);
  ReplyMsg reply;
  EXPECT_EQ(reply.error, 0);
  EXPECT_EQ(reply.where, Where::kNone);
  EXPECT_EQ(reply.flag, 0);
}

TEST(ProtocolTest, MessagesFitTheirQueues) {
  EXPECT_LE(static_cast<long>(sizeof(RequestMsg)), kRequestMsgSize);
  EXPECT_LE(static_cast<long>(sizeof(ReplyMsg)), kReplyMsgSize);
  EXPECT_TRUE(std::is_trivially_copyable_v<RequestMsg>);
  EXPECT_TRUE(std::is_trivially_copyable_v<ReplyMsg>);
  // Both queues can be made with these sizes within the default limits.
  MessageQueue requests = MessageQueue::Create(
      UniqueIpcName("req"), 10, kRequestMsgSize, /*nonblocking=*/true);
  MessageQueue replies = MessageQueue::Create(
      UniqueIpcName("go"), 10, kReplyMsgSize, /*nonblocking=*/true);
  RequestMsg request = FullRequest();
  ReplyMsg reply = FullReply();
  EXPECT_TRUE(requests.TrySend(&request, sizeof request));
  EXPECT_TRUE(replies.TrySend(&reply, sizeof reply));
}

TEST(ProtocolTest, RequestSurvivesMessageQueueByteForByte) {
  RequestMsg sent = FullRequest();
  RequestMsg received = RoundTrip(sent, kRequestMsgSize);
  EXPECT_EQ(std::memcmp(&sent, &received, sizeof sent), 0);
  EXPECT_EQ(received.version, kProtocolVersion);
  EXPECT_EQ(received.type, MsgType::kAllreduce);
  EXPECT_EQ(received.slave, 17);
  EXPECT_EQ(received.comm, 0x12345);
  EXPECT_EQ(received.rank, 4095);
  EXPECT_EQ(received.peer, -1);
  EXPECT_EQ(received.tag, 0x7fffffff);
  EXPECT_EQ(received.datatype, 0xbeef);
  EXPECT_EQ(received.op, 0x1234);
  EXPECT_EQ(received.where, Where::kFile);
  EXPECT_TRUE(received.wants_reply);
  EXPECT_EQ(received.code, -42);
  EXPECT_EQ(received.bytes, 0xfedcba9876543210ull);
  EXPECT_EQ(received.id, 0x0123456789abcdefull);
  EXPECT_EQ(received.file_id, MakeFileId(3, 99));
}

TEST(ProtocolTest, ReplySurvivesMessageQueueByteForByte) {
  ReplyMsg sent = FullReply();
  ReplyMsg received = RoundTrip(sent, kReplyMsgSize);
  EXPECT_EQ(std::memcmp(&sent, &received, sizeof sent), 0);
  EXPECT_EQ(received.version, kProtocolVersion);
  EXPECT_EQ(received.type, MsgType::kProbe);
  EXPECT_EQ(received.error, 15);
  EXPECT_EQ(received.source, 12);
  EXPECT_EQ(received.tag, -7);
  EXPECT_EQ(received.flag, 1);
  EXPECT_EQ(received.where, Where::kWindow);
  EXPECT_EQ(received.bytes, 1ull << 40);
  EXPECT_EQ(received.file_id, MakeFileId(kMasterFileOwner, 5));
}

TEST(ProtocolTest, SeveralRequestsKeepTheirOrder) {
  MessageQueue queue = MessageQueue::Create(UniqueIpcName("order"), 8,
                                            kRequestMsgSize, false);
  for (int i = 0; i < 8; ++i) {
    RequestMsg request = FullRequest();
    request.id = static_cast<std::uint64_t>(i);
    queue.Send(&request, sizeof request);
  }
  for (int i = 0; i < 8; ++i) {
    RequestMsg request;
    ASSERT_EQ(queue.Receive(&request, sizeof request), sizeof request);
    EXPECT_EQ(request.id, static_cast<std::uint64_t>(i));
  }
}

// ------------------------------------------------------------ type names

// Every message type as listed in protocol.h (BDMPI_MSG_TYPES), read from
// the source, so that these checks do not trust the macros they test.
struct Enumerator {
  std::string name;  // without the leading 'k'
  std::uint16_t value;
};

std::vector<Enumerator> MsgTypesInHeader() {
  std::ifstream file(BDMPI_SOURCE_DIR "/src/common/protocol.h");
  EXPECT_TRUE(file) << "cannot read protocol.h";
  std::stringstream text;
  text << file.rdbuf();
  std::string source = text.str();
  std::size_t begin = source.find("#define BDMPI_MSG_TYPES(X)");
  std::size_t end = source.find("end of BDMPI_MSG_TYPES", begin);
  EXPECT_NE(begin, std::string::npos);
  std::string body = source.substr(begin, end - begin);
  std::vector<Enumerator> types;
  std::regex enumerator(R"(\bX\((\w+),\s*(0x[0-9a-fA-F]+)\))");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), enumerator);
       it != std::sregex_iterator(); ++it) {
    types.push_back({(*it)[1].str(), static_cast<std::uint16_t>(
                                         std::stoul((*it)[2].str(), nullptr, 16))});
  }
  return types;
}

TEST(ProtocolTest, AllMsgTypesListsEveryType) {
  std::vector<Enumerator> types = MsgTypesInHeader();
  ASSERT_EQ(types.size(), std::size(kAllMsgTypes));
  for (std::size_t i = 0; i < types.size(); ++i)
    EXPECT_EQ(static_cast<std::uint16_t>(kAllMsgTypes[i]), types[i].value) << types[i].name;
}

TEST(ProtocolTest, MsgTypeNameCoversEveryType) {
  std::vector<Enumerator> types = MsgTypesInHeader();
  ASSERT_GE(types.size(), 13u) << "protocol.h parse found too few types";
  std::set<std::string> names;
  for (const Enumerator& type : types) {
    const char* name = MsgTypeName(static_cast<MsgType>(type.value));
    ASSERT_NE(name, nullptr) << type.name;
    EXPECT_STRNE(name, "?") << "MsgType::k" << type.name << " has no name";
    EXPECT_EQ(name, type.name) << "MsgType::k" << type.name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), types.size()) << "two types share a name";
}

TEST(ProtocolTest, MsgTypesAreNumberedByFamily) {
  std::set<std::uint16_t> values;
  for (const Enumerator& type : MsgTypesInHeader()) {
    int family = type.value >> 8;
    EXPECT_GE(family, 1) << type.name;
    EXPECT_LE(family, 0x0f) << type.name;
    EXPECT_NE(type.value & 0xff, 0) << type.name;
    EXPECT_TRUE(values.insert(type.value).second) << type.name << " reused";
  }
  EXPECT_EQ(static_cast<int>(MsgType::kInit) >> 8, 1);
  EXPECT_EQ(static_cast<int>(MsgType::kSend) >> 8, 2);
  EXPECT_EQ(static_cast<int>(MsgType::kBarrier) >> 8, 3);
}

// The views of the rows whose data sits in fields named for another: what
// one side writes, the other reads back, and nothing else changes.
TEST(ProtocolTest, TypedViewsRoundTrip) {
  RequestMsg lend = FullRequest();
  RequestMsg before = lend;
  LentSendArgs{0x7f0012345000, 1 << 20, 77}.Into(lend);
  LentSendArgs block = LentSendArgs::Of(lend);
  EXPECT_EQ(block.address, 0x7f0012345000u);
  EXPECT_EQ(block.bytes, 1u << 20);
  EXPECT_EQ(block.id, 77u);
  EXPECT_EQ(lend.where, Where::kLent);
  EXPECT_EQ(lend.comm, before.comm);
  EXPECT_EQ(lend.code, before.code);

  RequestMsg post = FullRequest();
  PostRecvArgs{0x7f00aa000000}.Into(post);
  EXPECT_EQ(PostRecvArgs::Of(post).address, 0x7f00aa000000u);
  EXPECT_EQ(post.id, FullRequest().id);

  RequestMsg placed = FullRequest();
  PlacedArgs{14}.Into(placed);
  EXPECT_EQ(PlacedArgs::Of(placed).error, 14);
  EXPECT_EQ(placed.file_id, FullRequest().file_id);

  for (bool granted : {false, true}) {
    for (bool retry_later : {false, true}) {
      ReplyMsg reply = FullReply();
      PlaceGrant{granted, retry_later, granted ? 0x1000u : 0u, granted ? 42u : 0u}.Into(reply);
      PlaceGrant read = PlaceGrant::Of(reply);
      EXPECT_EQ(read.granted, granted);
      EXPECT_EQ(read.retry_later, retry_later);
      EXPECT_EQ(read.address, granted ? 0x1000u : 0u);
      EXPECT_EQ(read.receiver_pid, granted ? 42u : 0u);
      EXPECT_EQ(reply.source, FullReply().source);
    }
  }

  ReplyMsg lent = FullReply();
  LentReplyArgs{0x2000, 4242}.Into(lent);
  EXPECT_EQ(lent.where, Where::kLent);
  EXPECT_EQ(LentReplyArgs::Of(lent).address, 0x2000u);
  EXPECT_EQ(LentReplyArgs::Of(lent).lender_pid, 4242u);
  EXPECT_EQ(lent.bytes, FullReply().bytes);
}

TEST(ProtocolTest, UnknownTypeHasPlaceholderName) {
  EXPECT_STREQ(MsgTypeName(static_cast<MsgType>(0)), "?");
  EXPECT_STREQ(MsgTypeName(static_cast<MsgType>(0xffff)), "?");
}

// ------------------------------------------------------------ file ids

std::uint64_t OwnerOf(std::uint64_t file_id) { return file_id >> 40; }
std::uint64_t SeqOf(std::uint64_t file_id) {
  return file_id & ((std::uint64_t{1} << 40) - 1);
}

TEST(ProtocolTest, MakeFileIdPacksOwnerAndSequence) {
  EXPECT_EQ(MakeFileId(0, 0), 0u);
  EXPECT_EQ(MakeFileId(1, 0), std::uint64_t{1} << 40);
  EXPECT_EQ(MakeFileId(0, 1), 1u);
  EXPECT_EQ(MakeFileId(5, 7), (std::uint64_t{5} << 40) | 7);
  for (std::uint64_t owner : {0ull, 1ull, 63ull, 4095ull, 0xfffffeull}) {
    for (std::uint64_t seq : {1ull, 2ull, 1000000ull, (1ull << 40) - 1}) {
      std::uint64_t id = MakeFileId(owner, seq);
      EXPECT_EQ(OwnerOf(id), owner);
      EXPECT_EQ(SeqOf(id), seq);
    }
  }
}

TEST(ProtocolTest, MasterOwnerFitsAndDiffersFromSlaves) {
  EXPECT_EQ(kMasterFileOwner, (std::uint64_t{1} << 24) - 1);
  std::uint64_t id = MakeFileId(kMasterFileOwner, 12);
  EXPECT_EQ(OwnerOf(id), kMasterFileOwner);
  EXPECT_EQ(SeqOf(id), 12u);
  EXPECT_NE(id, MakeFileId(0, 12));
  EXPECT_NE(id, MakeFileId(kMasterFileOwner - 1, 12));
}

TEST(ProtocolTest, SequenceWrapsWithoutTouchingTheOwner) {
  // A sequence past 40 bits is cut, never carried into the owner's bits.
  std::uint64_t id = MakeFileId(3, (std::uint64_t{1} << 40) + 5);
  EXPECT_EQ(OwnerOf(id), 3u);
  EXPECT_EQ(SeqOf(id), 5u);
}

TEST(ProtocolTest, MakeFileIdIsConstexpr) {
  static_assert(MakeFileId(2, 3) == ((std::uint64_t{2} << 40) | 3));
  SUCCEED();
}

}  // namespace
}  // namespace bdmpi
