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
#include "slave/comm/cross_job_internal.h"
#include "slave/comm/cross_job_mesh.h"
#include "slave/datatype/datatypes.h"
#include "slave/p2p/bsend_buffer.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/p2p/wire_data.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

int cross_job_comms = 0;

namespace {

const std::string& OwnJob() {
  static const std::string id = wiring::Require(Wire::kJobId);
  return id;
}

}  // namespace

int CrossJobColor() {
  // FNV-1a of the job id and the node: a job's nodes share no memory.
  std::string key = OwnJob() + '/' + std::to_string(Runtime::Instance()->node());
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : key) hash = (hash ^ c) * 16777619u;
  return static_cast<int>(hash & 0x3fffffffu);
}

RankCard OwnCard() {
  RankCard card;
  std::strncpy(card.job, OwnJob().c_str(), sizeof card.job - 1);
  card.rank = Runtime::Instance()->world_rank();
  return card;
}

// ---- ports

namespace {

// A port's listening sockets: on this host (abstract) and on TCP (or
// none), whose callers must send the tag first.
struct PortSockets {
  UniqueFd local;
  UniqueFd tcp;
  std::uint64_t tag = 0;
};

std::map<std::string, PortSockets>& PortListeners() {
  static std::map<std::string, PortSockets> listeners;
  return listeners;
}

}  // namespace

std::string ListenOnPort(std::uint64_t tag,
                         const std::function<std::string(const std::string& tcp)>& name_of) {
  PortSockets sockets;
  sockets.local = Listen(SocketName(tag));
  std::string endpoint;
  sockets.tcp = ListenTcp(&endpoint);
  sockets.tag = tag;
  std::string port = name_of(endpoint);
  PortListeners()[port] = std::move(sockets);
  return port;
}

void StopListening(const std::string& port) { PortListeners().erase(port); }

void RequireListening(const std::string& port) {
  if (PortListeners().count(port) == 0)
    throw Error(kErrPort, "port '" + port + "' is closed (MPI_Close_port)");
}

bool TryKnock(const std::string& port, RankCard* card, int* link) {
  RequireListening(port);
  const PortSockets& sockets = PortListeners().find(port)->second;
  std::vector<pollfd> entries{pollfd{sockets.local.get(), POLLIN, 0}};
  if (sockets.tcp) entries.push_back(pollfd{sockets.tcp.get(), POLLIN, 0});
  if (poll(entries.data(), entries.size(), 1) <= 0) return false;
  bool local = (entries[0].revents & POLLIN) != 0;
  UniqueFd fd(accept4(local ? sockets.local.get() : sockets.tcp.get(), nullptr, nullptr,
                      SOCK_CLOEXEC));
  if (!fd) return false;
  if (local ? !SameUser(fd.get()) : !SentSecret(fd.get(), sockets.tag)) return false;
  if (!local) TcpNoDelay(fd.get());
  ReadFully(fd.get(), card, sizeof *card, "MPI_Comm_accept");
  card->job[sizeof card->job - 1] = '\0';
  *link = fd.release();
  return true;
}

int KnockAt(const std::string& port, std::uint64_t tag, const std::string& tcp) {
  UniqueFd fd(Dial(SocketName(tag)));
  std::string tried = std::string("this host's socket: ") + std::strerror(errno);
  if (!fd && !tcp.empty()) {
    fd.reset(DialTcp(tcp));
    tried += std::string("; TCP ") + tcp + ": " + std::strerror(errno);
    if (fd) WriteFully(fd.get(), &tag, sizeof tag, "MPI_Comm_connect");
  } else if (fd && !SameUser(fd.get())) {
    throw Error(kErrPort, "MPI_Comm_connect: port '" + port + "' is held by another user");
  }
  if (!fd)
    throw Error(kErrPort, "MPI_Comm_connect: no rank listens on port '" + port + "' (" + tried +
                              "): it was closed, or its job ended, or it is another user's");
  RankCard card = OwnCard();
  WriteFully(fd.get(), &card, sizeof card, "MPI_Comm_connect");
  return fd.release();
}

namespace {

// The group sizes and jobs the roots swap, and the secret a rank of the
// other place sends first on a TCP connection of the mesh (the accepting
// root's, told to the other root over the port's connection).
struct GroupCard {
  char job[64] = {};
  std::int32_t size = 0;
  std::uint64_t secret = 0;
};

// What each rank of the two groups tells all others when they link: the
// name of its listening socket, who it is, where that socket is reached
// from (SocketPlace) on which host, and its TCP endpoint (or empty) for
// ranks in other places.
struct LinkEntry {
  char name[kSocketNameBytes] = {};
  RankCard card;
  char place[64] = {};
  char host[64] = {};
  char tcp[32] = {};
};

std::string LinkEntryText(const char* field, std::size_t size) {
  return std::string(field, strnlen(field, size));
}

bool SamePlace(const LinkEntry& one, const LinkEntry& other) {
  return std::strncmp(one.place, other.place, sizeof one.place) == 0;
}

// Ranks of one place link over Unix sockets, of two over TCP: two groups
// in several places need every rank's TCP endpoint (a host with no
// address but loopback has none), refused at both ends otherwise (each
// root sees every entry) before anything waits.
std::string Refusal(const std::vector<LinkEntry>& all) {
  const LinkEntry& first = all.front();
  bool one_place = std::all_of(all.begin(), all.end(),
                               [&](const LinkEntry& entry) { return SamePlace(entry, first); });
  for (const LinkEntry& entry : all) {
    if (one_place || entry.tcp[0] != '\0') continue;
    return "rank " + std::to_string(entry.card.rank) + " of job " +
           LinkEntryText(entry.card.job, sizeof entry.card.job) + " runs on host " +
           LinkEntryText(entry.host, sizeof entry.host) +
           ", which has no network address but loopback, and the two jobs run on several "
           "hosts (or network namespaces), which BDMPI links over TCP";
  }
  return {};
}

// Processes of other jobs in groups (MPI_Comm_group, ...): an identity of
// the rank's own above every job rank, one per job and job rank, so that
// a process met on two communicators is one member (MPI_Group_compare,
// MPI_Comm_create). The rank's own job's processes are their job ranks.
constexpr int kOtherJobProcesses = 1 << 24;

int ProcessId(const RankCard& card) {
  if (OwnJob() == card.job) return card.rank;
  static std::map<std::pair<std::string, int>, int> ids;
  auto at = ids.emplace(std::make_pair(std::string(card.job), card.rank),
                        kOtherJobProcesses + static_cast<int>(ids.size()));
  return at.first->second;
}

// The identities of mesh indexes `indexes`.
std::vector<int> IdsOf(const CrossJobComm& cross, const std::vector<int>& indexes) {
  std::vector<int> ids;
  for (int index : indexes) ids.push_back(cross.ids[static_cast<std::size_t>(index)]);
  return ids;
}

// Every member of the communicator, both groups.
std::vector<int> Members(const CrossJobComm& cross) {
  std::vector<int> all = cross.local;
  all.insert(all.end(), cross.remote.begin(), cross.remote.end());
  std::sort(all.begin(), all.end());
  return all;
}

int SourceIndex(const CrossJobComm& cross, int source) {
  return source == MPI_ANY_SOURCE ? -1 : cross.peers()[static_cast<std::size_t>(source)];
}

void CheckPeerRank(const CommInfo& comm, int rank, const char* what) {
  if (rank < 0 || rank >= comm.PeerGroupSize())
    throw Error(kErrRank, std::string(what) + " rank " + std::to_string(rank) + " is not in [0, " +
                              std::to_string(comm.PeerGroupSize()) + ")");
}

}  // namespace

MPI_Comm AddCrossComm(CommInfo info, std::shared_ptr<const CrossJobComm> cross) {
  info.id = -1;  // no master knows it
  info.cross = std::move(cross);
  MPI_Comm handle = NewComm(std::move(info));
  ++cross_job_comms;
  return handle;
}

std::uint32_t NewCrossReceipt() {
  static std::uint32_t last = 0;
  last = last % static_cast<std::uint32_t>(kCrossReceiptTags - 1) + 1;
  return last;
}

void DeliverFrame(const Frame& frame, const CrossJobComm& cross, void* buffer, int count,
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
  if (frame.receipt != 0)
    cross.mesh->Send(frame.source, cross.context + 1, CrossReceiptTag(frame.receipt), nullptr, 0);
}

[[noreturn]] void CrossIntracommOnly(const char* what) {
  throw Error(kErrComm, std::string(what) +
                            " on an intercommunicator (between two jobs): MPI defines it on "
                            "intracommunicators only; merge it (MPI_Intercomm_merge) first");
}

RootedPart CrossPartIn(const CommInfo& comm, int root) {
  if (CrossOf(comm).remote.empty()) {
    CheckPeerRank(comm, root, "root");
    return root == comm.rank ? RootedPart::kRoot : RootedPart::kMember;
  }
  if (root == MPI_ROOT) return RootedPart::kRoot;
  if (root == MPI_PROC_NULL) return RootedPart::kNone;
  CheckPeerRank(comm, root, "root");
  return RootedPart::kMember;
}

namespace {

// Every member of the communicator (both groups) waits for the others, at
// the lowest mesh index, which sends each the highest `value` any gave.
std::int32_t FenceMax(const CrossJobComm& cross, int me, std::int32_t context, std::int32_t value,
                      std::int32_t tag = kCrossFenceTag) {
  std::vector<int> members = Members(cross);
  int root = members.front();
  auto take = [&](int from) {
    Frame frame = cross.mesh->Take(context, from, tag, members);
    std::int32_t theirs = 0;
    std::memcpy(&theirs, frame.data.data(), std::min(frame.data.size(), sizeof theirs));
    return theirs;
  };
  if (me != root) {
    cross.mesh->Send(root, context, tag, &value, sizeof value);
    return take(root);
  }
  for (int member : members)
    if (member != me) value = std::max(value, take(member));
  for (int member : members)
    if (member != me) cross.mesh->Send(member, context, tag, &value, sizeof value);
  return value;
}

// A new communicator's pair of contexts, agreed by every member of
// `cross`'s communicator over its second context `context`: the highest
// next pair any member has; each goes on after it. Ranks of the mesh
// outside that communicator lag behind and catch up at the next creation
// they take part in.
int AgreeContext(const CrossJobComm& cross, int me, std::int32_t context) {
  return cross.mesh->TakeContext(FenceMax(cross, me, context, cross.mesh->next_context()));
}

}  // namespace

void CrossFence(const CrossJobComm& cross, int me, std::int32_t context) {
  FenceMax(cross, me, context, 0);
}

MPI_Comm LinkJobs(int link, bool accepting, int root, MPI_Comm comm) {
  const CommInfo& info = LookupComm(comm);
  int rank = info.rank;
  int size = info.size;
  CommInfo inter;
  inter.rank = rank;
  inter.size = size;
  inter.errhandler = info.errhandler;
  inter.inter = true;
  const char* what = accepting ? "MPI_Comm_accept" : "MPI_Comm_connect";

  // Every rank's listening socket, its name and card gathered at the root.
  std::string own_name = SocketName(RandomTag());
  UniqueFd listener = Listen(own_name);
  std::string endpoint;
  UniqueFd tcp_listener = ListenTcp(&endpoint);
  LinkEntry entry;
  std::memcpy(entry.name, own_name.data(), own_name.size());
  entry.card = OwnCard();
  std::strncpy(entry.place, SocketPlace().c_str(), sizeof entry.place - 1);
  std::strncpy(entry.host, SocketHostName().c_str(), sizeof entry.host - 1);
  std::strncpy(entry.tcp, endpoint.c_str(), sizeof entry.tcp - 1);
  std::vector<LinkEntry> entries(rank == root ? static_cast<std::size_t>(size) : 0);
  Gather(&entry, sizeof entry, MPI_BYTE, entries.data(), sizeof entry, MPI_BYTE, root, comm);

  // The roots swap jobs, sizes and entries; the accepting one writes first.
  GroupCard theirs;
  std::vector<LinkEntry> all;
  std::string refused;
  if (rank == root) {
    GroupCard ours;
    std::strncpy(ours.job, OwnJob().c_str(), sizeof ours.job - 1);
    ours.size = size;
    if (accepting) ours.secret = RandomTag();
    auto write_ours = [&] {
      WriteFully(link, &ours, sizeof ours, what);
      WriteFully(link, entries.data(), entries.size() * sizeof(LinkEntry), what);
    };
    if (accepting) write_ours();
    ReadFully(link, &theirs, sizeof theirs, what);
    theirs.job[sizeof theirs.job - 1] = '\0';
    if (theirs.size < 1 || theirs.size > (1 << 20))
      throw Error(kErrOther, std::string(what) + ": the other job sent a group of " +
                                 std::to_string(theirs.size) + " ranks");
    std::vector<LinkEntry> their_entries(static_cast<std::size_t>(theirs.size));
    ReadFully(link, their_entries.data(), their_entries.size() * sizeof(LinkEntry), what);
    if (!accepting) write_ours();
    all = accepting ? entries : their_entries;
    const std::vector<LinkEntry>& second = accepting ? their_entries : entries;
    all.insert(all.end(), second.begin(), second.end());
    refused = Refusal(all);
    if (!refused.empty()) theirs.size = 0;
    if (accepting) theirs.secret = ours.secret;
  }
  Bcast(&theirs, sizeof theirs, MPI_BYTE, root, comm);
  if (theirs.size == 0) {
    if (refused.empty()) refused = "the root (rank " + std::to_string(root) + ") says why";
    throw Error(kErrUnsupportedOperation, std::string(what) + " to another job: " + refused);
  }
  int first = accepting ? size : theirs.size;
  int total = size + theirs.size;
  all.resize(static_cast<std::size_t>(total));
  Bcast(all.data(), static_cast<int>(all.size() * sizeof(LinkEntry)), MPI_BYTE, root, comm);
  std::vector<int> ids;
  for (LinkEntry& linked : all) {
    linked.name[kSocketNameBytes - 1] = '\0';
    linked.card.job[sizeof linked.card.job - 1] = '\0';
    linked.place[sizeof linked.place - 1] = '\0';
    linked.host[sizeof linked.host - 1] = '\0';
    linked.tcp[sizeof linked.tcp - 1] = '\0';
    ids.push_back(ProcessId(linked.card));
  }

  // Dial the lower indexes (a listener's backlog takes the connection at
  // once) and say who calls; then take the higher ones' calls, watching
  // the sockets made so far and the roots' one: no rank closes one before
  // the fence below, so one that ends means its rank's job ended.
  int me = accepting ? rank : first + rank;
  const LinkEntry& mine = all[static_cast<std::size_t>(me)];
  std::vector<UniqueFd> links(static_cast<std::size_t>(total));
  for (int j = 0; j < me; ++j) {
    const LinkEntry& peer = all[static_cast<std::size_t>(j)];
    bool local = SamePlace(peer, mine);
    UniqueFd fd(local ? Dial(peer.name) : DialTcp(peer.tcp));
    if (!fd || (local && !SameUser(fd.get())))
      throw Error(kErrOther, std::string(what) + ": cannot reach rank " + std::to_string(j) +
                                 " of the two jobs' ranks" +
                                 (local ? std::string() : std::string(" at TCP ") + peer.tcp) +
                                 " (" + std::strerror(errno) + ")");
    if (!local) WriteFully(fd.get(), &theirs.secret, sizeof theirs.secret, what);
    std::int32_t index = me;
    WriteFully(fd.get(), &index, sizeof index, what);
    links[static_cast<std::size_t>(j)] = std::move(fd);
  }
  std::vector<int> listeners{listener.get()};
  if (tcp_listener) listeners.push_back(tcp_listener.get());
  for (int pending = total - 1 - me; pending > 0;) {
    std::vector<int> watched;
    if (rank == root) watched.push_back(link);
    for (const UniqueFd& made : links)
      if (made) watched.push_back(made.get());
    std::size_t which = 0;
    UniqueFd fd(AcceptFrom(listeners, watched, what, &which));
    if (!fd) continue;
    if (which == 0 ? !SameUser(fd.get()) : !SentSecret(fd.get(), theirs.secret)) continue;
    if (which != 0) TcpNoDelay(fd.get());
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
  cross->ids = std::move(ids);
  int remote_first = accepting ? first : 0;
  for (int r = 0; r < size; ++r) cross->local.push_back(me - rank + r);
  for (int r = 0; r < theirs.size; ++r) cross->remote.push_back(remote_first + r);
  inter.world_ranks = IdsOf(*cross, cross->local);
  inter.remote_world_ranks = IdsOf(*cross, cross->remote);
  inter.union_rank = me;
  inter.remote_offset = remote_first;
  // No rank goes on (and may close its sockets) before every rank is linked.
  CrossFence(*cross, me, cross->context + 1);
  return AddCrossComm(std::move(inter), std::move(cross));
}

namespace {

void AwaitReceipt(const CrossJobComm& cross, int to, std::uint32_t receipt);

// Writes a send's frame (checked); returns the destination's mesh index,
// or -1 for MPI_PROC_NULL. A buffered send must fit the attached buffer,
// but holds no room once written: its bytes are in the socket or the
// receiver's queue, as a standard send's are.
int PostCrossSend(MPI_Comm handle, const void* buffer, int count, MPI_Datatype datatype, int dest,
                  int tag, SendMode mode, std::uint32_t receipt) {
  const CommInfo& comm = LookupComm(handle);
  CheckSendTag(tag);
  CheckDest(comm, dest);
  if (dest == MPI_PROC_NULL) return -1;
  if (mode == SendMode::kBuffered) ReserveBuffered(handle, WireBytes(count, datatype));
  WireData wire = ToWire(buffer, count, datatype);
  const CrossJobComm& cross = CrossOf(comm);
  int to = cross.peers()[static_cast<std::size_t>(dest)];
  cross.mesh->Send(to, cross.context, tag, wire.data, wire.bytes, receipt);
  return to;
}

}  // namespace

void CrossSend(MPI_Comm handle, const void* buffer, int count, MPI_Datatype datatype, int dest,
               int tag, SendMode mode) {
  std::uint32_t receipt = mode == SendMode::kSynchronous ? NewCrossReceipt() : 0;
  int to = PostCrossSend(handle, buffer, count, datatype, dest, tag, mode, receipt);
  if (receipt != 0 && to >= 0) AwaitReceipt(CrossOf(LookupComm(handle)), to, receipt);
}

void CrossRecv(const CommInfo& comm, void* buffer, int count, MPI_Datatype datatype, int source,
               int tag, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return;
  }
  CheckSource(comm, source);
  const CrossJobComm& cross = CrossOf(comm);
  Frame frame = cross.mesh->Take(cross.context, SourceIndex(cross, source), tag, cross.peers());
  DeliverFrame(frame, cross, buffer, count, datatype, status);
}

namespace {

class CrossRecvRequest;

// The receives posted by MPI_Irecv (or started) and not freed, in the
// order they were posted: an MPI_Ssend that waits completes them
// meanwhile, since a posted receive has started to receive (two ranks
// that each post a receive and then send each other synchronously must
// not wait for ever).
std::vector<CrossRecvRequest*>& PostedCrossRecvs() {
  static std::vector<CrossRecvRequest*> posted;
  return posted;
}

// MPI_Irecv and MPI_Recv_init on a communicator between two jobs:
// complete once a matching frame has arrived, which the rank itself looks
// for. Cancelled at once unless complete: nothing outside the rank knows
// of it.
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
    Restart();
  }
  ~CrossRecvRequest() override {
    std::vector<CrossRecvRequest*>& posted = PostedCrossRecvs();
    posted.erase(std::remove(posted.begin(), posted.end(), this), posted.end());
  }
  CrossRecvRequest(const CrossRecvRequest&) = delete;
  CrossRecvRequest& operator=(const CrossRecvRequest&) = delete;

  bool CompletesOutsideMaster() const override { return true; }
  // Receives the message if it arrived; whether done.
  bool TryComplete() {
    if (done) return true;
    if (std::optional<Frame> frame =
            cross_->mesh->TryTake(cross_->context, source_, tag_, cross_->peers())) {
      DeliverFrame(*frame, *cross_, buffer_, count_, datatype_, &status);
      done = true;
    }
    return done;
  }
  bool Poll() override {
    if (!TryComplete()) YieldRunningSlot();
    return done;
  }
  void Await() override {
    if (done) return;
    Frame frame = cross_->mesh->Take(cross_->context, source_, tag_, cross_->peers());
    DeliverFrame(frame, *cross_, buffer_, count_, datatype_, &status);
    done = true;
  }
  void Start() override {
    active = true;
    Restart();
  }
  void Cancel() override {
    if (!active || done) return;
    if (TryComplete()) return;  // a message that arrived already is received
    done = true;
    SetStatus(&status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
    status.bdmpi_cancelled = 1;
  }
  bool Free() override { return true; }

  // The source of a receive from MPI_PROC_NULL, complete when started.
  static constexpr int kNoSource = -2;

 private:
  void Restart() {
    done = source_ == kNoSource;
    if (done) {
      SetStatus(&status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    } else {
      SetEmptyStatus(&status);
    }
  }

  std::shared_ptr<const CrossJobComm> cross_;
  void* buffer_;
  int count_;
  MPI_Datatype datatype_;
  int source_;  // mesh index, -1: any
  int tag_;
};

// MPI_Issend, MPI_Ibsend, MPI_Irsend and the persistent sends: the frame
// is written when the send starts, so a standard, buffered or ready one
// is complete at once and a cancel finds nothing to withdraw; a
// synchronous one is complete when its receipt arrives.
class CrossSendRequest : public Request {
 public:
  CrossSendRequest(MPI_Comm handle, const void* buffer, int count, MPI_Datatype datatype, int dest,
                   int tag, SendMode mode)
      : Request(handle),
        cross_(LookupComm(handle).cross),
        buffer_(buffer),
        count_(count),
        datatype_(datatype),
        dest_(dest),
        tag_(tag),
        mode_(mode) {}
  ~CrossSendRequest() override {
    if (owns_type_) FreeType(&datatype_);
  }
  CrossSendRequest(const CrossSendRequest&) = delete;
  CrossSendRequest& operator=(const CrossSendRequest&) = delete;

  // MPI lets the program free a derived type while a persistent request
  // still uses it: the request keeps a duplicate of its own.
  void MakePersistent() {
    if (LookupType(datatype_).envelope.combiner != MPI_COMBINER_NAMED) {
      datatype_ = DupType(datatype_);
      owns_type_ = true;
    }
    persistent = true;
    active = false;
    done = true;
  }

  bool CompletesOutsideMaster() const override { return true; }
  void Start() override {
    active = true;
    done = false;
    SetEmptyStatus(&status);
    receipt_ = mode_ == SendMode::kSynchronous ? NewCrossReceipt() : 0;
    to_ = PostCrossSend(comm, buffer_, count_, datatype_, dest_, tag_, mode_, receipt_);
    done = receipt_ == 0 || to_ < 0;
  }
  bool Poll() override {
    if (!done &&
        cross_->mesh->TryTake(cross_->context + 1, to_, CrossReceiptTag(receipt_), cross_->peers()))
      done = true;
    if (!done) YieldRunningSlot();
    return done;
  }
  void Await() override {
    if (!done) AwaitReceipt(*cross_, to_, receipt_);
    done = true;
  }
  bool Free() override { return true; }

 private:
  std::shared_ptr<const CrossJobComm> cross_;
  const void* buffer_;
  int count_;
  MPI_Datatype datatype_;
  bool owns_type_ = false;
  int dest_;
  int tag_;
  SendMode mode_;
  std::uint32_t receipt_ = 0;
  int to_ = -1;
};

void AwaitReceipt(const CrossJobComm& cross, int to, std::uint32_t receipt) {
  cross.mesh->Take(cross.context + 1, to, CrossReceiptTag(receipt), cross.peers(), [] {
    for (CrossRecvRequest* request : PostedCrossRecvs()) request->TryComplete();
  });
}

// A receive request, checked, started.
std::unique_ptr<CrossRecvRequest> CrossRecvRequestFor(MPI_Comm handle, void* buffer, int count,
                                                      MPI_Datatype datatype, int source, int tag) {
  const CommInfo& comm = LookupComm(handle);
  CheckRecvTag(tag);
  CheckSource(comm, source);
  int from =
      source == MPI_PROC_NULL ? CrossRecvRequest::kNoSource : SourceIndex(CrossOf(comm), source);
  return std::make_unique<CrossRecvRequest>(handle, comm.cross, buffer, count, datatype, from, tag);
}

// The frames MPI_Mprobe and MPI_Improbe took, until MPI_Mrecv receives
// them, by key.
struct CrossMatched {
  std::shared_ptr<const CrossJobComm> cross;
  Frame frame;
};

std::map<std::uint64_t, CrossMatched>& CrossMatchedFrames() {
  static std::map<std::uint64_t, CrossMatched> frames;
  return frames;
}

}  // namespace

MPI_Request CrossIrecv(MPI_Comm handle, void* buffer, int count, MPI_Datatype datatype, int source,
                       int tag) {
  return NewRequest(CrossRecvRequestFor(handle, buffer, count, datatype, source, tag));
}

MPI_Request CrossRecvInit(MPI_Comm handle, void* buffer, int count, MPI_Datatype datatype,
                          int source, int tag) {
  std::unique_ptr<CrossRecvRequest> request =
      CrossRecvRequestFor(handle, buffer, count, datatype, source, tag);
  request->done = true;
  request->persistent = true;
  request->active = false;
  return NewRequest(std::move(request));
}

MPI_Request CrossIsend(MPI_Comm handle, const void* buffer, int count, MPI_Datatype datatype,
                       int dest, int tag, SendMode mode, bool persistent) {
  auto request =
      std::make_unique<CrossSendRequest>(handle, buffer, count, datatype, dest, tag, mode);
  if (persistent) {
    CheckSendTag(tag);
    CheckDest(LookupComm(handle), dest);
    request->MakePersistent();
  } else {
    request->Start();
  }
  return NewRequest(std::move(request));
}

std::uint64_t CrossMprobe(const CommInfo& comm, int source, int tag, bool wait,
                          MPI_Status* status) {
  const CrossJobComm& cross = CrossOf(comm);
  int from = SourceIndex(cross, source);
  std::optional<Frame> frame =
      wait ? std::optional<Frame>(cross.mesh->Take(cross.context, from, tag, cross.peers()))
           : cross.mesh->TryTake(cross.context, from, tag, cross.peers());
  if (!frame) {
    YieldRunningSlot();
    return 0;
  }
  const std::vector<int>& peers = cross.peers();
  auto at = std::find(peers.begin(), peers.end(), frame->source);
  SetResult(status, static_cast<int>(at - peers.begin()), frame->tag, frame->data.size());
  static std::uint64_t last_key = 0;
  CrossMatchedFrames()[++last_key] = CrossMatched{comm.cross, std::move(*frame)};
  return last_key;
}

void CrossMrecv(std::uint64_t key, void* buffer, int count, MPI_Datatype datatype,
                MPI_Status* status) {
  auto found = CrossMatchedFrames().find(key);
  BDMPI_ENFORCE(found != CrossMatchedFrames().end(), "a matched message between jobs is gone");
  CrossMatched matched = std::move(found->second);
  CrossMatchedFrames().erase(found);
  DeliverFrame(matched.frame, *matched.cross, buffer, count, datatype, status);
}

bool CrossProbe(const CommInfo& comm, int source, int tag, bool wait, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return true;
  }
  CheckSource(comm, source);
  const CrossJobComm& cross = CrossOf(comm);
  const Frame* frame =
      cross.mesh->Peek(cross.context, SourceIndex(cross, source), tag, cross.peers(), wait);
  if (frame == nullptr) {
    YieldRunningSlot();
    return false;
  }
  const std::vector<int>& peers = cross.peers();
  auto at = std::find(peers.begin(), peers.end(), frame->source);
  SetResult(status, static_cast<int>(at - peers.begin()), frame->tag, frame->data.size());
  return true;
}

MPI_Comm CrossMerge(const CommInfo& inter, int high) {
  const CrossJobComm& cross = CrossOf(inter);
  if (cross.remote.empty()) throw Error(kErrComm, "MPI_Intercomm_merge of an intracommunicator");
  std::int32_t context = CrossCollContext(inter);
  std::int32_t mine = high != 0;
  if (inter.rank == 0)
    for (int peer : cross.remote)
      cross.mesh->Send(peer, context, kCrossMergeTag, &mine, sizeof mine);
  Frame frame = cross.mesh->Take(context, cross.remote.front(), kCrossMergeTag, cross.remote);
  std::int32_t theirs = 0;
  std::memcpy(&theirs, frame.data.data(), std::min(frame.data.size(), sizeof theirs));
  // The low group first; both alike: the accepting group first.
  bool local_first = mine != theirs ? mine == 0 : cross.accepting;
  auto merged = std::make_shared<CrossJobComm>(cross);
  merged->context = AgreeContext(cross, CrossMe(inter), context);
  merged->local = local_first ? cross.local : cross.remote;
  const std::vector<int>& second = local_first ? cross.remote : cross.local;
  merged->local.insert(merged->local.end(), second.begin(), second.end());
  merged->remote.clear();
  CommInfo info;
  info.errhandler = inter.errhandler;
  info.size = static_cast<int>(merged->local.size());
  info.world_ranks = IdsOf(*merged, merged->local);
  info.rank =
      static_cast<int>(std::find(merged->local.begin(), merged->local.end(), CrossMe(inter)) -
                       merged->local.begin());
  return AddCrossComm(std::move(info), std::move(merged));
}

MPI_Comm CrossDup(const CommInfo& comm) {
  auto copy = std::make_shared<CrossJobComm>(CrossOf(comm));
  copy->context = AgreeContext(CrossOf(comm), CrossMe(comm), CrossCollContext(comm));
  CommInfo info = comm;
  info.name.clear();
  return AddCrossComm(std::move(info), std::move(copy));
}

MPI_Comm CrossSplit(const CommInfo& comm, int color, int key) {
  const CrossJobComm& cross = CrossOf(comm);
  if (!cross.remote.empty())
    throw Error(kErrComm,
                "MPI_Comm_split (or MPI_Comm_create) of an intercommunicator between two jobs: "
                "merge it (MPI_Intercomm_merge) first");
  std::int32_t mine[2] = {color, key};
  std::vector<std::int32_t> all(2 * static_cast<std::size_t>(comm.size));
  CrossEvenBlocks blocks = EvenBlocksOf(comm, 2);
  CrossAllgatherv(comm, mine, 2, MPI_INT32_T, all.data(), blocks.counts.data(),
                  blocks.displs.data(), MPI_INT32_T);
  // Every member takes part in the agreement, also those left out.
  int context = AgreeContext(cross, CrossMe(comm), CrossCollContext(comm));
  if (color == MPI_UNDEFINED) return MPI_COMM_NULL;
  std::vector<int> ranks;  // of the parent, of this color, by key then rank
  for (int r = 0; r < comm.size; ++r)
    if (all[2 * static_cast<std::size_t>(r)] == color) ranks.push_back(r);
  std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) {
    return all[2 * static_cast<std::size_t>(a) + 1] < all[2 * static_cast<std::size_t>(b) + 1];
  });
  auto part = std::make_shared<CrossJobComm>(cross);
  part->context = context;
  part->local.clear();
  for (int r : ranks) part->local.push_back(cross.local[static_cast<std::size_t>(r)]);
  CommInfo info;
  info.errhandler = comm.errhandler;
  info.size = static_cast<int>(ranks.size());
  info.rank = static_cast<int>(std::find(ranks.begin(), ranks.end(), comm.rank) - ranks.begin());
  info.world_ranks = IdsOf(*part, part->local);
  return AddCrossComm(std::move(info), std::move(part));
}

MPI_Comm CrossCreateGroup(const CommInfo& comm, const std::vector<int>& ranks, int me, int tag) {
  const CrossJobComm& cross = CrossOf(comm);
  auto part = std::make_shared<CrossJobComm>(cross);
  part->local.clear();
  for (int r : ranks) part->local.push_back(cross.local[static_cast<std::size_t>(r)]);
  // Only the group's members agree, with a tag of their own: the parent's
  // other members may meanwhile run its collectives, or make other groups.
  std::int32_t agreement = kCrossCreateGroupTags + tag % kCrossCreateGroupTags;
  part->context = cross.mesh->TakeContext(FenceMax(*part, CrossMe(comm), CrossCollContext(comm),
                                                   cross.mesh->next_context(), agreement));
  CommInfo info;
  info.errhandler = comm.errhandler;
  info.size = static_cast<int>(ranks.size());
  info.rank = me;
  info.world_ranks = IdsOf(*part, part->local);
  return AddCrossComm(std::move(info), std::move(part));
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
      "MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Isend", "MPI_Ibsend", "MPI_Issend",
      "MPI_Irsend", "MPI_Send_init", "MPI_Bsend_init", "MPI_Ssend_init", "MPI_Rsend_init",
      "MPI_Recv", "MPI_Irecv", "MPI_Recv_init", "MPI_Sendrecv", "MPI_Sendrecv_replace",
      "MPI_Isendrecv", "MPI_Isendrecv_replace", "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe",
      "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Comm_attach_buffer", "MPI_Comm_detach_buffer",
      "MPI_Comm_flush_buffer", "MPI_Comm_iflush_buffer",
      // The collectives: blocking, nonblocking and persistent.
      "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv",
      "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
      "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
      "MPI_Scan", "MPI_Exscan", "MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce",
      "MPI_Igather", "MPI_Igatherv", "MPI_Iscatter", "MPI_Iscatterv", "MPI_Iallgather",
      "MPI_Iallgatherv", "MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Ialltoallw", "MPI_Ireduce_scatter",
      "MPI_Ireduce_scatter_block", "MPI_Iscan", "MPI_Iexscan", "MPI_Barrier_init", "MPI_Bcast_init",
      "MPI_Reduce_init", "MPI_Allreduce_init", "MPI_Gather_init", "MPI_Gatherv_init",
      "MPI_Scatter_init", "MPI_Scatterv_init", "MPI_Allgather_init", "MPI_Allgatherv_init",
      "MPI_Alltoall_init", "MPI_Alltoallv_init", "MPI_Alltoallw_init", "MPI_Reduce_scatter_init",
      "MPI_Reduce_scatter_block_init", "MPI_Scan_init", "MPI_Exscan_init",
      // Neighbourhood collectives, and the topologies they run on.
      "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall",
      "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw", "MPI_Ineighbor_allgather",
      "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv",
      "MPI_Ineighbor_alltoallw", "MPI_Neighbor_allgather_init", "MPI_Neighbor_allgatherv_init",
      "MPI_Neighbor_alltoall_init", "MPI_Neighbor_alltoallv_init", "MPI_Neighbor_alltoallw_init",
      "MPI_Cart_create", "MPI_Cartdim_get", "MPI_Cart_get", "MPI_Cart_rank", "MPI_Cart_coords",
      "MPI_Cart_shift", "MPI_Cart_sub", "MPI_Cart_map", "MPI_Graph_create", "MPI_Graphdims_get",
      "MPI_Graph_get", "MPI_Graph_neighbors_count", "MPI_Graph_neighbors", "MPI_Graph_map",
      "MPI_Dist_graph_create_adjacent", "MPI_Dist_graph_create", "MPI_Dist_graph_neighbors_count",
      "MPI_Dist_graph_neighbors", "MPI_Topo_test",
      // Communicators: made of it, and its local queries.
      "MPI_Intercomm_merge", "MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_idup",
      "MPI_Comm_idup_with_info", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create",
      "MPI_Comm_create_group", "MPI_Comm_accept", "MPI_Comm_connect", "MPI_Comm_group",
      "MPI_Comm_remote_group", "MPI_Comm_compare", "MPI_Comm_free", "MPI_Comm_disconnect",
      "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_remote_size", "MPI_Comm_test_inter",
      "MPI_Comm_set_errhandler", "MPI_Comm_get_errhandler", "MPI_Comm_call_errhandler",
      "MPI_Comm_set_name", "MPI_Comm_get_name", "MPI_Comm_get_attr", "MPI_Comm_set_attr",
      "MPI_Comm_delete_attr"};
  // A large-count form is served as its int form is (api/large_count.cpp
  // narrows its counts to what the implementation here takes).
  std::string_view call = function;
  if (call.ends_with("_c")) call.remove_suffix(2);
  if (served.count(call) == 0)
    throw Error(kErrComm, std::string(function) +
                              " on a communicator between two jobs: BDMPI serves point-to-point "
                              "(every send mode, blocking, nonblocking and persistent; "
                              "receives, probes and matched probes), the collectives (blocking, "
                              "nonblocking and persistent; the neighbourhood ones on a "
                              "topology of the merged one), "
                              "MPI_Intercomm_merge, MPI_Comm_(i)dup, MPI_Comm_split(_type), "
                              "MPI_Comm_create(_group) (of the merged one), MPI_Comm_accept and "
                              "MPI_Comm_connect with other jobs, MPI_Comm_disconnect and the "
                              "local queries on it, and the large-count (_c) forms of these");
}

}  // namespace bdmpi
