// Communicators between two jobs; see cross_job.h.
#include "slave/comm/cross_job.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "common/error.h"
#include "common/rank_wiring.h"
#include "common/unique_fd.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/collectives.h"
#include "slave/comm/cross_job_mesh.h"
#include "slave/datatype/datatypes.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/p2p/wire_data.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

int cross_job_comms = 0;

namespace {

// Tags of the collectives, in a communicator's second context.
enum CrossTag : std::int32_t {
  kFence = 1,
  kBcastTag,
  kReduceTag,
  kResultTag,
  kMergeTag,
  kCrossGatherTag,
  kCrossScatterTag,
  kCrossAllgatherTag,
  kCrossAlltoallTag,
  kCrossScanTag,
  kSsendAckTag,
};

const std::string& OwnJob() {
  static const std::string id = wiring::Require(Wire::kJobId);
  return id;
}

}  // namespace

RankCard OwnCard() {
  RankCard card;
  std::strncpy(card.job, OwnJob().c_str(), sizeof card.job - 1);
  card.rank = Runtime::Instance()->world_rank();
  return card;
}

// ---- ports

namespace {

std::map<std::string, UniqueFd>& PortListeners() {
  static std::map<std::string, UniqueFd> listeners;
  return listeners;
}

}  // namespace

void ListenOnPort(const std::string& port, std::uint64_t tag) {
  PortListeners()[port] = Listen(SocketName(tag));
}

void StopListening(const std::string& port) { PortListeners().erase(port); }

void RequireListening(const std::string& port) {
  if (PortListeners().count(port) == 0)
    throw Error(kErrPort, "port '" + port + "' is closed (MPI_Close_port)");
}

bool TryKnock(const std::string& port, RankCard* card, int* link) {
  RequireListening(port);
  auto found = PortListeners().find(port);
  pollfd entry{found->second.get(), POLLIN, 0};
  if (poll(&entry, 1, 1) <= 0) return false;
  UniqueFd fd(accept4(found->second.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!fd || !SameUser(fd.get())) return false;
  ReadFully(fd.get(), card, sizeof *card, "MPI_Comm_accept");
  card->job[sizeof card->job - 1] = '\0';
  *link = fd.release();
  return true;
}

int KnockAt(const std::string& port, std::uint64_t tag) {
  UniqueFd fd(Dial(SocketName(tag)));
  if (!fd)
    throw Error(kErrPort, "MPI_Comm_connect: no rank listens on port '" + port + "' (" +
                              std::strerror(errno) +
                              "): it was closed, or its job ended, or it is another user's "
                              "or another host's (BDMPI connects jobs of one user on one host)");
  if (!SameUser(fd.get()))
    throw Error(kErrPort, "MPI_Comm_connect: port '" + port + "' is held by another user");
  RankCard card = OwnCard();
  WriteFully(fd.get(), &card, sizeof card, "MPI_Comm_connect");
  return fd.release();
}

namespace {

// The group sizes and jobs the roots swap; `nodes`: the job's node count.
struct GroupCard {
  char job[64] = {};
  std::int32_t size = 0;
  std::int32_t nodes = 0;
};

// The mesh's sockets are a host's: only jobs of one node each are linked,
// refused at both ends (each root sees both cards) before anything waits.
std::string Refusal(const GroupCard& ours, const GroupCard& theirs) {
  for (const GroupCard* card : {&ours, &theirs})
    if (card->nodes != 1)
      return "job " + std::string(card->job) + " runs on " + std::to_string(card->nodes) +
             " nodes; BDMPI connects two jobs of one node each (its ranks link the jobs "
             "over Unix sockets of one host)";
  return {};
}

MPI_Comm AddCrossComm(CommInfo info, std::shared_ptr<const CrossJobComm> cross) {
  info.id = -1;  // no master knows it
  info.cross = std::move(cross);
  MPI_Comm handle = NewComm(std::move(info));
  ++cross_job_comms;
  return handle;
}

const CrossJobComm& Cross(const CommInfo& comm) { return *comm.cross; }

std::int32_t CollContext(const CommInfo& comm) { return Cross(comm).context + 1; }

int MeshIndex(const CrossJobComm& cross, int rank, bool remote) {
  return (remote ? cross.remote : cross.local)[static_cast<std::size_t>(rank)];
}

int Me(const CommInfo& comm) { return MeshIndex(Cross(comm), comm.rank, false); }

// Every member of the communicator, both groups.
std::vector<int> Members(const CrossJobComm& cross) {
  std::vector<int> all = cross.local;
  all.insert(all.end(), cross.remote.begin(), cross.remote.end());
  std::sort(all.begin(), all.end());
  return all;
}

// Copies a frame into `count` elements at `buffer` and sets the status.
void Deliver(const Frame& frame, const CrossJobComm& cross, void* buffer, int count,
             MPI_Datatype datatype, MPI_Status* status) {
  std::uint64_t capacity = WireBytes(count, datatype);
  if (frame.data.size() > capacity)
    throw Error(kErrTruncate, "a message of " + std::to_string(frame.data.size()) +
                                  " bytes for a receive of " + std::to_string(capacity));
  std::uint64_t element = WireBytes(1, datatype);
  int received = element == 0 ? 0 : static_cast<int>(frame.data.size() / element);
  std::shared_ptr<const TypeInfo> layout = ScatteredLayout(datatype);
  WriteWire(frame.data, buffer, layout ? received : count, layout.get());
  const std::vector<int>& peers = cross.peers();
  auto at = std::find(peers.begin(), peers.end(), frame.source);
  SetResult(status, static_cast<int>(at - peers.begin()), frame.tag, frame.data.size());
  // The sender's MPI_Ssend returns when this arrives: a receive took it.
  if (frame.synchronous)
    cross.mesh->Send(frame.source, cross.context + 1, kSsendAckTag, nullptr, 0);
}

int SourceIndex(const CrossJobComm& cross, int source) {
  return source == MPI_ANY_SOURCE ? -1 : cross.peers()[static_cast<std::size_t>(source)];
}

void CheckPeerRank(const CommInfo& comm, int rank, const char* what) {
  if (rank < 0 || rank >= comm.PeerGroupSize())
    throw Error(kErrRank, std::string(what) + " rank " + std::to_string(rank) + " is not in [0, " +
                              std::to_string(comm.PeerGroupSize()) + ")");
}

[[noreturn]] void IntracommOnly(const char* what) {
  throw Error(kErrComm, std::string(what) +
                            " on an intercommunicator (between two jobs): MPI defines it on "
                            "intracommunicators only; merge it (MPI_Intercomm_merge) first");
}

// A rank's part in a rooted collective: the root, a member of the group
// that sends to or receives from the root, or none (MPI_PROC_NULL in an
// intercommunicator's root group). Checks `root` where it names a rank.
enum class RootedPart { kRoot, kMember, kNone };

RootedPart PartIn(const CommInfo& comm, int root) {
  if (Cross(comm).remote.empty()) {
    CheckPeerRank(comm, root, "root");
    return root == comm.rank ? RootedPart::kRoot : RootedPart::kMember;
  }
  if (root == MPI_ROOT) return RootedPart::kRoot;
  if (root == MPI_PROC_NULL) return RootedPart::kNone;
  CheckPeerRank(comm, root, "root");
  return RootedPart::kMember;
}

// One block a collective moves: `count` elements of `datatype` at `at`,
// to or from rank `rank` of the peer group (CrossJobComm::peers()).
struct CrossBlock {
  int rank;
  const void* at;
  int count;
  MPI_Datatype datatype;
};

// Rank `rank`'s block of a buffer, `displs` in extents of `datatype`.
const void* CrossBlockAt(const void* buffer, const int displs[], int rank, MPI_Datatype datatype) {
  return static_cast<const char*>(buffer) + displs[rank] * LookupType(datatype).extent;
}

// The one algorithm of the collectives that move blocks, on both kinds of
// communicator: every send first, then every receive in the order given.
// A send is written whole before it returns and reads meanwhile when the
// socket is full, so sending first never waits for a receiver; a block
// to this rank itself goes through its own queue. Frames between two
// ranks keep their order and members call collectives in one order, so
// the operation's tag is all a receive needs to match.
void MoveBlocks(const CommInfo& comm, CrossTag tag, const std::vector<CrossBlock>& sends,
                const std::vector<CrossBlock>& receives) {
  const CrossJobComm& cross = Cross(comm);
  std::int32_t context = CollContext(comm);
  const std::vector<int>& peers = cross.peers();
  for (const CrossBlock& block : sends) {
    WireData wire = ToWire(block.at, block.count, block.datatype);
    cross.mesh->Send(peers[static_cast<std::size_t>(block.rank)], context, tag, wire.data,
                     wire.bytes);
  }
  for (const CrossBlock& block : receives) {
    Frame frame = cross.mesh->Take(context, peers[static_cast<std::size_t>(block.rank)], tag, peers);
    // The receive buffer is the user's (the blocks name it as const only
    // to share one type with the sends).
    Deliver(frame, cross, const_cast<void*>(block.at), block.count, block.datatype,
            MPI_STATUS_IGNORE);
  }
}

// Folds the local group's contributions at local rank `root`, in rank
// order (a user-defined operation sees the lower ranks as `in`).
std::vector<std::byte> FoldLocal(const CommInfo& comm, std::vector<std::byte> mine, int count,
                                 MPI_Datatype datatype, MPI_Op op, int root) {
  const CrossJobComm& cross = Cross(comm);
  CheckedOp checked = CheckOp(op, datatype);
  std::int32_t context = CollContext(comm);
  int root_index = cross.local[static_cast<std::size_t>(root)];
  if (comm.rank != root) {
    cross.mesh->Send(root_index, context, kReduceTag, mine.data(), mine.size());
    return {};
  }
  std::vector<std::vector<std::byte>> parts(static_cast<std::size_t>(comm.size));
  for (int r = 0; r < comm.size; ++r)
    parts[static_cast<std::size_t>(r)] =
        r == root
            ? std::move(mine)
            : cross.mesh
                  ->Take(context, cross.local[static_cast<std::size_t>(r)], kReduceTag, cross.local)
                  .data;
  std::vector<std::byte> folded = std::move(parts.back());
  for (int r = comm.size - 2; r >= 0; --r)
    ApplyOpWire(checked, datatype, parts[static_cast<std::size_t>(r)].data(), folded.data(), count);
  return folded;
}

void WriteResult(const std::vector<std::byte>& wire, void* recv, int count, MPI_Datatype datatype) {
  WriteWire(wire, recv, count, ScatteredLayout(datatype).get());
}

// Every member of the communicator (both groups) waits for the others,
// at the lowest mesh index.
void Fence(const CrossJobComm& cross, int me, std::int32_t context) {
  std::vector<int> members = Members(cross);
  int root = members.front();
  if (me != root) {
    cross.mesh->Send(root, context, kFence, nullptr, 0);
    cross.mesh->Take(context, root, kFence, members);
    return;
  }
  for (int member : members)
    if (member != me) cross.mesh->Take(context, member, kFence, members);
  for (int member : members)
    if (member != me) cross.mesh->Send(member, context, kFence, nullptr, 0);
}

}  // namespace

MPI_Comm LinkJobs(int link, bool accepting, int root, MPI_Comm comm) {
  const CommInfo& info = LookupComm(comm);
  int rank = info.rank;
  int size = info.size;
  CommInfo inter;
  inter.rank = rank;
  inter.size = size;
  inter.errhandler = info.errhandler;
  inter.world_ranks = info.WorldRanks();
  inter.inter = true;
  const char* what = accepting ? "MPI_Comm_accept" : "MPI_Comm_connect";

  // Every rank's listening socket, its name gathered at the root.
  std::string own_name = SocketName(RandomTag());
  UniqueFd listener = Listen(own_name);
  char name[kSocketNameBytes] = {};
  std::memcpy(name, own_name.data(), own_name.size());
  std::vector<char> names(rank == root ? static_cast<std::size_t>(size) * kSocketNameBytes : 0);
  Gather(name, kSocketNameBytes, MPI_CHAR, names.data(), kSocketNameBytes, MPI_CHAR, root, comm);

  // The roots swap jobs, sizes and names; the accepting one writes first.
  GroupCard theirs;
  std::vector<char> all;
  std::string refused;
  if (rank == root) {
    GroupCard ours;
    std::strncpy(ours.job, OwnJob().c_str(), sizeof ours.job - 1);
    ours.size = size;
    ours.nodes = Runtime::Instance()->layout().nnodes();
    auto write_ours = [&] {
      WriteFully(link, &ours, sizeof ours, what);
      WriteFully(link, names.data(), names.size(), what);
    };
    if (accepting) write_ours();
    ReadFully(link, &theirs, sizeof theirs, what);
    theirs.job[sizeof theirs.job - 1] = '\0';
    if (theirs.size < 1 || theirs.size > (1 << 20))
      throw Error(kErrOther, std::string(what) + ": the other job sent a group of " +
                                 std::to_string(theirs.size) + " ranks");
    std::vector<char> their_names(static_cast<std::size_t>(theirs.size) * kSocketNameBytes);
    ReadFully(link, their_names.data(), their_names.size(), what);
    if (!accepting) write_ours();
    refused = Refusal(ours, theirs);
    if (!refused.empty()) theirs.size = 0;
    all = accepting ? names : their_names;
    const std::vector<char>& second = accepting ? their_names : names;
    all.insert(all.end(), second.begin(), second.end());
  }
  Bcast(&theirs, sizeof theirs, MPI_BYTE, root, comm);
  if (theirs.size == 0) {
    if (refused.empty()) refused = "the root (rank " + std::to_string(root) + ") says why";
    throw Error(kErrUnsupportedOperation, std::string(what) + " to another job: " + refused);
  }
  int first = accepting ? size : theirs.size;
  int total = size + theirs.size;
  all.resize(static_cast<std::size_t>(total) * kSocketNameBytes);
  Bcast(all.data(), static_cast<int>(all.size()), MPI_CHAR, root, comm);

  // Dial the lower indexes (a listener's backlog takes the connection at
  // once) and say who calls; then take the higher ones' calls, watching
  // the sockets made so far and the roots' one: no rank closes one before
  // the fence below, so one that ends means its rank's job ended.
  int me = accepting ? rank : first + rank;
  std::vector<UniqueFd> links(static_cast<std::size_t>(total));
  for (int j = 0; j < me; ++j) {
    std::string peer(&all[static_cast<std::size_t>(j) * kSocketNameBytes]);
    UniqueFd fd(Dial(peer));
    if (!fd || !SameUser(fd.get()))
      throw Error(kErrOther, std::string(what) + ": cannot reach rank " + std::to_string(j) +
                                 " of the two jobs' ranks (" + std::strerror(errno) + ")");
    std::int32_t index = me;
    WriteFully(fd.get(), &index, sizeof index, what);
    links[static_cast<std::size_t>(j)] = std::move(fd);
  }
  for (int pending = total - 1 - me; pending > 0;) {
    std::vector<int> watched;
    if (rank == root) watched.push_back(link);
    for (const UniqueFd& made : links)
      if (made) watched.push_back(made.get());
    UniqueFd fd(AcceptFrom(listener.get(), watched, what));
    if (!fd || !SameUser(fd.get())) continue;
    std::int32_t index = -1;
    ReadFully(fd.get(), &index, sizeof index, what);
    if (index <= me || index >= total || links[static_cast<std::size_t>(index)]) continue;
    links[static_cast<std::size_t>(index)] = std::move(fd);
    --pending;
  }

  auto cross = std::make_shared<CrossJobComm>();
  cross->mesh =
      std::make_shared<Mesh>(std::move(links), me, first, accepting, OwnJob(), theirs.job);
  cross->context = cross->mesh->NewContext();
  cross->other_job = theirs.job;
  cross->accepting = accepting;
  int remote_first = accepting ? first : 0;
  for (int r = 0; r < size; ++r) cross->local.push_back(me - rank + r);
  for (int r = 0; r < theirs.size; ++r) cross->remote.push_back(remote_first + r);
  inter.remote_world_ranks.assign(static_cast<std::size_t>(theirs.size), -1);
  inter.union_rank = me;
  inter.remote_offset = remote_first;
  // No rank goes on (and may close its sockets) before every rank is linked.
  Fence(*cross, me, cross->context + 1);
  return AddCrossComm(std::move(inter), std::move(cross));
}

namespace {
void AwaitReceipt(const CrossJobComm& cross, int to);
}  // namespace

void CrossSend(const CommInfo& comm, const void* buffer, int count, MPI_Datatype datatype, int dest,
               int tag, bool synchronous) {
  CheckSendTag(tag);
  CheckDest(comm, dest);
  if (dest == MPI_PROC_NULL) return;
  WireData wire = ToWire(buffer, count, datatype);
  const CrossJobComm& cross = Cross(comm);
  int to = cross.peers()[static_cast<std::size_t>(dest)];
  cross.mesh->Send(to, cross.context, tag, wire.data, wire.bytes, synchronous);
  if (synchronous) AwaitReceipt(cross, to);
}

void CrossRecv(const CommInfo& comm, void* buffer, int count, MPI_Datatype datatype, int source,
               int tag, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return;
  }
  CheckSource(comm, source);
  const CrossJobComm& cross = Cross(comm);
  Frame frame = cross.mesh->Take(cross.context, SourceIndex(cross, source), tag, cross.peers());
  Deliver(frame, cross, buffer, count, datatype, status);
}

namespace {

class CrossRecvRequest;

// The receives posted by MPI_Irecv and not freed, in the order they were
// posted: an MPI_Ssend that waits completes them meanwhile, since a posted
// receive has started to receive (two ranks that each post a receive and
// then send each other synchronously must not wait for ever).
std::vector<CrossRecvRequest*>& PostedCrossRecvs() {
  static std::vector<CrossRecvRequest*> posted;
  return posted;
}

// MPI_Irecv on a communicator between two jobs: complete once a matching
// frame has arrived, which the rank itself looks for.
class CrossRecvRequest : public Request {
 public:
  CrossRecvRequest(MPI_Comm handle, std::shared_ptr<const CrossJobComm> cross, void* buffer,
                   int count, MPI_Datatype datatype, int source, int tag)
      : Request(handle),
        cross_(std::move(cross)),
        buffer_(buffer),
        count_(count),
        datatype_(datatype),
        source_(source),
        tag_(tag) {
    PostedCrossRecvs().push_back(this);
  }
  ~CrossRecvRequest() override {
    std::vector<CrossRecvRequest*>& posted = PostedCrossRecvs();
    posted.erase(std::remove(posted.begin(), posted.end(), this), posted.end());
  }
  CrossRecvRequest(const CrossRecvRequest&) = delete;
  CrossRecvRequest& operator=(const CrossRecvRequest&) = delete;

  bool CompletesOutsideMaster() const override { return true; }
  bool Poll() override {
    if (done) return true;
    if (std::optional<Frame> frame =
            cross_->mesh->TryTake(cross_->context, source_, tag_, cross_->peers())) {
      Deliver(*frame, *cross_, buffer_, count_, datatype_, &status);
      done = true;
    }
    return done;
  }
  void Await() override {
    if (done) return;
    Frame frame = cross_->mesh->Take(cross_->context, source_, tag_, cross_->peers());
    Deliver(frame, *cross_, buffer_, count_, datatype_, &status);
    done = true;
  }
  void Cancel() override {
    throw Error(kErrComm, "MPI_Cancel of a receive on a communicator between two jobs");
  }
  bool Free() override { return true; }

 private:
  std::shared_ptr<const CrossJobComm> cross_;
  void* buffer_;
  int count_;
  MPI_Datatype datatype_;
  int source_;  // mesh index, -1: any
  int tag_;
};

// One synchronous send per rank waits at a time (its MPI call holds the
// rank), so the destination's next acknowledgement is this one's.
void AwaitReceipt(const CrossJobComm& cross, int to) {
  cross.mesh->Take(cross.context + 1, to, kSsendAckTag, cross.peers(), [] {
    for (CrossRecvRequest* request : PostedCrossRecvs()) request->Poll();
  });
}

}  // namespace

MPI_Request CrossIrecv(MPI_Comm handle, void* buffer, int count, MPI_Datatype datatype, int source,
                       int tag) {
  const CommInfo& comm = LookupComm(handle);
  if (source == MPI_PROC_NULL) {
    MPI_Status status;
    SetStatus(&status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return NewDoneRequest(handle, status);
  }
  CheckSource(comm, source);
  return NewRequest(std::make_unique<CrossRecvRequest>(handle, comm.cross, buffer, count, datatype,
                                                       SourceIndex(Cross(comm), source), tag));
}

bool CrossProbe(const CommInfo& comm, int source, int tag, bool wait, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return true;
  }
  CheckSource(comm, source);
  const CrossJobComm& cross = Cross(comm);
  const Frame* frame =
      cross.mesh->Peek(cross.context, SourceIndex(cross, source), tag, cross.peers(), wait);
  if (frame == nullptr) return false;
  const std::vector<int>& peers = cross.peers();
  auto at = std::find(peers.begin(), peers.end(), frame->source);
  SetResult(status, static_cast<int>(at - peers.begin()), frame->tag, frame->data.size());
  return true;
}

void CrossBarrier(const CommInfo& comm) { Fence(Cross(comm), Me(comm), CollContext(comm)); }

void CrossBcast(const CommInfo& comm, void* buffer, int count, MPI_Datatype datatype, int root) {
  const CrossJobComm& cross = Cross(comm);
  std::int32_t context = CollContext(comm);
  RootedPart part = PartIn(comm, root);
  if (part == RootedPart::kNone) return;
  if (part == RootedPart::kRoot) {
    WireData wire = ToWire(buffer, count, datatype);
    for (int peer : cross.peers())
      if (peer != Me(comm)) cross.mesh->Send(peer, context, kBcastTag, wire.data, wire.bytes);
    return;
  }
  Frame frame = cross.mesh->Take(context, cross.peers()[static_cast<std::size_t>(root)], kBcastTag,
                                 cross.peers());
  Deliver(frame, cross, buffer, count, datatype, MPI_STATUS_IGNORE);
}

void CrossReduce(const CommInfo& comm, const void* send, void* recv, int count,
                 MPI_Datatype datatype, MPI_Op op, int root) {
  const CrossJobComm& cross = Cross(comm);
  RootedPart part = PartIn(comm, root);
  if (part == RootedPart::kNone) return;
  if (cross.remote.empty()) {
    const void* mine = send == MPI_IN_PLACE ? recv : send;
    std::vector<std::byte> folded =
        FoldLocal(comm, WireCopy(mine, count, datatype), count, datatype, op, root);
    if (part == RootedPart::kRoot) WriteResult(folded, recv, count, datatype);
    return;
  }
  // An intercommunicator: the other group folds at its rank 0, which sends
  // the result to the root.
  std::int32_t context = CollContext(comm);
  if (part == RootedPart::kRoot) {
    Frame frame = cross.mesh->Take(context, cross.remote.front(), kResultTag, cross.remote);
    Deliver(frame, cross, recv, count, datatype, MPI_STATUS_IGNORE);
    return;
  }
  std::vector<std::byte> folded =
      FoldLocal(comm, WireCopy(send, count, datatype), count, datatype, op, 0);
  if (comm.rank == 0)
    cross.mesh->Send(cross.remote[static_cast<std::size_t>(root)], context, kResultTag,
                     folded.data(), folded.size());
}

void CrossAllreduce(const CommInfo& comm, const void* send, void* recv, int count,
                    MPI_Datatype datatype, MPI_Op op) {
  const CrossJobComm& cross = Cross(comm);
  std::int32_t context = CollContext(comm);
  const void* mine = send == MPI_IN_PLACE ? recv : send;
  std::vector<std::byte> folded =
      FoldLocal(comm, WireCopy(mine, count, datatype), count, datatype, op, 0);
  // Rank 0 sends the fold to the ranks that get it: the remote group of
  // an intercommunicator, else its own.
  bool inter = !cross.remote.empty();
  if (comm.rank == 0)
    for (int peer : cross.peers())
      if (peer != Me(comm))
        cross.mesh->Send(peer, context, kResultTag, folded.data(), folded.size());
  if (!inter && comm.rank == 0) {
    WriteResult(folded, recv, count, datatype);
    return;
  }
  Frame frame = cross.mesh->Take(context, cross.peers().front(), kResultTag, cross.peers());
  WriteResult(frame.data, recv, count, datatype);
}

CrossEvenBlocks EvenBlocksOf(const CommInfo& comm, int count) {
  CrossEvenBlocks blocks;
  for (int r = 0; r < comm.PeerGroupSize(); ++r) {
    blocks.counts.push_back(count);
    blocks.displs.push_back(r * count);
  }
  return blocks;
}

void CrossGatherv(const CommInfo& comm, const void* send, int sendcount, MPI_Datatype sendtype,
                  void* recv, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                  int root) {
  RootedPart part = PartIn(comm, root);
  std::vector<CrossBlock> sends, receives;
  if (part == RootedPart::kMember) sends.push_back({root, send, sendcount, sendtype});
  if (part == RootedPart::kRoot) {
    bool intra = Cross(comm).remote.empty();
    // An intracommunicator's root sends itself its block, unless in place.
    if (intra && send != MPI_IN_PLACE) sends.push_back({comm.rank, send, sendcount, sendtype});
    for (int r = 0; r < comm.PeerGroupSize(); ++r)
      if (!(intra && r == comm.rank && send == MPI_IN_PLACE))
        receives.push_back({r, CrossBlockAt(recv, displs, r, recvtype), recvcounts[r], recvtype});
  }
  MoveBlocks(comm, kCrossGatherTag, sends, receives);
}

void CrossScatterv(const CommInfo& comm, const void* send, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void* recv, int recvcount,
                   MPI_Datatype recvtype, int root) {
  RootedPart part = PartIn(comm, root);
  std::vector<CrossBlock> sends, receives;
  if (part == RootedPart::kMember) receives.push_back({root, recv, recvcount, recvtype});
  if (part == RootedPart::kRoot) {
    bool intra = Cross(comm).remote.empty();
    for (int r = 0; r < comm.PeerGroupSize(); ++r)
      if (!(intra && r == comm.rank && recv == MPI_IN_PLACE))
        sends.push_back({r, CrossBlockAt(send, displs, r, sendtype), sendcounts[r], sendtype});
    if (intra && recv != MPI_IN_PLACE) receives.push_back({comm.rank, recv, recvcount, recvtype});
  }
  MoveBlocks(comm, kCrossScatterTag, sends, receives);
}

void CrossAllgatherv(const CommInfo& comm, const void* send, int sendcount, MPI_Datatype sendtype,
                     void* recv, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype) {
  // In place (an intracommunicator's), this rank's block is already there.
  bool in_place = send == MPI_IN_PLACE;
  CrossBlock mine = in_place ? CrossBlock{0, CrossBlockAt(recv, displs, comm.rank, recvtype),
                                          recvcounts[comm.rank], recvtype}
                             : CrossBlock{0, send, sendcount, sendtype};
  std::vector<CrossBlock> sends, receives;
  for (int r = 0; r < comm.PeerGroupSize(); ++r) {
    if (in_place && r == comm.rank) continue;
    mine.rank = r;
    sends.push_back(mine);
    receives.push_back({r, CrossBlockAt(recv, displs, r, recvtype), recvcounts[r], recvtype});
  }
  MoveBlocks(comm, kCrossAllgatherTag, sends, receives);
}

void CrossAlltoallv(const CommInfo& comm, const void* send, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void* recv,
                    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype) {
  // In place, the blocks go out of the receive buffer: every send is
  // written before the first receive overwrites it.
  bool in_place = send == MPI_IN_PLACE;
  if (in_place) {
    send = recv;
    sendcounts = recvcounts;
    sdispls = rdispls;
    sendtype = recvtype;
  }
  std::vector<CrossBlock> sends, receives;
  for (int r = 0; r < comm.PeerGroupSize(); ++r) {
    if (in_place && r == comm.rank) continue;
    sends.push_back({r, CrossBlockAt(send, sdispls, r, sendtype), sendcounts[r], sendtype});
    receives.push_back({r, CrossBlockAt(recv, rdispls, r, recvtype), recvcounts[r], recvtype});
  }
  MoveBlocks(comm, kCrossAlltoallTag, sends, receives);
}

void CrossScan(const CommInfo& comm, const void* send, void* recv, int count,
               MPI_Datatype datatype, MPI_Op op, bool exclusive) {
  const CrossJobComm& cross = Cross(comm);
  if (!cross.remote.empty()) IntracommOnly(exclusive ? "MPI_Exscan" : "MPI_Scan");
  CheckedOp checked = CheckOp(op, datatype);
  std::int32_t context = CollContext(comm);
  // Rank r gets x_0 op ... op x_{r-1} from r - 1, folds its own x_r after
  // it and passes that on to r + 1 (a user-defined operation sees the
  // lower ranks as `in`).
  std::vector<std::byte> prefix = WireCopy(send == MPI_IN_PLACE ? recv : send, count, datatype);
  Frame before;
  if (comm.rank > 0) {
    before = cross.mesh->Take(context, cross.local[static_cast<std::size_t>(comm.rank - 1)],
                              kCrossScanTag, cross.local);
    if (before.data.size() != prefix.size())
      throw Error(kErrTruncate, "a scan: rank " + std::to_string(comm.rank - 1) + " sent " +
                                    std::to_string(before.data.size()) + " bytes for " +
                                    std::to_string(prefix.size()));
    ApplyOpWire(checked, datatype, before.data.data(), prefix.data(), count);
  }
  if (comm.rank + 1 < comm.size)
    cross.mesh->Send(cross.local[static_cast<std::size_t>(comm.rank + 1)], context, kCrossScanTag,
                     prefix.data(), prefix.size());
  if (!exclusive) {
    WriteResult(prefix, recv, count, datatype);
  } else if (comm.rank > 0) {
    WriteResult(before.data, recv, count, datatype);
  }
}

MPI_Comm CrossMerge(const CommInfo& inter, int high) {
  const CrossJobComm& cross = Cross(inter);
  if (cross.remote.empty()) throw Error(kErrComm, "MPI_Intercomm_merge of an intracommunicator");
  std::int32_t context = CollContext(inter);
  std::int32_t mine = high != 0;
  if (inter.rank == 0)
    for (int peer : cross.remote) cross.mesh->Send(peer, context, kMergeTag, &mine, sizeof mine);
  Frame frame = cross.mesh->Take(context, cross.remote.front(), kMergeTag, cross.remote);
  std::int32_t theirs = 0;
  std::memcpy(&theirs, frame.data.data(), std::min(frame.data.size(), sizeof theirs));
  // The low group first; both alike: the accepting group first.
  bool local_first = mine != theirs ? mine == 0 : cross.accepting;
  auto merged = std::make_shared<CrossJobComm>(cross);
  merged->context = cross.mesh->NewContext();
  merged->local = local_first ? cross.local : cross.remote;
  const std::vector<int>& second = local_first ? cross.remote : cross.local;
  merged->local.insert(merged->local.end(), second.begin(), second.end());
  merged->remote.clear();
  CommInfo info;
  info.errhandler = inter.errhandler;
  info.size = static_cast<int>(merged->local.size());
  info.rank = static_cast<int>(std::find(merged->local.begin(), merged->local.end(), Me(inter)) -
                               merged->local.begin());
  return AddCrossComm(std::move(info), std::move(merged));
}

MPI_Comm CrossDup(const CommInfo& comm) {
  auto copy = std::make_shared<CrossJobComm>(Cross(comm));
  copy->context = copy->mesh->NewContext();
  CommInfo info = comm;
  info.name.clear();
  return AddCrossComm(std::move(info), std::move(copy));
}

void CrossFree(MPI_Comm* handle) {
  ReleaseComm(*handle);
  *handle = MPI_COMM_NULL;
  --cross_job_comms;
}

void RequireCrossJobCall(const char* function, MPI_Comm comm) {
  const CommInfo* info = FindComm(comm);
  if (info == nullptr || !info->cross) return;
  static const std::set<std::string_view> served = {
      "MPI_Send", "MPI_Ssend", "MPI_Isend", "MPI_Recv", "MPI_Irecv", "MPI_Sendrecv",
      "MPI_Sendrecv_replace", "MPI_Probe", "MPI_Iprobe", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce",
      "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",
      "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Scan", "MPI_Exscan",
      "MPI_Intercomm_merge", "MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_free",
      "MPI_Comm_disconnect", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_remote_size",
      "MPI_Comm_test_inter", "MPI_Comm_set_errhandler", "MPI_Comm_get_errhandler",
      "MPI_Comm_call_errhandler", "MPI_Comm_set_name", "MPI_Comm_get_name", "MPI_Comm_get_attr",
      "MPI_Comm_set_attr", "MPI_Comm_delete_attr"};
  if (served.count(function) == 0)
    throw Error(kErrComm, std::string(function) +
                              " on a communicator between two jobs: BDMPI serves point-to-point "
                              "(MPI_Send, MPI_Ssend, MPI_Isend, MPI_Recv, MPI_Irecv, "
                              "MPI_Sendrecv, MPI_Probe, MPI_Iprobe), the blocking collectives "
                              "MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Gather(v), "
                              "MPI_Scatter(v), MPI_Allgather(v), MPI_Alltoall(v), MPI_Scan and "
                              "MPI_Exscan, MPI_Intercomm_merge, MPI_Comm_dup, "
                              "MPI_Comm_disconnect and the local queries on it");
}

}  // namespace bdmpi
