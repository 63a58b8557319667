// Operations on targets of other nodes; see remote.h.
#include "slave/rma/remote.h"

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/datatype/datatypes.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi::rma {
namespace {

// A batch this large goes at once: bounds the copy the origin keeps, and
// a message of that size costs far more than its round trip.
constexpr std::size_t kBatchBytes = std::size_t{4} << 20;

RemoteBatch& BatchOf(Window& win, int target) {
  auto [it, fresh] = win.batches.try_emplace(target);
  // Room for the lock record, written there when the lock goes too.
  if (fresh) it->second.records.resize(sizeof(RemoteOp));
  return it->second;
}

void Append(std::vector<std::byte>* out, const RemoteOp& op, const TargetRun* runs,
            const std::byte* data) {
  std::size_t at = out->size();
  out->resize(at + sizeof op + op.runs * sizeof(TargetRun) + op.data_bytes);
  std::memcpy(out->data() + at, &op, sizeof op);
  at += sizeof op;
  if (op.runs > 0) std::memcpy(out->data() + at, runs, op.runs * sizeof(TargetRun));
  at += op.runs * sizeof(TargetRun);
  if (op.data_bytes > 0) std::memcpy(out->data() + at, data, op.data_bytes);
}

struct Answer {
  RemoteReply reply;
  std::vector<std::byte> bytes;  // the reply, fetched bytes, then granted ranks
  const std::byte* data() const { return bytes.data() + sizeof(RemoteReply); }
};

// Sends `bytes` of records to the target's master and posts the receive
// of its answer (at most `capacity` bytes after the RemoteReply): returns
// the receive's id.
std::uint64_t Post(const Window& win, int target, const std::byte* packet, std::size_t bytes,
                   std::uint64_t capacity) {
  const CommInfo& comm = LookupComm(win.comm);
  Runtime* runtime = Runtime::Instance();
  RequestMsg send;
  send.type = MsgType::kSend;
  send.comm = comm.id;
  send.rank = comm.WireRank();
  send.peer = comm.WirePeer(target);
  send.tag = kTagRemoteOp;
  runtime->StagePayload(packet, bytes, send);
  runtime->PostStaged(send);
  RequestMsg recv = RecvRequest(MsgType::kPostRecv, comm, target, kTagRemoteReply,
                                capacity + sizeof(RemoteReply), runtime->NewRecvId());
  runtime->Post(recv);
  return recv.id;
}

// Waits for the answer that receive `id` (Post) takes.
Answer Await(const Window& win, int target, std::uint64_t id, std::uint64_t capacity,
             int detail) {
  Runtime* runtime = Runtime::Instance();
  TellWait(win, RmaWait::kOperation, target, detail);
  capacity += sizeof(RemoteReply);
  ReplyMsg reply = runtime->Call(IdRequest(MsgType::kWaitRecv, id));
  if (reply.error != 0 || reply.bytes < sizeof(RemoteReply) || reply.bytes > capacity)
    throw Error(kErrIntern, "a malformed answer from rank " + std::to_string(target) +
                                    "'s master to one-sided operations");
  Answer result;
  result.bytes.resize(reply.bytes);
  runtime->FetchPayload(reply, result.bytes.data(), result.bytes.size());
  std::memcpy(&result.reply, result.bytes.data(), sizeof result.reply);
  result.reply.text[sizeof result.reply.text - 1] = '\0';
  // The master leaves room for every rank an unlock may grant the lock to.
  if (result.reply.fetched + result.reply.granted * sizeof(int) >
      result.bytes.size() - sizeof(RemoteReply))
    throw Error(kErrIntern, "a miscounted answer from rank " + std::to_string(target) +
                                    "'s master to one-sided operations");
  return result;
}

Answer Exchange(const Window& win, int target, const std::byte* packet, std::size_t bytes,
                std::uint64_t capacity, int detail) {
  return Await(win, target, Post(win, target, packet, bytes, capacity), capacity, detail);
}

// A batch sent, whose answer End awaits.
struct InFlight {
  int target = 0;
  bool release = false;
  bool take = false;
  bool exclusive = false;
  std::uint64_t id = 0;
  std::uint64_t capacity = 0;
  std::uint64_t fetch_bytes = 0;
  int detail = 0;
};

// Sends target's batch, with the lock in front when it was not taken yet
// and the unlock behind when `release`.
InFlight Begin(Window& win, int target, bool release) {
  RemoteBatch& batch = BatchOf(win, target);
  InFlight flight;
  flight.target = target;
  bool exclusive = batch.lock == MPI_LOCK_EXCLUSIVE;
  bool take = batch.lock != 0 && !batch.held;
  release = release && batch.lock != 0;
  if (release) {
    RemoteOp unlock = RemoteOpFor(win, RemoteKind::kUnlock, target);
    unlock.exclusive = exclusive ? 1 : 0;
    Append(&batch.records, unlock, nullptr, nullptr);
  }
  std::uint64_t fetch_bytes = 0;
  for (const RemoteFetch& fetch : batch.fetches) fetch_bytes += fetch.bytes;
  std::uint64_t capacity =
      fetch_bytes + (release ? static_cast<std::uint64_t>(win.size) * sizeof(int) : 0);
  int detail = batch.operations > 0
                   ? batch.first
                   : static_cast<int>(release ? RemoteKind::kUnlock : RemoteKind::kLock);
  std::size_t from = sizeof(RemoteOp);
  if (take) {
    RemoteOp lock = RemoteOpFor(win, RemoteKind::kLock, target);
    lock.exclusive = exclusive ? 1 : 0;
    std::memcpy(batch.records.data(), &lock, sizeof lock);
    from = 0;
  }
  flight.release = release;
  flight.take = take;
  flight.exclusive = exclusive;
  flight.capacity = capacity;
  flight.fetch_bytes = fetch_bytes;
  flight.detail = detail;
  flight.id = Post(win, target, batch.records.data() + from, batch.records.size() - from, capacity);
  return flight;
}

// Completes a batch Begin sent: the fetched bytes in their buffers, the
// ranks the unlock granted the lock to told.
void End(Window& win, const InFlight& flight) {
  int target = flight.target;
  RemoteBatch& batch = BatchOf(win, target);
  bool release = flight.release;
  bool exclusive = flight.exclusive;
  std::uint64_t capacity = flight.capacity;
  std::uint64_t fetch_bytes = flight.fetch_bytes;
  int detail = flight.detail;
  Answer answer = Await(win, target, flight.id, capacity, detail);
  if (answer.reply.lock_queued != 0) {
    // Nothing was applied: the rank that releases the lock takes it for
    // us and says so; then the rest goes.
    TellWait(win, batch.lock_all ? RmaWait::kLockAll : RmaWait::kLock, target, exclusive ? 1 : 0);
    Check(PMPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, GrantTag(target), win.comm,
                    MPI_STATUS_IGNORE),
          "MPI_Recv");
    batch.held = true;
    if (batch.records.size() > sizeof(RemoteOp))
      answer = Exchange(win, target, batch.records.data() + sizeof(RemoteOp),
                        batch.records.size() - sizeof(RemoteOp), capacity, detail);
    else
      answer = Answer{};
  } else if (flight.take) {
    batch.held = true;
  }
  const RemoteReply& reply = answer.reply;
  std::vector<int> granted(reply.granted);
  if (!granted.empty())
    std::memcpy(granted.data(), answer.data() + reply.fetched, granted.size() * sizeof(int));
  if (reply.error == 0) {
    if (reply.fetched != fetch_bytes)
      throw Error(kErrIntern, "rank " + std::to_string(target) +
                                      "'s master answered one-sided operations with " +
                                      std::to_string(reply.fetched) + " bytes, not " +
                                      std::to_string(fetch_bytes));
    const std::byte* at = answer.data();
    for (const RemoteFetch& fetch : batch.fetches) {
      if (fetch.type == nullptr)
        std::memcpy(fetch.buffer, at, fetch.bytes);
      else
        UnpackElements(at, fetch.bytes, fetch.buffer, fetch.count, *fetch.type);
      at += fetch.bytes;
    }
  }
  batch.records.resize(sizeof(RemoteOp));
  batch.fetches.clear();
  batch.operations = 0;
  if (release) win.batches.erase(target);
  for (int waiter : granted)
    Check(PMPI_Send(nullptr, 0, MPI_BYTE, waiter, GrantTag(target), win.comm), "MPI_Send");
  if (reply.error != 0) throw Error(reply.error, reply.text);
}

void Send(Window& win, int target, bool release) { End(win, Begin(win, target, release)); }

// The batches of `targets`, all sent before any answer is awaited: a round
// trip for them all rather than one each. Every answer is taken even when
// one fails; the first error is raised after.
void SendAll(Window& win, const std::vector<int>& targets, bool release) {
  std::vector<InFlight> flights;
  flights.reserve(targets.size());
  std::optional<Error> failed;
  for (int target : targets) {
    try {
      flights.push_back(Begin(win, target, release));
    } catch (const Error& error) {
      if (!failed) failed = error;
    }
  }
  for (const InFlight& flight : flights) {
    try {
      End(win, flight);
    } catch (const Error& error) {
      if (!failed) failed = error;
    }
  }
  if (failed) throw *failed;
}

// Whether target's batch must go at a flush.
bool MustGo(const RemoteBatch& batch, bool local) {
  if (local) return !batch.fetches.empty();
  // A lock with no operation yet is taken at MPI_Win_flush (the program
  // may rely on holding it); lock_all's only with an operation.
  return batch.operations > 0 || (batch.lock != 0 && !batch.held && !batch.lock_all);
}

}  // namespace

bool OnOtherNode(const Window& win, int target) {
  return win.peers[static_cast<std::size_t>(target)].node !=
         win.peers[static_cast<std::size_t>(win.rank)].node;
}

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

void Enqueue(Window& win, RemoteOp op, const std::vector<TargetRun>& runs, const std::byte* data,
             RemoteFetch fetch) {
  RemoteBatch& batch = BatchOf(win, op.target);
  op.runs = runs.size();
  Append(&batch.records, op, runs.data(), data);
  if (batch.operations++ == 0)
    batch.first = static_cast<int>(op.kind) | (op.fetch != 0 ? kFetchBit : 0);
  if (fetch.bytes > 0) batch.fetches.push_back(std::move(fetch));
  if (batch.records.size() >= kBatchBytes) Send(win, op.target, false);
}

void LockLater(Window& win, int target, int lock_type, bool lock_all) {
  RemoteBatch& batch = BatchOf(win, target);
  batch.lock = lock_type;
  batch.lock_all = lock_all;
  batch.held = false;
}

void FlushRemote(Window& win, int target, bool local) {
  if (target >= 0) {
    auto found = win.batches.find(target);
    if (found != win.batches.end() && MustGo(found->second, local)) Send(win, target, false);
    return;
  }
  std::vector<int> targets;
  for (const auto& [rank, batch] : win.batches)
    if (MustGo(batch, local)) targets.push_back(rank);
  SendAll(win, targets, false);
}

void SendPendingRemote(Window& win) {
  std::vector<int> targets;
  for (const auto& [rank, batch] : win.batches)
    if (batch.operations > 0) targets.push_back(rank);
  if (!targets.empty()) SendAll(win, targets, false);
}

void EndRemote(Window& win, int target) {
  auto found = win.batches.find(target);
  if (found == win.batches.end()) return;
  const RemoteBatch& batch = found->second;
  bool untouched = batch.lock_all && !batch.held && batch.operations == 0;
  if (untouched || (batch.lock == 0 && batch.operations == 0)) {
    win.batches.erase(found);
    return;
  }
  Send(win, target, true);
  win.batches.erase(target);
}

void EndRemoteAll(Window& win) {
  std::vector<int> targets;
  for (auto it = win.batches.begin(); it != win.batches.end();) {
    const RemoteBatch& batch = it->second;
    bool untouched = batch.lock_all && !batch.held && batch.operations == 0;
    if (untouched || (batch.lock == 0 && batch.operations == 0)) {
      it = win.batches.erase(it);
      continue;
    }
    targets.push_back(it->first);
    ++it;
  }
  try {
    SendAll(win, targets, true);
  } catch (...) {
    for (int target : targets) win.batches.erase(target);
    throw;
  }
  for (int target : targets) win.batches.erase(target);
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

}  // namespace bdmpi::rma
