#include "master_harness.h"

#include <cstring>

#include "common/error.h"
#include "common/job_names.h"

namespace bdmpi::test_util {

void InProcessSlaveIo::Create(int nslaves, std::size_t window_size) {
  replies_.resize(nslaves);
  windows_.assign(nslaves, std::vector<std::byte>(window_size));
  storage_ = std::make_unique<StorageSlot[]>(nslaves);
  for (int i = 0; i < nslaves; ++i) storage_[i].allocated = 0;
}

std::size_t InProcessSlaveIo::ReceiveRequests(std::byte*, std::size_t) {
  throw Error(kErrIntern, "in-process masters are fed with ServeMessage, not run");
}

bool InProcessSlaveIo::SendReply(int slave, const ReplyMsg& reply) {
  // As ProcessSlaveIo's go-queues: room for four messages.
  if (replies_[slave].size() >= 4) return false;
  replies_[slave].push_back(reply);
  return true;
}

pid_t InProcessSlaveIo::Spawn(int, const SpawnSpec&) { return 0; }

MasterHarness::MasterHarness(int nslaves, int nrunning,
                             const std::function<void(MasterOptions&)>& adjust) {
  options_.job_id = NewJobId();
  options_.scratch_dir = scratch_.path();
  options_.nslaves = nslaves;
  options_.nrunning = nrunning;
  options_.bind = false;
  options_.program = {"/bin/true"};  // resolved, never started
  if (adjust) adjust(options_);
  auto io = std::make_unique<InProcessSlaveIo>();
  io_ = io.get();
  master_ = std::make_unique<Master>(options_, 0, 1, std::move(io));
  master_->Start();
}

MasterHarness::~MasterHarness() { master_.reset(); }

void MasterHarness::Send(int index, RequestMsg request, std::span<const std::byte> payload) {
  request.version = kProtocolVersion;
  request.slave = index;
  request.token = master_->slave(index).token;
  if (request.comm == kWorldCommId) request.rank = index;
  if (!payload.empty()) {
    request.where = Where::kInline;
    request.bytes = payload.size();
  }
  RequestBatch message;
  message.Append(request, payload.data());
  master_->ServeMessage(message.data(), message.size());
}

void MasterHarness::InitAll() {
  for (int index = 0; index < options_.nslaves; ++index) {
    RequestMsg init;
    init.type = MsgType::kInit;
    init.wants_reply = true;
    Send(index, init);
  }
}

void MasterHarness::SendText(int index, int dest, int tag, const std::string& text) {
  RequestMsg send;
  send.type = MsgType::kSend;
  send.peer = dest;
  send.tag = tag;
  Send(index, send, std::as_bytes(std::span(text.data(), text.size())));
}

void MasterHarness::Recv(int index, std::uint64_t id, int source, int tag,
                         std::uint64_t capacity) {
  RequestMsg recv;
  recv.type = MsgType::kPostRecv;
  recv.id = id;
  recv.peer = source;
  recv.tag = tag;
  recv.bytes = capacity;
  recv.wants_reply = true;
  Send(index, recv);
}

std::optional<ReplyMsg> MasterHarness::TakeReply(int index) {
  std::deque<ReplyMsg>& replies = io_->replies(index);
  if (replies.empty()) return std::nullopt;
  ReplyMsg reply = replies.front();
  replies.pop_front();
  return reply;
}

std::string MasterHarness::WindowText(int index, std::size_t bytes) {
  return std::string(reinterpret_cast<const char*>(io_->Window(index)), bytes);
}

void MasterHarness::SetStorageBytes(int index, std::uint64_t bytes) {
  io_->storage(index).allocated = bytes;
}

}  // namespace bdmpi::test_util
