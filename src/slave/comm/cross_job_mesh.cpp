// The transport of communicators between two jobs; see cross_job_mesh.h.
#include "slave/comm/cross_job_mesh.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/error.h"

namespace bdmpi {
namespace {

// The empty probe that lets the job's other ranks run.
constexpr int kYieldTag = (1 << 23) - 2;

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

// Whether `fd` became readable within a millisecond; yields if not.
bool Readable(int fd, const char* what) {
  pollfd entry{fd, POLLIN, 0};
  int ready = poll(&entry, 1, 1);
  if (ready > 0) return true;
  if (ready < 0 && errno != EINTR) ThrowSystemError(std::string(what) + ": poll", errno);
  YieldRunningSlot();
  return false;
}

}  // namespace

void YieldRunningSlot() {
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, kYieldTag, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
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
// by SameUser).
std::string SocketName(std::uint64_t tag) {
  char name[kSocketNameBytes];
  std::snprintf(name, sizeof name, "bdmpi-%u-%016llx", static_cast<unsigned>(geteuid()),
                static_cast<unsigned long long>(tag));
  return name;
}

UniqueFd Listen(const std::string& name) {
  AbstractSocket listener(name);
  if (bind(listener.fd.get(), listener.at(), listener.length) != 0)
    ThrowSystemError("bind of the socket " + name, errno);
  if (listen(listener.fd.get(), SOMAXCONN) != 0) ThrowSystemError("listen", errno);
  return std::move(listener.fd);
}

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

const std::string& SocketPlace() {
  static const std::string place = [] {
    // The init namespace's inode is the same on every host: the boot id
    // tells hosts apart.
    std::string boot = "unknown-boot";
    if (std::FILE* file = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
      char id[64] = {};
      if (std::fgets(id, sizeof id, file) != nullptr) boot.assign(id, std::strcspn(id, "\n"));
      std::fclose(file);
    }
    struct stat net {};
    if (stat("/proc/self/ns/net", &net) != 0) return boot;
    return boot + "/net:" + std::to_string(net.st_ino);
  }();
  return place;
}

const std::string& SocketHostName() {
  static const std::string name = [] {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) return std::string("?");
    return std::string(host);
  }();
  return name;
}

namespace {

// The address other hosts reach this one at: its default route's source
// (a UDP socket "connected" to a routable address sends nothing), else
// the first address of an interface that is up, but loopback; empty when
// there is none. Bridges such as docker0 come first in the list on many
// hosts and carry the same address on every one, hence the route first.
std::string HostTcpAddress() {
  UniqueFd probe(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in routed{};
  routed.sin_family = AF_INET;
  routed.sin_port = htons(9);
  inet_pton(AF_INET, "192.0.2.1", &routed.sin_addr);  // TEST-NET-1: never answers
  socklen_t length = sizeof routed;
  char text[INET_ADDRSTRLEN] = {};
  if (probe && connect(probe.get(), reinterpret_cast<sockaddr*>(&routed), length) == 0 &&
      getsockname(probe.get(), reinterpret_cast<sockaddr*>(&routed), &length) == 0 &&
      routed.sin_addr.s_addr != htonl(INADDR_ANY) &&
      inet_ntop(AF_INET, &routed.sin_addr, text, sizeof text) != nullptr)
    return text;
  std::string address;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return address;
  for (ifaddrs* at = list; at != nullptr && address.empty(); at = at->ifa_next) {
    if (at->ifa_addr == nullptr || at->ifa_addr->sa_family != AF_INET) continue;
    if ((at->ifa_flags & IFF_UP) == 0 || (at->ifa_flags & IFF_LOOPBACK) != 0) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(at->ifa_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) != nullptr) address = text;
  }
  freeifaddrs(list);
  return address;
}

}  // namespace

UniqueFd ListenTcp(std::string* endpoint) {
  endpoint->clear();
  std::string address = HostTcpAddress();
  if (address.empty()) return UniqueFd();
  // Best effort: without it the ranks still link on their host.
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof any;
  if (!fd || bind(fd.get(), reinterpret_cast<sockaddr*>(&any), length) != 0 ||
      listen(fd.get(), SOMAXCONN) != 0 ||
      getsockname(fd.get(), reinterpret_cast<sockaddr*>(&any), &length) != 0)
    return UniqueFd();
  *endpoint = address + ":" + std::to_string(ntohs(any.sin_port));
  return fd;
}

int DialTcp(const std::string& endpoint) {
  // Long enough for a loaded host, short enough that a port of an
  // unreachable host is an error rather than the kernel's minutes of retries.
  constexpr auto kConnectLimit = std::chrono::seconds(10);
  std::size_t colon = endpoint.rfind(':');
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_port = htons(static_cast<std::uint16_t>(std::atoi(endpoint.c_str() + colon + 1)));
  if (colon == std::string::npos ||
      inet_pton(AF_INET, endpoint.substr(0, colon).c_str(), &peer.sin_addr) != 1) {
    errno = EINVAL;
    return -1;
  }
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return -1;
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&peer), sizeof peer) != 0 &&
      errno != EINPROGRESS)
    return -1;
  auto limit = std::chrono::steady_clock::now() + kConnectLimit;
  for (;;) {
    pollfd entry{fd.get(), POLLOUT, 0};
    if (poll(&entry, 1, 1) > 0) break;
    if (std::chrono::steady_clock::now() > limit) {
      errno = ETIMEDOUT;
      return -1;
    }
    YieldRunningSlot();
  }
  int error = 0;
  socklen_t length = sizeof error;
  if (getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
    errno = error != 0 ? error : errno;
    return -1;
  }
  TcpNoDelay(fd.get());
  return fd.release();
}

void TcpNoDelay(int fd) {
  int one = 1;  // frames are written whole: no reason to wait for more
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

bool SentSecret(int fd, std::uint64_t secret) {
  constexpr auto kSecretLimit = std::chrono::seconds(1);
  auto limit = std::chrono::steady_clock::now() + kSecretLimit;
  std::uint64_t given = 0;
  std::size_t filled = 0;
  while (filled < sizeof given) {
    ssize_t n = recv(fd, reinterpret_cast<char*>(&given) + filled, sizeof given - filled,
                     MSG_DONTWAIT);
    if (n > 0) {
      filled += static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) return false;
    if (std::chrono::steady_clock::now() > limit) return false;
    pollfd entry{fd, POLLIN, 0};
    if (poll(&entry, 1, 1) == 0) YieldRunningSlot();
  }
  return given == secret;
}

int AcceptFrom(const std::vector<int>& listeners, const std::vector<int>& watched,
               const char* what, std::size_t* which) {
  for (;;) {
    std::vector<pollfd> entries;
    for (int fd : listeners) entries.push_back(pollfd{fd, POLLIN, 0});
    for (int fd : watched) entries.push_back(pollfd{fd, POLLRDHUP, 0});
    int ready = poll(entries.data(), entries.size(), 1);
    if (ready < 0 && errno != EINTR) ThrowSystemError(std::string(what) + ": poll", errno);
    for (std::size_t e = 0; ready > 0 && e < listeners.size(); ++e) {
      if ((entries[e].revents & POLLIN) == 0) continue;
      *which = e;
      int fd = accept4(listeners[e], nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0 && errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
        ThrowSystemError(std::string(what) + ": accept", errno);
      return fd;
    }
    for (std::size_t e = listeners.size(); ready > 0 && e < entries.size(); ++e)
      if (entries[e].revents & (POLLRDHUP | POLLHUP | POLLERR))
        throw Error(kErrOther, std::string(what) +
                                   ": a rank of the two jobs ended while they were being linked");
    if (ready <= 0) YieldRunningSlot();
  }
}

void WriteFully(int fd, const void* data, std::size_t bytes, const char* what) {
  const char* at = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = send(fd, at, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd entry{fd, POLLOUT, 0};
      if (poll(&entry, 1, 1) == 0) YieldRunningSlot();
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
                                        : std::string("(its rank ended)")));
    at += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

Mesh::Mesh(std::vector<UniqueFd> links, int me, int first_size, bool accepting, std::string own_job,
           std::string other_job)
    : links_(std::move(links)),
      inbound_(links_.size()),
      me_(me),
      first_size_(first_size),
      accepting_(accepting),
      own_job_(std::move(own_job)),
      other_job_(std::move(other_job)) {}

int Mesh::NewContext() {
  int context = next_context_;
  next_context_ += 2;
  return context;
}

void Mesh::Send(int to, std::int32_t context, std::int32_t tag, const void* data,
                std::uint64_t bytes, std::uint32_t receipt) {
  if (to == me_) {
    const auto* at = static_cast<const std::byte*>(data);
    arrived_.push_back(Frame{me_, context, tag, std::vector<std::byte>(at, at + bytes), receipt});
    return;
  }
  FrameHeader header{context, tag, bytes, receipt, 0};
  WriteLink(to, &header, sizeof header);
  WriteLink(to, data, bytes);
}

std::deque<Frame>::iterator Mesh::Find(std::int32_t context, int from, std::int32_t tag) {
  return std::find_if(arrived_.begin(), arrived_.end(), [&](const Frame& frame) {
    return frame.context == context && (from < 0 || frame.source == from) &&
           (tag == MPI_ANY_TAG || frame.tag == tag);
  });
}

std::optional<Frame> Mesh::TryTake(std::int32_t context, int from, std::int32_t tag,
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

Frame Mesh::Take(std::int32_t context, int from, std::int32_t tag,
                 const std::vector<int>& sources, const std::function<void()>& meanwhile) {
  for (;;) {
    if (meanwhile) meanwhile();
    if (std::optional<Frame> frame = TryTake(context, from, tag, sources)) return *frame;
    if (!Progress(1, -1)) YieldRunningSlot();
  }
}

const Frame* Mesh::Peek(std::int32_t context, int from, std::int32_t tag,
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
    if (!Progress(1, -1)) YieldRunningSlot();
  }
}

std::string Mesh::Describe(int index) const {
  bool first = index < first_size_;
  bool own = first == accepting_;
  return "rank " + std::to_string(first ? index : index - first_size_) + " of " +
         (own ? "this job (" + own_job_ + ")" : "the other job (" + other_job_ + ")");
}

void Mesh::Lost(int index) const {
  const Inbound& in = inbound_[static_cast<std::size_t>(index)];
  throw Error(
      kErrOther,
      "the connection to " + Describe(index) + " on a communicator between jobs " + own_job_ +
          " and " + other_job_ + " ended" +
          (in.error != 0 ? std::string(" (") + std::strerror(in.error) + ")" : std::string()) +
          ": that rank exited or was killed");
}

void Mesh::CheckOpen(int from, const std::vector<int>& sources) const {
  if (from >= 0) {
    if (from != me_ && inbound_[static_cast<std::size_t>(from)].closed) Lost(from);
    return;
  }
  for (int source : sources)
    if (source != me_ && inbound_[static_cast<std::size_t>(source)].closed) Lost(source);
}

void Mesh::WriteLink(int to, const void* data, std::uint64_t bytes) {
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
      if (!Progress(1, to)) YieldRunningSlot();
      continue;
    }
    inbound_[static_cast<std::size_t>(to)].closed = true;
    inbound_[static_cast<std::size_t>(to)].error = n < 0 ? errno : EPIPE;
    Lost(to);
  }
}

bool Mesh::Progress(int timeout_ms, int writable) {
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

void Mesh::ReadSome(int index) {
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
                         std::vector<std::byte>(in.header.bytes), in.header.receipt};
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

}  // namespace bdmpi
