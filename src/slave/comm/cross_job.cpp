// Communicators between two jobs; see cross_job.h.
#include "slave/comm/cross_job.h"

#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <deque>
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
#include "slave/p2p/wire_data.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

int cross_job_comms = 0;

namespace {

// A received message: its sender's mesh index, context, tag and wire bytes.
struct Frame {
  int source = 0;
  std::int32_t context = 0;
  std::int32_t tag = 0;
  std::vector<std::byte> data;
};

struct FrameHeader {
  std::int32_t context = 0;
  std::int32_t tag = 0;
  std::uint64_t bytes = 0;
};

// Tags of the collectives, in a communicator's second context.
enum CrossTag : std::int32_t { kFence = 1, kBcastTag, kReduceTag, kResultTag, kMergeTag };

// A listening socket's abstract name fits this, NUL included.
constexpr std::size_t kNameBytes = 48;
// The empty probe that lets the job's other ranks run.
constexpr int kYieldTag = (1 << 23) - 2;

const std::string& OwnJob() {
  static const std::string id = wiring::Require(Wire::kJobId);
  return id;
}

std::uint64_t RandomTag() {
  std::uint64_t value = 0;
  while (getrandom(&value, sizeof value, 0) != sizeof value)
    if (errno != EINTR) ThrowSystemError("getrandom", errno);
  return value;
}

// Abstract names vanish with their socket, so a killed job leaves none;
// the user id keeps users apart and the tag makes a name unguessable
// before it exists (another user who sees it in /proc/net/unix is refused
// by CheckPeer).
std::string SocketName(std::uint64_t tag) {
  char name[kNameBytes];
  std::snprintf(name, sizeof name, "bdmpi-%u-%016llx", static_cast<unsigned>(geteuid()),
                static_cast<unsigned long long>(tag));
  return name;
}

// A stream socket and the abstract address `name`.
struct AbstractSocket {
  UniqueFd fd;
  sockaddr_un address{};
  socklen_t length = 0;

  explicit AbstractSocket(const std::string& name)
      : fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (!fd) ThrowSystemError("socket", errno);
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path + 1, name.data(), name.size());
    length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  }
  sockaddr* at() { return reinterpret_cast<sockaddr*>(&address); }
};

UniqueFd Listen(const std::string& name) {
  AbstractSocket listener(name);
  if (bind(listener.fd.get(), listener.at(), listener.length) != 0)
    ThrowSystemError("bind of the socket " + name, errno);
  if (listen(listener.fd.get(), SOMAXCONN) != 0) ThrowSystemError("listen", errno);
  return std::move(listener.fd);
}

// -1 with errno when nothing listens there.
int Dial(const std::string& name) {
  AbstractSocket caller(name);
  while (connect(caller.fd.get(), caller.at(), caller.length) != 0)
    if (errno != EINTR) return -1;
  return caller.fd.release();
}

bool SameUser(int fd) {
  ucred cred{};
  socklen_t length = sizeof cred;
  return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 && cred.uid == geteuid();
}

// Lets the job's runnable ranks run before this one goes on (-nr).
void Yield() {
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, kYieldTag, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
}

// Whether `fd` became readable within a millisecond; yields if not.
bool Readable(int fd, const char* what) {
  pollfd entry{fd, POLLIN, 0};
  int ready = poll(&entry, 1, 1);
  if (ready > 0) return true;
  if (ready < 0 && errno != EINTR) ThrowSystemError(std::string(what) + ": poll", errno);
  Yield();
  return false;
}

int AcceptFrom(int listener, const char* what) {
  while (!Readable(listener, what)) {
  }
  int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0 && errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
    ThrowSystemError(std::string(what) + ": accept", errno);
  return fd;
}

}  // namespace

void WriteFully(int fd, const void* data, std::size_t bytes, const char* what) {
  const char* at = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = send(fd, at, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd entry{fd, POLLOUT, 0};
      if (poll(&entry, 1, 1) == 0) Yield();
      continue;
    }
    if (n <= 0)
      throw Error(kErrOther, std::string(what) + ": the other side closed the socket (" +
                                 std::strerror(n < 0 ? errno : EPIPE) + ")");
    at += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void ReadFully(int fd, void* data, std::size_t bytes, const char* what) {
  char* at = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t n = recv(fd, at, bytes, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
      Readable(fd, what);
      continue;
    }
    if (n <= 0)
      throw Error(kErrOther, std::string(what) + ": the other side closed the socket " +
                                 (n < 0 ? std::string("(") + std::strerror(errno) + ")"
                                        : std::string("(its job ended?)")));
    at += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

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

bool TryKnock(const std::string& port, RankCard* card, int* link) {
  auto found = PortListeners().find(port);
  if (found == PortListeners().end())
    throw Error(kErrPort, "port '" + port + "' is closed");
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

// ---- the mesh

class Mesh {
 public:
  Mesh(std::vector<UniqueFd> links, int me, int first_size, bool accepting, std::string other)
      : links_(std::move(links)),
        inbound_(links_.size()),
        me_(me),
        first_size_(first_size),
        accepting_(accepting),
        other_job_(std::move(other)) {}

  int NewContext() {
    int context = next_context_;
    next_context_ += 2;
    return context;
  }

  void Send(int to, std::int32_t context, std::int32_t tag, const void* data,
            std::uint64_t bytes) {
    if (to == me_) {
      const auto* at = static_cast<const std::byte*>(data);
      arrived_.push_back(Frame{me_, context, tag, std::vector<std::byte>(at, at + bytes)});
      return;
    }
    FrameHeader header{context, tag, bytes};
    WriteLink(to, &header, sizeof header);
    WriteLink(to, data, bytes);
  }

  // The first arrived frame that matches (`from` -1: any of `sources`).
  std::deque<Frame>::iterator Find(std::int32_t context, int from, std::int32_t tag) {
    return std::find_if(arrived_.begin(), arrived_.end(), [&](const Frame& frame) {
      return frame.context == context && (from < 0 || frame.source == from) &&
             (tag == MPI_ANY_TAG || frame.tag == tag);
    });
  }

  std::optional<Frame> TryTake(std::int32_t context, int from, std::int32_t tag,
                               const std::vector<int>& sources) {
    auto found = Find(context, from, tag);
    if (found == arrived_.end()) {
      Progress(0, -1);
      found = Find(context, from, tag);
    }
    if (found == arrived_.end()) {
      CheckOpen(from, sources);
      return std::nullopt;
    }
    Frame frame = std::move(*found);
    arrived_.erase(found);
    return frame;
  }

  // Waits for and takes it.
  Frame Take(std::int32_t context, int from, std::int32_t tag, const std::vector<int>& sources) {
    for (;;) {
      if (std::optional<Frame> frame = TryTake(context, from, tag, sources)) return *frame;
      if (!Progress(1, -1)) Yield();
    }
  }

  // Its source, tag and size, once it arrived (`wait`), or nullptr.
  const Frame* Peek(std::int32_t context, int from, std::int32_t tag,
                    const std::vector<int>& sources, bool wait) {
    for (;;) {
      auto found = Find(context, from, tag);
      if (found == arrived_.end()) {
        Progress(0, -1);
        found = Find(context, from, tag);
      }
      if (found != arrived_.end()) return &*found;
      CheckOpen(from, sources);
      if (!wait) return nullptr;
      if (!Progress(1, -1)) Yield();
    }
  }

 private:
  struct Inbound {
    FrameHeader header;
    std::size_t header_filled = 0;
    Frame frame;
    std::size_t body_filled = 0;
    bool closed = false;
    int error = 0;
  };

  std::string Describe(int index) const {
    bool first = index < first_size_;
    bool own = first == accepting_;
    return "rank " + std::to_string(first ? index : index - first_size_) + " of " +
           (own ? "this job (" + OwnJob() + ")" : "the other job (" + other_job_ + ")");
  }

  [[noreturn]] void Lost(int index) const {
    const Inbound& in = inbound_[static_cast<std::size_t>(index)];
    throw Error(kErrOther,
                "the connection to " + Describe(index) +
                    " on a communicator between jobs " + OwnJob() + " and " + other_job_ +
                    " ended" + (in.error != 0 ? std::string(" (") + std::strerror(in.error) + ")"
                                              : std::string()) +
                    ": that rank exited or was killed");
  }

  void CheckOpen(int from, const std::vector<int>& sources) const {
    if (from >= 0) {
      if (from != me_ && inbound_[static_cast<std::size_t>(from)].closed) Lost(from);
      return;
    }
    for (int source : sources)
      if (source != me_ && inbound_[static_cast<std::size_t>(source)].closed) Lost(source);
  }

  void WriteLink(int to, const void* data, std::uint64_t bytes) {
    const char* at = static_cast<const char*>(data);
    int fd = links_[static_cast<std::size_t>(to)].get();
    while (bytes > 0) {
      ssize_t n = send(fd, at, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        at += n;
        bytes -= static_cast<std::uint64_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        // Read meanwhile: the destination may be sending to this rank.
        if (!Progress(1, to)) Yield();
        continue;
      }
      inbound_[static_cast<std::size_t>(to)].closed = true;
      inbound_[static_cast<std::size_t>(to)].error = n < 0 ? errno : EPIPE;
      Lost(to);
    }
  }

  // Reads what arrived within `timeout_ms` (and waits for `writable` to
  // take more); whether anything happened.
  bool Progress(int timeout_ms, int writable) {
    std::vector<pollfd> entries;
    std::vector<int> indexes;
    for (std::size_t i = 0; i < links_.size(); ++i) {
      if (!links_[i] || inbound_[i].closed) continue;
      short events = POLLIN;
      if (static_cast<int>(i) == writable) events |= POLLOUT;
      entries.push_back(pollfd{links_[i].get(), events, 0});
      indexes.push_back(static_cast<int>(i));
    }
    int ready = poll(entries.data(), entries.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) ThrowSystemError("poll on the other job's sockets", errno);
    if (ready <= 0) return false;
    for (std::size_t e = 0; e < entries.size(); ++e)
      if (entries[e].revents & (POLLIN | POLLHUP | POLLERR)) ReadSome(indexes[e]);
    return true;
  }

  // Takes what the socket holds, frame by frame, without waiting.
  void ReadSome(int index) {
    Inbound& in = inbound_[static_cast<std::size_t>(index)];
    int fd = links_[static_cast<std::size_t>(index)].get();
    for (;;) {
      char* at;
      std::size_t want;
      bool header = in.header_filled < sizeof in.header;
      if (header) {
        at = reinterpret_cast<char*>(&in.header) + in.header_filled;
        want = sizeof in.header - in.header_filled;
      } else {
        at = reinterpret_cast<char*>(in.frame.data.data()) + in.body_filled;
        want = in.frame.data.size() - in.body_filled;
      }
      if (want > 0) {
        ssize_t n = recv(fd, at, want, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
          in.closed = true;
          in.error = n < 0 ? errno : 0;
          return;
        }
        if (header) {
          in.header_filled += static_cast<std::size_t>(n);
          if (in.header_filled < sizeof in.header) continue;
          in.frame = Frame{index, in.header.context, in.header.tag,
                           std::vector<std::byte>(in.header.bytes)};
          in.body_filled = 0;
        } else {
          in.body_filled += static_cast<std::size_t>(n);
        }
      }
      if (in.header_filled == sizeof in.header && in.body_filled == in.frame.data.size()) {
        arrived_.push_back(std::move(in.frame));
        in.frame = Frame{};
        in.header_filled = 0;
        in.body_filled = 0;
      }
    }
  }

  std::vector<UniqueFd> links_;  // by mesh index; none to this rank
  std::vector<Inbound> inbound_;
  std::deque<Frame> arrived_;
  int me_;
  int first_size_;  // the accepting group's ranks come first
  bool accepting_;
  std::string other_job_;
  int next_context_ = 0;
};

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
             " nodes; BDMPI connects two jobs of one node each (its ranks link the jobs over "
             "Unix sockets of one host)";
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
}

int SourceIndex(const CrossJobComm& cross, int source) {
  return source == MPI_ANY_SOURCE ? -1 : cross.peers()[static_cast<std::size_t>(source)];
}

void CheckPeerRank(const CommInfo& comm, int rank, const char* what) {
  if (rank < 0 || rank >= comm.PeerGroupSize())
    throw Error(kErrRank, std::string(what) + " rank " + std::to_string(rank) +
                              " is not in [0, " + std::to_string(comm.PeerGroupSize()) + ")");
}

[[noreturn]] void Unserved(const char* what) {
  throw Error(kErrComm, std::string(what) +
                            " on an intercommunicator between two jobs: BDMPI serves "
                            "point-to-point, barrier, bcast and allreduce on it; merge it "
                            "(MPI_Intercomm_merge) for the others it serves");
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
        r == root ? std::move(mine)
                  : cross.mesh->Take(context, cross.local[static_cast<std::size_t>(r)],
                                     kReduceTag, cross.local).data;
  std::vector<std::byte> folded = std::move(parts.back());
  for (int r = comm.size - 2; r >= 0; --r)
    ApplyOpWire(checked, datatype, parts[static_cast<std::size_t>(r)].data(), folded.data(),
                count);
  return folded;
}

void WriteResult(const std::vector<std::byte>& wire, void* recv, int count,
                 MPI_Datatype datatype) {
  WriteWire(wire, recv, count, ScatteredLayout(datatype).get());
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
  char name[kNameBytes] = {};
  std::memcpy(name, own_name.data(), own_name.size());
  std::vector<char> names(rank == root ? static_cast<std::size_t>(size) * kNameBytes : 0);
  Gather(name, kNameBytes, MPI_CHAR, names.data(), kNameBytes, MPI_CHAR, root, comm);

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
    std::vector<char> their_names(static_cast<std::size_t>(theirs.size) * kNameBytes);
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
  all.resize(static_cast<std::size_t>(total) * kNameBytes);
  Bcast(all.data(), static_cast<int>(all.size()), MPI_CHAR, root, comm);

  // Dial the lower indexes (a listener's backlog takes the connection at
  // once) and say who calls; then take the higher ones' calls.
  int me = accepting ? rank : first + rank;
  std::vector<UniqueFd> links(static_cast<std::size_t>(total));
  for (int j = 0; j < me; ++j) {
    std::string peer(&all[static_cast<std::size_t>(j) * kNameBytes]);
    UniqueFd fd(Dial(peer));
    if (!fd || !SameUser(fd.get()))
      throw Error(kErrOther, std::string(what) + ": cannot reach rank " + std::to_string(j) +
                                 " of the two jobs' ranks (" + std::strerror(errno) + ")");
    std::int32_t index = me;
    WriteFully(fd.get(), &index, sizeof index, what);
    links[static_cast<std::size_t>(j)] = std::move(fd);
  }
  for (int pending = total - 1 - me; pending > 0;) {
    UniqueFd fd(AcceptFrom(listener.get(), what));
    if (!fd || !SameUser(fd.get())) continue;
    std::int32_t index = -1;
    ReadFully(fd.get(), &index, sizeof index, what);
    if (index <= me || index >= total || links[static_cast<std::size_t>(index)]) continue;
    links[static_cast<std::size_t>(index)] = std::move(fd);
    --pending;
  }

  auto cross = std::make_shared<CrossJobComm>();
  cross->mesh = std::make_shared<Mesh>(std::move(links), me, first, accepting, theirs.job);
  cross->context = cross->mesh->NewContext();
  cross->other_job = theirs.job;
  cross->accepting = accepting;
  int remote_first = accepting ? first : 0;
  for (int r = 0; r < size; ++r) cross->local.push_back(me - rank + r);
  for (int r = 0; r < theirs.size; ++r) cross->remote.push_back(remote_first + r);
  inter.remote_world_ranks.assign(static_cast<std::size_t>(theirs.size), -1);
  inter.union_rank = me;
  inter.remote_offset = remote_first;
  return AddCrossComm(std::move(inter), std::move(cross));
}

void CrossSend(const CommInfo& comm, const void* buffer, int count, MPI_Datatype datatype,
               int dest, int tag) {
  if (tag < 0) throw Error(kErrTag, "tag " + std::to_string(tag) + " is negative");
  if (dest == MPI_PROC_NULL) return;
  CheckPeerRank(comm, dest, "destination");
  WireData wire = ToWire(buffer, count, datatype);
  const CrossJobComm& cross = Cross(comm);
  cross.mesh->Send(cross.peers()[static_cast<std::size_t>(dest)], cross.context, tag, wire.data,
                   wire.bytes);
}

void CrossRecv(const CommInfo& comm, void* buffer, int count, MPI_Datatype datatype,
               int source, int tag, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return;
  }
  if (source != MPI_ANY_SOURCE) CheckPeerRank(comm, source, "source");
  const CrossJobComm& cross = Cross(comm);
  Frame frame =
      cross.mesh->Take(cross.context, SourceIndex(cross, source), tag, cross.peers());
  Deliver(frame, cross, buffer, count, datatype, status);
}

namespace {

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
        tag_(tag) {}

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

}  // namespace

MPI_Request CrossIrecv(MPI_Comm handle, void* buffer, int count, MPI_Datatype datatype,
                       int source, int tag) {
  const CommInfo& comm = LookupComm(handle);
  if (source == MPI_PROC_NULL) {
    MPI_Status status;
    SetStatus(&status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return NewDoneRequest(handle, status);
  }
  if (source != MPI_ANY_SOURCE) CheckPeerRank(comm, source, "source");
  return NewRequest(std::make_unique<CrossRecvRequest>(handle, comm.cross, buffer, count,
                                                       datatype,
                                                       SourceIndex(Cross(comm), source), tag));
}

bool CrossProbe(const CommInfo& comm, int source, int tag, bool wait, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    SetResult(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return true;
  }
  if (source != MPI_ANY_SOURCE) CheckPeerRank(comm, source, "source");
  const CrossJobComm& cross = Cross(comm);
  const Frame* frame =
      cross.mesh->Peek(cross.context, SourceIndex(cross, source), tag, cross.peers(), wait);
  if (frame == nullptr) return false;
  const std::vector<int>& peers = cross.peers();
  auto at = std::find(peers.begin(), peers.end(), frame->source);
  SetResult(status, static_cast<int>(at - peers.begin()), frame->tag, frame->data.size());
  return true;
}

void CrossBarrier(const CommInfo& comm) {
  const CrossJobComm& cross = Cross(comm);
  std::vector<int> members = Members(cross);
  int root = members.front();
  std::int32_t context = CollContext(comm);
  int me = Me(comm);
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

void CrossBcast(const CommInfo& comm, void* buffer, int count, MPI_Datatype datatype,
                int root) {
  const CrossJobComm& cross = Cross(comm);
  std::int32_t context = CollContext(comm);
  bool inter = !cross.remote.empty();
  bool sending = inter ? root == MPI_ROOT : root == comm.rank;
  if (inter && root == MPI_PROC_NULL) return;
  if (!inter || !sending) CheckPeerRank(comm, root, "root");
  if (sending) {
    WireData wire = ToWire(buffer, count, datatype);
    for (int peer : cross.peers())
      if (peer != Me(comm)) cross.mesh->Send(peer, context, kBcastTag, wire.data, wire.bytes);
    return;
  }
  Frame frame = cross.mesh->Take(context, cross.peers()[static_cast<std::size_t>(root)],
                                 kBcastTag, cross.peers());
  Deliver(frame, cross, buffer, count, datatype, MPI_STATUS_IGNORE);
}

void CrossReduce(const CommInfo& comm, const void* send, void* recv, int count,
                 MPI_Datatype datatype, MPI_Op op, int root) {
  if (!Cross(comm).remote.empty()) Unserved("MPI_Reduce");
  CheckPeerRank(comm, root, "root");
  const void* mine = send == MPI_IN_PLACE ? recv : send;
  std::vector<std::byte> folded =
      FoldLocal(comm, WireCopy(mine, count, datatype), count, datatype, op, root);
  if (comm.rank == root) WriteResult(folded, recv, count, datatype);
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
      if (peer != Me(comm)) cross.mesh->Send(peer, context, kResultTag, folded.data(),
                                            folded.size());
  if (!inter && comm.rank == 0) {
    WriteResult(folded, recv, count, datatype);
    return;
  }
  Frame frame = cross.mesh->Take(context, cross.peers().front(), kResultTag, cross.peers());
  WriteResult(frame.data, recv, count, datatype);
}

MPI_Comm CrossMerge(const CommInfo& inter, int high) {
  const CrossJobComm& cross = Cross(inter);
  if (cross.remote.empty())
    throw Error(kErrComm, "MPI_Intercomm_merge of an intracommunicator");
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
      "MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace",
      "MPI_Probe", "MPI_Iprobe", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce",
      "MPI_Intercomm_merge", "MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_free",
      "MPI_Comm_disconnect",
      "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_remote_size", "MPI_Comm_test_inter",
      "MPI_Comm_set_errhandler", "MPI_Comm_get_errhandler", "MPI_Comm_call_errhandler",
      "MPI_Comm_set_name", "MPI_Comm_get_name", "MPI_Comm_get_attr", "MPI_Comm_set_attr",
      "MPI_Comm_delete_attr"};
  if (served.count(function) == 0)
    throw Error(kErrComm, std::string(function) +
                              " on a communicator between two jobs: BDMPI serves point-to-point "
                              "(MPI_Send, MPI_Isend, MPI_Recv, MPI_Irecv, MPI_Sendrecv, "
                              "MPI_Probe, MPI_Iprobe), MPI_Barrier, MPI_Bcast, MPI_Reduce, "
                              "MPI_Allreduce, MPI_Intercomm_merge, MPI_Comm_dup, "
                              "MPI_Comm_disconnect and the local queries on it");
}

}  // namespace bdmpi
