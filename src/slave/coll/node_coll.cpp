// The node engine; see node_coll.h.
#include "slave/coll/node_coll.h"

#include <memory>
#include <string>
#include <vector>

#include "common/coll_engine.h"
#include "common/error.h"
#include "common/protocol.h"
#include "slave/coll/fold.h"
#include "slave/p2p/direct_path.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// A receive on the collective twin that senders of the node may write
// directly. Every receive of a step is posted before the first is waited
// for, so that each sender finds its own published.
class TwinRecv {
 public:
  TwinRecv(const CommInfo& comm, int source, int tag, void* buffer, std::uint64_t capacity)
      : buffer_(buffer), capacity_(capacity) {
    Runtime* runtime = Runtime::Instance();
    request_ = RecvRequest(MsgType::kPostRecv, comm, source, tag, capacity, runtime->NewRecvId());
    request_.comm = CollectiveCommId(comm.id);
    PostRecvArgs{runtime->PlaceableAddress(buffer, capacity, true)}.Into(request_);
    direct_ = Direct().Post(request_.comm, request_.peer, tag,
                            reinterpret_cast<std::uint64_t>(buffer), capacity, request_.id);
    sender_ = runtime->LocalSlave(comm.WorldRank(source));
  }

  // Waits for the message; returns its size in bytes (an error class when
  // it was longer than the receive).
  std::uint64_t Wait(int* error) {
    *error = MPI_SUCCESS;
    if (direct_->published()) {
      // A sender whose earlier message waits at the master sends this one
      // there too: polling for it would only delay the request.
      bool written = !Direct().QueuedAtMaster(sender_) && Look();
      if (!written && Direct().Tell(*direct_)) {
        request_.code = direct_->slot + 1;
      } else {
        Direct().WaitWritten(*direct_);
        return Direct().TakeWritten(*direct_).bytes;
      }
    }
    Runtime* runtime = Runtime::Instance();
    ReplyMsg reply = runtime->Call(request_);
    Direct().Collect(*direct_);
    runtime->FetchPayload(reply, buffer_, capacity_);
    *error = reply.error;
    return reply.bytes;
  }

 private:
  // Whether a sender wrote the receive while this rank looked: spinning
  // (a core per running rank) as any wait does, or yielding.
  bool Look() const {
    int sender = sender_ >= 0 ? sender_ : kFarSender;
    if (!Direct().yields() || sender < 0 || !direct_->in_ring() || direct_->told)
      return Direct().Poll(*direct_, sender);
    return Direct().YieldFor(*direct_, sender);
  }

  void* buffer_;
  std::uint64_t capacity_;
  RequestMsg request_;
  std::shared_ptr<DirectRecv> direct_;
  int sender_ = -1;
};

// A standard send on the collective twin: the direct path's when the
// receiver has published its receive.
void TwinSend(const CommInfo& comm, int dest, int tag, const void* data, std::uint64_t bytes) {
  RequestMsg request = CollRequest(MsgType::kSend, CollectiveCommId(comm.id), comm.rank, dest, tag);
  Runtime::Instance()->SendMessage(data, bytes, request, SendKind::kStandard,
                                   comm.WorldRank(dest));
}

// A part of another size than this rank's: the same count and datatype
// everywhere is the program's duty; named as the masters name it.
void CheckSize(CollKind kind, int source, std::uint64_t got, int error, std::uint64_t want,
               const CommInfo& comm) {
  if (error == MPI_SUCCESS && got == want) return;
  throw Error(kErrTruncate, NodeCollCallName(kind) + " with different sizes: rank " +
                                std::to_string(source) + " gives " +
                                (error == MPI_SUCCESS ? std::to_string(got) : "more than " +
                                                                                 std::to_string(want)) +
                                " bytes, rank " + std::to_string(comm.rank) + " " +
                                std::to_string(want) +
                                " (every rank must give the same count and datatype)");
}

// Receives one part of `bytes` from every other member into `parts` (in
// rank order; the hub's own slot left alone), all posted first.
void GatherParts(const CommInfo& comm, CollKind kind, std::uint64_t bytes,
                 std::vector<std::vector<std::byte>>& parts) {
  int tag = NodeCollTag(kind);
  // One byte more than expected: a longer part shows as longer, not
  // truncated to look right.
  std::vector<std::unique_ptr<TwinRecv>> recvs(static_cast<std::size_t>(comm.size));
  for (int r = 0; r < comm.size; ++r) {
    if (r == comm.rank) continue;
    parts[static_cast<std::size_t>(r)].resize(bytes + 1);
    recvs[static_cast<std::size_t>(r)] = std::make_unique<TwinRecv>(
        comm, r, tag, parts[static_cast<std::size_t>(r)].data(), bytes + 1);
  }
  for (int r = 0; r < comm.size; ++r) {
    if (r == comm.rank) continue;
    int error = MPI_SUCCESS;
    std::uint64_t got = recvs[static_cast<std::size_t>(r)]->Wait(&error);
    CheckSize(kind, r, got, error, bytes, comm);
    parts[static_cast<std::size_t>(r)].resize(bytes);
  }
}

// Waits for `recv` of `bytes` from `source` (posted with one spare byte).
void AwaitFrom(TwinRecv& recv, const CommInfo& comm, CollKind kind, int source,
               std::uint64_t bytes) {
  int error = MPI_SUCCESS;
  std::uint64_t got = recv.Wait(&error);
  CheckSize(kind, source, got, error, bytes, comm);
}

// Receives `bytes` from `source` into `data` (capacity bytes + 1 spare).
void ReceiveFrom(const CommInfo& comm, CollKind kind, int source, void* data,
                 std::uint64_t bytes) {
  TwinRecv recv(comm, source, NodeCollTag(kind), data, bytes + 1);
  AwaitFrom(recv, comm, kind, source, bytes);
}

// A member's part to the hub, and the hub's answer into `answer` (`bytes`
// + 1 spare). When ranks share cores the answer's receive is published
// before the part goes: the hub answers as soon as the last part came,
// and a member that shares its core may not run again before then, so a
// receive posted after the send would make the hub wait for it or leave
// the answer in the inbox. With a core each the member still runs when
// the answer comes and posts right after its send, the order the node
// engine was measured with there (docs/collectives.md).
void PartThenAnswer(const CommInfo& comm, CollKind kind, const void* part, void* answer,
                    std::uint64_t bytes) {
  int tag = NodeCollTag(kind);
  if (!Direct().yields()) {
    TwinSend(comm, 0, tag, part, bytes);
    ReceiveFrom(comm, kind, 0, answer, bytes);
    return;
  }
  TwinRecv recv(comm, 0, tag, answer, bytes + 1);
  TwinSend(comm, 0, tag, part, bytes);
  AwaitFrom(recv, comm, kind, 0, bytes);
}

}  // namespace

void NodeBarrier(const CommInfo& comm) {
  if (comm.size == 1) return;
  int tag = NodeCollTag(CollKind::kBarrier);
  // Empty messages; a receive needs an address to be written directly.
  std::byte none[1] = {};
  if (comm.rank == 0) {
    std::vector<std::vector<std::byte>> parts(static_cast<std::size_t>(comm.size));
    GatherParts(comm, CollKind::kBarrier, 0, parts);
    for (int r = 1; r < comm.size; ++r) TwinSend(comm, r, tag, none, 0);
    return;
  }
  std::byte answer[1] = {};
  PartThenAnswer(comm, CollKind::kBarrier, none, answer, 0);
}

void NodeBcast(void* buffer, int count, MPI_Datatype datatype, int root, const CommInfo& comm) {
  if (comm.size == 1) return;
  int tag = NodeCollTag(CollKind::kBcast);
  if (comm.rank == root) {
    WireData wire = ToWire(buffer, count, datatype);
    for (int r = 0; r < comm.size; ++r) {
      if (r != root) TwinSend(comm, r, tag, wire.data, wire.bytes);
    }
    return;
  }
  std::uint64_t bytes = WireBytes(count, datatype);
  std::vector<std::byte> data(bytes + 1);
  ReceiveFrom(comm, CollKind::kBcast, root, data.data(), bytes);
  data.resize(bytes);
  WriteWire(data, buffer, count, ScatteredLayout(datatype).get());
}

void NodeAllreduce(const void* send, void* recv, int count, MPI_Datatype datatype,
                   const CheckedOp& op, const CommInfo& comm) {
  if (send == MPI_IN_PLACE) send = recv;
  std::vector<std::byte> mine = WireCopy(send, count, datatype);
  std::uint64_t bytes = mine.size();
  int tag = NodeCollTag(CollKind::kAllreduce);
  std::vector<std::byte> result;
  if (comm.rank == 0) {
    std::vector<std::vector<std::byte>> parts(static_cast<std::size_t>(comm.size));
    GatherParts(comm, CollKind::kAllreduce, bytes, parts);
    parts[0] = std::move(mine);
    // In rank order, as the masters fold.
    Fold fold(op, datatype, count);
    for (const std::vector<std::byte>& part : parts) fold.Add(part);
    result = fold.result();
    for (int r = 1; r < comm.size; ++r) TwinSend(comm, r, tag, result.data(), bytes);
  } else {
    result.resize(bytes + 1);
    PartThenAnswer(comm, CollKind::kAllreduce, mine.data(), result.data(), bytes);
    result.resize(bytes);
  }
  WriteWire(result, recv, count, ScatteredLayout(datatype).get());
}

}  // namespace bdmpi
