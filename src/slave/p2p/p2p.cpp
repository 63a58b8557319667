// The slave's half of point-to-point. A send stages its payload (window or
// spill file) and returns; only a synchronous one then waits for its
// match. A receive is posted to the master, which matches it in MPI order;
// waiting for it is the point where the slave may be descheduled.
#include "slave/p2p/p2p.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/comm/cross_job.h"
#include "slave/p2p/bsend_buffer.h"
#include "slave/p2p/direct_path.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/threads.h"

namespace bdmpi {
namespace {

constexpr int kTagUpperBound = std::numeric_limits<int>::max();

}  // namespace

void CheckDest(const CommInfo& comm, int dest) {
  if (dest == MPI_PROC_NULL) return;
  if (dest < 0 || dest >= comm.PeerGroupSize())
    throw Error(kErrRank, "destination rank " + std::to_string(dest) +
                              " is not in [0, " + std::to_string(comm.PeerGroupSize()) + ")");
}

void CheckSendTag(int tag) {
  if (tag < 0 || tag > kTagUpperBound)
    throw Error(kErrTag, "tag " + std::to_string(tag) + " is negative");
}

void CheckSource(const CommInfo& comm, int source) {
  if (source == MPI_PROC_NULL || source == MPI_ANY_SOURCE) return;
  if (source < 0 || source >= comm.PeerGroupSize())
    throw Error(kErrRank, "source rank " + std::to_string(source) +
                              " is not in [0, " + std::to_string(comm.PeerGroupSize()) + ")");
}

void CheckRecvTag(int tag) {
  if (tag != MPI_ANY_TAG && tag < 0)
    throw Error(kErrTag, "tag " + std::to_string(tag) + " is negative");
}

// Copies a completed receive's data and status out of the master's reply
// (unpacking it when `scattered`, see wire_data.h).
// `comm`: for the source's number (an intercommunicator's remote rank).
int FinishRecv(const ReplyMsg& reply, void* buffer, int count, const TypeInfo* scattered,
               std::uint64_t capacity, MPI_Status* status, const CommInfo* comm) {
  FetchInto(reply, buffer, count, scattered, capacity);
  std::uint64_t received = reply.bytes < capacity ? reply.bytes : capacity;
  int source = comm != nullptr ? comm->UserSource(reply.source) : reply.source;
  SetStatus(status, source, reply.tag, reply.error, received);
  return reply.error;
}

RequestMsg RecvRequest(MsgType type, const CommInfo& comm, int source, int tag,
                       std::uint64_t capacity, std::uint64_t id) {
  RequestMsg request;
  request.type = type;
  request.comm = comm.id;
  request.rank = comm.WireRank();
  request.peer = comm.WirePeer(source);
  request.tag = tag;
  request.bytes = capacity;
  request.id = id;
  return request;
}

// A null buffer with data to move: MPI_ERR_BUFFER, as Open MPI returns
// (its OMPI_CHECK_USER_BUFFER), instead of a crash in memcpy. Only for
// dense types: a type with gaps may hold absolute addresses (MPI_BOTTOM).
void CheckBuffer(const void* buffer, std::uint64_t bytes, MPI_Datatype datatype) {
  if (buffer == nullptr && bytes > 0) CheckBufferOf(buffer, bytes, LookupType(datatype));
}

void CheckBufferOf(const void* buffer, std::uint64_t bytes, const TypeInfo& type) {
  if (buffer == nullptr && bytes > 0 && type.Dense())
    throw Error(kErrBuffer, "a null buffer for " + std::to_string(bytes) + " bytes");
}

void ThrowIfError(int error_class, const char* what) {
  if (error_class != MPI_SUCCESS) throw Error(error_class, what);
}

RequestMsg IdRequest(MsgType type, std::uint64_t id) {
  RequestMsg request;
  request.type = type;
  request.id = id;
  return request;
}

int DirectSender(const CommInfo* comm, int source) {
  // Other threads that may need the rank's lock (held while it spins)
  // before the message comes get only a short look.
  if (comm == nullptr || source == MPI_PROC_NULL || !threads::MayBlockAtMaster())
    return kFarSender;
  Runtime* runtime = Runtime::Instance();
  if (source == MPI_ANY_SOURCE)
    return runtime->nnodes() == 1 && !comm->inter ? kAnySender : kFarSender;
  int world_rank;
  if (comm->inter) {
    if (source < 0 || static_cast<std::size_t>(source) >= comm->remote_world_ranks.size())
      return kFarSender;
    world_rank = comm->remote_world_ranks[static_cast<std::size_t>(source)];
  } else {
    if (source < 0 || source >= comm->size) return kFarSender;
    world_rank = comm->WorldRank(source);
  }
  int slave = runtime->LocalSlave(world_rank);
  return slave >= 0 ? slave : kFarSender;
}

int FinishDirect(DirectRecv& recv, const CommInfo* comm, MPI_Status* status, void* buffer,
                 int count, const TypeInfo* scattered, std::uint64_t capacity) {
  DirectStatus sent = Direct().TakeWritten(recv);
  // Only a message from the inbox may not fit, or need unpacking: a
  // sender writes only a dense receive large enough for it.
  if (scattered != nullptr && !recv.inbox_data.empty())
    UnpackElements(recv.inbox_data.data(), recv.inbox_data.size(), buffer, count, *scattered);
  int error = sent.bytes > capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  int source = comm != nullptr ? comm->UserSource(sent.source) : sent.source;
  SetStatus(status, source, sent.tag, error, std::min(sent.bytes, capacity));
  return error;
}

namespace {

// A send's arguments once checked, with its communicator and type looked
// up: an MPI_Isend checks them once, not again as its request starts (a
// stream of small sends spends its time in steps like these).
struct CheckedSend {
  const CommInfo& comm;
  const TypeInfo& type;
  std::uint64_t bytes;
};

CheckedSend CheckSend(const void* buffer, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  std::uint64_t bytes = WireBytes(count, datatype);
  const TypeInfo& type = LookupType(datatype);
  CheckSendTag(tag);
  CheckDest(comm, dest);
  CheckBufferOf(buffer, bytes, type);
  return CheckedSend{comm, type, bytes};
}

// Sends a message (ChooseSendPath picks the path). A send with a request (`named`), a
// synchronous or a buffered one gets an id: MPI_Cancel names the send by
// it, and the master completes a synchronous or buffered one's id when a
// receive takes it. Returns the id (0: none).
std::uint64_t PostSend(const CheckedSend& checked, const void* buffer, int count, int dest,
                       int tag, MPI_Comm comm_handle, SendMode mode, bool named) {
  const CommInfo& comm = checked.comm;
  std::uint64_t bytes = checked.bytes;
  BufferOwner buffer_owner;
  if (mode == SendMode::kBuffered) buffer_owner = ReserveBuffered(comm_handle, bytes);
  if (dest == MPI_PROC_NULL) return 0;
  WireData wire = ToWire(buffer, count, checked.type, bytes);
  Runtime* runtime = Runtime::Instance();
  RequestMsg request;
  // A synchronous or buffered send wants to know when it is matched: a
  // buffered message holds its room in the attached buffer until then.
  request.type = mode == SendMode::kStandard ? MsgType::kSend : MsgType::kSyncSend;
  request.comm = comm.id;
  request.rank = comm.WireRank();
  request.peer = comm.WirePeer(dest);
  request.tag = tag;
  if (named || mode != SendMode::kStandard) request.id = runtime->NewRecvId();
  // A standard send may go direct or be placed straight into its receive
  // buffer; a synchronous or buffered one waits for its match's notice,
  // which the staged paths give (ChooseSendPath).
  int dest_world = comm.inter ? comm.remote_world_ranks[dest] : comm.WorldRank(dest);
  // A nonblocking send's message may wait in the batch for the next
  // blocking call, test or wait (many then share one queue message); a
  // blocking send's goes out at once.
  std::optional<Runtime::BatchedPosts> batched;
  if (named) batched.emplace(*runtime);
  runtime->SendMessage(wire.data, wire.bytes, request,
                       mode == SendMode::kStandard ? SendKind::kStandard : SendKind::kMatchNotice,
                       dest_world);
  if (mode == SendMode::kBuffered) RecordBuffered(buffer_owner, request.id, wire.bytes);
  return request.id;
}

}  // namespace

void Send(const void* buffer, int count, MPI_Datatype datatype, int dest,
          int tag, MPI_Comm comm_handle, SendMode mode) {
  if (CrossJob(comm_handle) != nullptr)
    return CrossSend(comm_handle, buffer, count, datatype, dest, tag, mode);
  std::uint64_t id = PostSend(CheckSend(buffer, count, datatype, dest, tag, comm_handle), buffer,
                              count, dest, tag, comm_handle, mode, /*named=*/false);
  // A synchronous send is a blocking point: the rank waits, like a
  // receive, until the destination takes the message.
  if (mode == SendMode::kSynchronous && id != 0)
    Runtime::Instance()->Call(IdRequest(MsgType::kWaitSsend, id));
}

void Recv(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
          MPI_Comm comm_handle, MPI_Status* status) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  if (comm.cross) return CrossRecv(comm, buffer, count, datatype, source, tag, status);
  std::uint64_t capacity = WireBytes(count, datatype);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  CheckBuffer(buffer, capacity, datatype);
  if (source == MPI_PROC_NULL) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return;
  }
  Runtime* runtime = Runtime::Instance();
  const TypeInfo& type = LookupType(datatype);
  // Post and wait in one request (the master treats wants_reply as wait).
  RequestMsg request =
      RecvRequest(MsgType::kPostRecv, comm, source, tag, capacity, runtime->NewRecvId());
  PostRecvArgs{runtime->PlaceableAddress(buffer, capacity, type.Dense())}.Into(request);
  MPI_Status received;
  // Published for senders of the node (direct_path.h): one may write it
  // while this rank polls, or before the master hears of it.
  std::shared_ptr<DirectRecv> direct =
      Direct().Post(request.comm, request.peer, tag,
                    type.Dense() ? reinterpret_cast<std::uint64_t>(buffer) : 0, capacity,
                    request.id);
  if (direct->published()) {
    bool written = type.Dense() && Direct().Poll(*direct, DirectSender(&comm, source));
    if (!written && Direct().Tell(*direct)) {
      request.code = direct->slot + 1;
    } else {
      Direct().WaitWritten(*direct);
      int error = FinishDirect(*direct, &comm, &received, buffer, count,
                               type.Dense() ? nullptr : &type, capacity);
      CopyResult(status, received);
      ThrowIfError(error, "message longer than the receive buffer");
      return;
    }
  }
  ReplyMsg reply = runtime->Call(request);
  Direct().Collect(*direct);
  int error = FinishRecv(reply, buffer, count, type.Dense() ? nullptr : &type, capacity,
                         &received, &comm);
  CopyResult(status, received);
  ThrowIfError(error, "message longer than the receive buffer");
}

namespace {

// A receive request for these arguments, checked, not started.
std::unique_ptr<P2pRequest> RecvRequestFor(void* buffer, int count, MPI_Datatype datatype,
                                           int source, int tag, MPI_Comm comm_handle) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  auto pending = std::make_unique<P2pRequest>(comm_handle);
  pending->is_recv = true;
  pending->buffer = buffer;
  pending->capacity = WireBytes(count, datatype);
  pending->count = count;
  pending->layout = ScatteredLayout(datatype);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  CheckBuffer(buffer, pending->capacity, datatype);
  pending->peer = source;
  pending->tag = tag;
  return pending;
}

// A send request for these arguments (checked), not started.
std::unique_ptr<P2pRequest> SendRequestFor(const void* buffer, int count, MPI_Datatype datatype,
                                           int dest, int tag, MPI_Comm comm_handle,
                                           SendMode mode) {
  auto pending = std::make_unique<P2pRequest>(comm_handle);
  pending->send_buffer = buffer;
  pending->count = count;
  pending->datatype = datatype;
  pending->peer = dest;
  pending->tag = tag;
  pending->mode = mode;
  return pending;
}

// Posts the receive to the master (or completes one from MPI_PROC_NULL).
void StartRecv(P2pRequest& pending) {
  pending.active = true;
  if (pending.peer == MPI_PROC_NULL) {
    pending.done = true;
    SetStatus(&pending.status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return;
  }
  pending.done = false;
  const CommInfo& comm = LookupComm(pending.comm);
  Runtime* runtime = Runtime::Instance();
  pending.id = runtime->NewRecvId();
  RequestMsg request = RecvRequest(MsgType::kPostRecv, comm, pending.peer, pending.tag,
                                   pending.capacity, pending.id);
  PostRecvArgs{runtime->PlaceableAddress(pending.buffer, pending.capacity,
                                         pending.layout == nullptr)}
      .Into(request);
  bool dense = pending.layout == nullptr;
  pending.direct =
      Direct().Post(request.comm, request.peer, pending.tag,
                    dense ? reinterpret_cast<std::uint64_t>(pending.buffer) : 0,
                    pending.capacity, pending.id);
  // The master hears of it with this rank's next request that may concern
  // it (Runtime::LeavesReceivesUntold), unless a sender has completed it
  // by then (direct_path.h). But a receive with room for more than a
  // direct message may get one only through the master, which writes it
  // straight into the buffer when it knows the receive by then (a halo
  // exchange's Irecv, then a barrier that asks the master nothing); so it
  // is told at once.
  bool defer = dense && pending.buffer != nullptr && pending.capacity <= Direct().max_bytes();
  if (Direct().Announce(pending.direct, request, defer,
                        defer ? DirectSender(&comm, pending.peer) : kFarSender))
    runtime->Post(request);
}

// Sends are buffered: the request is complete as soon as it is started,
// unless it is synchronous; then the master completes its id when the
// message is matched. `checked`: its arguments (a persistent request's
// again at each start: its communicator may be gone).
void StartSend(P2pRequest& pending, const CheckedSend& checked) {
  Direct().TakeLastQueued();  // a blocking send's, which no request names
  pending.id = PostSend(checked, pending.send_buffer, pending.count, pending.peer, pending.tag,
                        pending.comm, pending.mode, /*named=*/true);
  // A message left in the receiver's inbox: MPI_Cancel may withdraw it.
  pending.queued = Direct().TakeLastQueued();
  pending.active = true;
  pending.done = pending.mode != SendMode::kSynchronous || pending.id == 0;
  SetEmptyStatus(&pending.status);
}

}  // namespace

MPI_Request Irecv(void* buffer, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm_handle) {
  if (CrossJob(comm_handle) != nullptr)
    return CrossIrecv(comm_handle, buffer, count, datatype, source, tag);
  std::unique_ptr<P2pRequest> pending =
      RecvRequestFor(buffer, count, datatype, source, tag, comm_handle);
  StartRecv(*pending);
  return NewRequest(std::move(pending));
}

MPI_Request Isend(const void* buffer, int count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm, SendMode mode) {
  if (CrossJob(comm) != nullptr)
    return CrossIsend(comm, buffer, count, datatype, dest, tag, mode, /*persistent=*/false);
  CheckedSend checked = CheckSend(buffer, count, datatype, dest, tag, comm);
  std::unique_ptr<P2pRequest> pending =
      SendRequestFor(buffer, count, datatype, dest, tag, comm, mode);
  StartSend(*pending, checked);
  return NewRequest(std::move(pending));
}

MPI_Request SendInit(const void* buffer, int count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm, SendMode mode) {
  if (CrossJob(comm) != nullptr)
    return CrossIsend(comm, buffer, count, datatype, dest, tag, mode, /*persistent=*/true);
  CheckSend(buffer, count, datatype, dest, tag, comm);
  std::unique_ptr<P2pRequest> pending =
      SendRequestFor(buffer, count, datatype, dest, tag, comm, mode);
  // MPI lets the program free a derived type while a persistent request
  // still uses it: the request keeps a duplicate of its own, freed with it.
  if (LookupType(datatype).envelope.combiner != MPI_COMBINER_NAMED)
    pending->datatype = DupType(datatype);
  pending->persistent = true;
  pending->active = false;
  pending->done = true;
  return NewRequest(std::move(pending));
}

MPI_Request RecvInit(void* buffer, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm) {
  if (CrossJob(comm) != nullptr) return CrossRecvInit(comm, buffer, count, datatype, source, tag);
  std::unique_ptr<P2pRequest> pending =
      RecvRequestFor(buffer, count, datatype, source, tag, comm);
  pending->persistent = true;
  pending->active = false;
  pending->done = true;
  return NewRequest(std::move(pending));
}

void P2pRequest::Start() {
  if (is_recv) {
    StartRecv(*this);
  } else {
    StartSend(*this, CheckSend(send_buffer, count, datatype, peer, tag, comm));
  }
}

bool ProbeQueued(const CommInfo& comm, const RequestMsg& probe, bool close,
                 MPI_Status* status) {
  DirectStatus queued;
  if (!Direct().ProbeInbox(probe.comm, probe.peer, probe.tag, close, &queued)) return false;
  SetResult(status, comm.UserSource(queued.source), queued.tag, queued.bytes);
  return true;
}

bool ProbeNeedsMaster(int source, int tag, MPI_Comm comm_handle, MPI_Status* status) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  if (source != MPI_PROC_NULL) return true;
  SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
  return false;
}

void Probe(int source, int tag, MPI_Comm comm_handle, MPI_Status* status) {
  if (const CommInfo* cross = CrossJob(comm_handle)) {
    CrossProbe(*cross, source, tag, /*wait=*/true, status);
    return;
  }
  if (!ProbeNeedsMaster(source, tag, comm_handle, status)) return;
  const CommInfo& comm = LookupComm(comm_handle);
  RequestMsg request = RecvRequest(MsgType::kProbe, comm, source, tag, 0, 0);
  // The inbox's messages come first (older than their senders' ones at
  // the master); while this rank asks the master, the next ones go there
  // too, to wake it.
  if (ProbeQueued(comm, request, /*close=*/true, status)) return;
  ReplyMsg reply = Runtime::Instance()->Call(request);
  Direct().OpenInbox();
  SetResult(status, comm.UserSource(reply.source), reply.tag, reply.bytes);
}

bool Iprobe(int source, int tag, MPI_Comm comm_handle, MPI_Status* status) {
  if (const CommInfo* cross = CrossJob(comm_handle))
    return CrossProbe(*cross, source, tag, /*wait=*/false, status);
  if (!ProbeNeedsMaster(source, tag, comm_handle, status)) return true;
  const CommInfo& comm = LookupComm(comm_handle);
  RequestMsg request = RecvRequest(MsgType::kIprobe, comm, source, tag, 0, 0);
  if (ProbeQueued(comm, request, /*close=*/true, status)) return true;
  ReplyMsg reply = Runtime::Instance()->Call(request);
  Direct().OpenInbox();
  if (reply.flag) SetResult(status, comm.UserSource(reply.source), reply.tag, reply.bytes);
  return reply.flag != 0;
}

// Copies the master's completion of a receive into its request; for a
// synchronous send it only says that the message was matched.
void P2pRequest::Absorb(const ReplyMsg& reply) {
  if (is_recv) {
    const CommInfo* info = FindComm(comm);  // the program may have freed it
    FinishRecv(reply, buffer, count, layout.get(), capacity, &status, info);
    if (direct) Direct().Collect(*direct);
  } else {
    SetEmptyStatus(&status);
  }
  done = true;
}

namespace {

// Freed P2pRequests kept for the next ones. Plain storage, never
// destroyed: requests the request table still holds are freed at exit,
// after every object with a destructor of this library may be gone.
struct P2pRequestCache {
  static constexpr std::size_t kKept = 64;
  void* blocks[kKept];
  std::size_t count;
};
P2pRequestCache p2p_request_cache;

}  // namespace

void* P2pRequest::operator new(std::size_t bytes) {
  P2pRequestCache& cache = p2p_request_cache;
  if (bytes != sizeof(P2pRequest) || cache.count == 0) return ::operator new(bytes);
  return cache.blocks[--cache.count];
}

void P2pRequest::operator delete(void* request, std::size_t bytes) {
  P2pRequestCache& cache = p2p_request_cache;
  if (bytes != sizeof(P2pRequest) || cache.count == P2pRequestCache::kKept) {
    ::operator delete(request);
    return;
  }
  cache.blocks[cache.count++] = request;
}

void P2pRequest::ProgressAlone(bool wait) {
  if (!is_recv || done || !active || !direct || direct->collected) return;
  if (direct->told) {
    // Told before this wait: it may still be written while this rank
    // polls, which then tells the master it is over (direct_table.h).
    if (!wait || !Direct().PollTold(*direct, DirectSender(FindComm(comm), peer))) return;
    Runtime::Instance()->Note(IdRequest(MsgType::kDirectTaken, id));
    FinishDirect(*direct, FindComm(comm), &status, buffer, count, layout.get(), capacity);
    done = true;
    return;
  }
  if (!(wait ? Direct().Poll(*direct, DirectSender(FindComm(comm), peer))
             : Direct().Written(*direct))) {
    // The master must hear of it now (with every receive posted before
    // it), unless a sender takes it first.
    Runtime::Instance()->TellDeferredReceives();
    if (direct->told) return;
    Direct().WaitWritten(*direct);
  }
  FinishDirect(*direct, FindComm(comm), &status, buffer, count, layout.get(), capacity);
  done = true;
}

bool P2pRequest::TestHere() {
  if (!is_recv || done || !active || !direct || direct->collected || direct->told ||
      !direct->in_ring() || Direct().Written(*direct))
    return false;
  // A polling loop (MPI_Test until a message comes) would otherwise tell
  // the master of the receive and then ask it at every test: a round trip,
  // two system calls and two switches of the core, per call.
  return Direct().MayStayUntold(DirectSender(FindComm(comm), peer));
}

bool P2pRequest::Free() {
  // The master must know a receive it is asked to drop the message of;
  // one a sender completed meanwhile is simply over.
  ProgressAlone(/*wait=*/false);
  if (is_recv && active && !done && direct) Direct().Abandon(direct);
  Request::Free();
  if (persistent && !is_recv &&
      LookupType(datatype).envelope.combiner != MPI_COMBINER_NAMED)
    FreeType(&datatype);  // SendInit's duplicate
  return true;
}

}  // namespace bdmpi
