// Operations on targets of other nodes; see remote.h.
#include "slave/rma/remote.h"

#include <cstring>
#include <string>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi::rma {

RemoteOp RemoteOpFor(const Window& win, RemoteKind kind, int target) {
  const Peer& peer = win.peers[static_cast<std::size_t>(target)];
  RemoteOp op;
  op.kind = kind;
  op.target = target;
  op.slot = peer.slot;
  op.pid = peer.pid;
  op.file_id = peer.file_id;
  op.file_inode = peer.file_inode;
  op.file_bytes = peer.file_bytes;
  op.rank = win.rank;
  return op;
}

void TellWait(const Window& win, RmaWait wait, int rank, int detail) {
  // The master keeps one per slave: so does this.
  static RmaWaitArgs told;
  RmaWaitArgs now{LookupComm(win.comm).id, static_cast<std::int32_t>(wait), rank, detail};
  if (now == told) return;
  RequestMsg request;
  request.type = MsgType::kRmaWaitIn;
  now.Into(request);
  Runtime::Instance()->Post(request);
  told = now;
}

RemoteResult CallRemote(const Window& win, RemoteOp op, const std::vector<TargetRun>& runs,
                        const std::byte* data, std::uint64_t reply_capacity) {
  op.runs = runs.size();
  std::vector<std::byte> packet(sizeof op + runs.size() * sizeof(TargetRun) + op.data_bytes);
  std::memcpy(packet.data(), &op, sizeof op);
  if (!runs.empty())
    std::memcpy(packet.data() + sizeof op, runs.data(), runs.size() * sizeof(TargetRun));
  if (op.data_bytes > 0)
    std::memcpy(packet.data() + sizeof op + runs.size() * sizeof(TargetRun), data,
                op.data_bytes);

  const CommInfo& comm = LookupComm(win.comm);
  Runtime* runtime = Runtime::Instance();
  RequestMsg send;
  send.type = MsgType::kSend;
  send.comm = comm.id;
  send.rank = comm.WireRank();
  send.peer = comm.WirePeer(op.target);
  send.tag = kTagRemoteOp;
  runtime->StagePayload(packet.data(), packet.size(), send);
  runtime->PostStaged(send);

  TellWait(win, RmaWait::kOperation, op.target,
           static_cast<int>(op.kind) | (op.fetch != 0 ? kFetchBit : 0));
  std::uint64_t capacity = sizeof(RemoteReply) + reply_capacity;
  RequestMsg recv = RecvRequest(MsgType::kPostRecv, comm, op.target, kTagRemoteReply, capacity,
                                runtime->NewRecvId());
  ReplyMsg reply = runtime->Call(recv);
  if (reply.error != 0 || reply.bytes < sizeof(RemoteReply) || reply.bytes > capacity)
    throw Error(kErrIntern, "a malformed answer from rank " + std::to_string(op.target) +
                                    "'s master to a one-sided operation");
  std::vector<std::byte> answer(reply.bytes);
  runtime->FetchPayload(reply, answer.data(), answer.size());
  RemoteResult result;
  std::memcpy(&result.reply, answer.data(), sizeof result.reply);
  if (result.reply.error != 0) {
    result.reply.text[sizeof result.reply.text - 1] = '\0';
    throw Error(result.reply.error, result.reply.text);
  }
  result.data.assign(answer.begin() + sizeof(RemoteReply), answer.end());
  return result;
}

}  // namespace bdmpi::rma
