// The transport of the communicators between two jobs (cross_job.h): Unix
// stream sockets between ranks of the two jobs, with abstract names, on
// one host (network namespace), TCP between two, and
// the mesh of them that carries a communicator's frames (a frame: context,
// tag, size and the message's wire bytes). Every wait here polls the
// sockets and makes an empty probe at the rank's master after each
// millisecond without news, so that the rank holds no running slot its
// job needs while it waits for the other job.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace bdmpi {

// A listening socket's abstract name fits this, NUL included.
inline constexpr std::size_t kSocketNameBytes = 48;

// Lets the job's runnable ranks run before this one goes on (-nr): an
// empty probe at the rank's master. A rank that looks for a frame in vain
// without waiting (MPI_Iprobe, MPI_Test) calls it too, so that a program
// polling for the other job does not hold a running slot its job needs.
void YieldRunningSlot();

std::uint64_t RandomTag();
// The abstract name of this user's socket of tag `tag`.
std::string SocketName(std::uint64_t tag);
UniqueFd Listen(const std::string& name);
// A socket connected to `name`, or -1 with errno when nothing listens there.
int Dial(const std::string& name);
// Whether the process at the other end of `fd` is this user's.
bool SameUser(int fd);
// Where this process's abstract names are reached from: the host's boot
// id and the process's network namespace (processes of one reach each
// other's sockets, others do not); and the host's name, for messages.
const std::string& SocketPlace();
const std::string& SocketHostName();
// TCP, between ranks in two places (hosts or network namespaces): a
// listener on every address, at a port the kernel chooses; `endpoint`
// becomes "<IPv4>:<port>" at this host's address (its default route's,
// else its first but loopback), or empty (no listener) when it has none
// or the socket cannot be made.
UniqueFd ListenTcp(std::string* endpoint);
// A socket connected to `endpoint` within a few seconds (yielding while
// it waits), or -1 with errno.
int DialTcp(const std::string& endpoint);
void TcpNoDelay(int fd);
// Whether the caller on `fd` sends `secret` first, within a second: TCP
// has no SO_PEERCRED, so a caller proves it read the port's name (or was
// told the mesh's secret by a root).
bool SentSecret(int fd, std::uint64_t secret);
// A connection one of `listeners` took (waiting for it), or -1, and in
// `which` that listener's index. A socket of `watched` that ends meanwhile
// is kErrOther.
int AcceptFrom(const std::vector<int>& listeners, const std::vector<int>& watched,
               const char* what, std::size_t* which);
// Writes `bytes` to `fd` or reads them, without holding the running slot
// while waiting; `what` names the call in errors.
void WriteFully(int fd, const void* data, std::size_t bytes, const char* what);
void ReadFully(int fd, void* data, std::size_t bytes, const char* what);

// A received message: its sender's mesh index, context, tag and wire bytes;
// `receipt` (not 0): its sender (MPI_Ssend, MPI_Issend) waits until a
// receive takes it, for the acknowledgement of that number.
struct Frame {
  int source = 0;
  std::int32_t context = 0;
  std::int32_t tag = 0;
  std::vector<std::byte> data;
  std::uint32_t receipt = 0;
};

// The sockets of one rank to every other rank of two linked groups, by
// mesh index (the accepting group's ranks first), and the frames that
// arrived on them and were not received yet. A socket that ends while the
// rank waits on it or writes to it is kErrOther naming the rank and jobs.
class Mesh {
 public:
  Mesh(std::vector<UniqueFd> links, int me, int first_size, bool accepting, std::string own_job,
       std::string other_job);

  // A communicator's pair of contexts (user, collectives); every rank of
  // the mesh makes its communicators in the same order.
  int NewContext();
  // A pair agreed with other ranks (cross_job.cpp): the next after it.
  // While a nonblocking duplicate's agreement is open (OpenWindow), the
  // next is beyond its window, so that no other agreement takes a pair
  // the duplicate may end with.
  int next_context() const {
    return open_windows_ > 0 ? std::max(next_context_, window_end_) : next_context_;
  }
  int TakeContext(int agreed) {
    next_context_ = agreed + 2;
    return agreed;
  }
  // MPI_Comm_idup's window (cross_job_coll.cpp): the pair this rank
  // proposes, and `width` contexts after it that no other agreement takes
  // until CloseWindow(agreed), which takes `agreed`.
  int OpenWindow(int width) {
    int start = next_context();
    window_end_ = start + width;
    ++open_windows_;
    return start;
  }
  void CloseWindow(int agreed) {
    --open_windows_;
    next_context_ = std::max(next_context_, agreed + 2);
  }
  // Writes the frame (reading meanwhile when the socket is full); one to
  // this rank goes straight into its arrived frames.
  void Send(int to, std::int32_t context, std::int32_t tag, const void* data, std::uint64_t bytes,
            std::uint32_t receipt = 0);
  // The first arrived frame of `context` from `from` (-1: any, of
  // `sources`) with `tag` (or MPI_ANY_TAG): taken now, or nothing.
  std::optional<Frame> TryTake(std::int32_t context, int from, std::int32_t tag,
                               const std::vector<int>& sources);
  // The same, waiting for it; `meanwhile` runs before each look.
  Frame Take(std::int32_t context, int from, std::int32_t tag, const std::vector<int>& sources,
             const std::function<void()>& meanwhile = {});
  // Left in place; waits for it when `wait`, else nullptr when none.
  const Frame* Peek(std::int32_t context, int from, std::int32_t tag,
                    const std::vector<int>& sources, bool wait);

 private:
  struct FrameHeader {
    std::int32_t context = 0;
    std::int32_t tag = 0;
    std::uint64_t bytes = 0;
    std::uint32_t receipt = 0;
    std::uint32_t unused = 0;
  };
  // A socket's frame being read, and whether the socket ended.
  struct Inbound {
    FrameHeader header;
    std::size_t header_filled = 0;
    Frame frame;
    std::size_t body_filled = 0;
    bool closed = false;
    int error = 0;
  };

  std::deque<Frame>::iterator Find(std::int32_t context, int from, std::int32_t tag);
  std::string Describe(int index) const;
  [[noreturn]] void Lost(int index) const;
  void CheckOpen(int from, const std::vector<int>& sources) const;
  void WriteLink(int to, const void* data, std::uint64_t bytes);
  // Reads what arrived within `timeout_ms` (and waits for `writable` to
  // take more); whether anything happened.
  bool Progress(int timeout_ms, int writable);
  // Takes what the socket holds, frame by frame, without waiting.
  void ReadSome(int index);

  std::vector<UniqueFd> links_;  // by mesh index; none to this rank
  std::vector<Inbound> inbound_;
  std::deque<Frame> arrived_;
  int me_;
  int first_size_;  // the accepting group's ranks come first
  bool accepting_;
  std::string own_job_;
  std::string other_job_;
  int next_context_ = 0;
  int open_windows_ = 0;
  int window_end_ = 0;
};

}  // namespace bdmpi
