// The inter-node interface: non-blocking point-to-point messages among the n
// masters that hold the members of one communicator. Algorithms in this
// folder are written only against it, so the same code runs over Open MPI in
// bdmprun and over the in-process network (inproc_transport.h) in tests.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bdmpi::coll {

// Names one posted send or receive until Test has returned true for it; the
// id is invalid afterwards. Never 0.
using RequestId = std::uint64_t;

class Transport {
 public:
  virtual ~Transport() = default;

  // This peer's rank among the masters, 0 <= rank() < size().
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Post a send of `bytes` bytes to `peer` (0 bytes allowed, data may then be
  // null). The buffer must stay valid and unchanged until Test returns true.
  // Messages from one peer to another with the same tag are matched with
  // receives in the order both were posted (MPI's non-overtaking rule);
  // messages with different tags are independent, which is what lets
  // concurrent operations share one transport. 0 <= tag < 32768 (MPI
  // guarantees MPI_TAG_UB >= 32767). Algorithms here never send more than
  // their chunk size in one message, so an implementation needs no
  // splitting of its own beyond what it wants.
  virtual RequestId Isend(int peer, int tag, const std::byte* data,
                          std::size_t bytes) = 0;

  // Post a receive of exactly `bytes` bytes from `peer`: the matching send
  // must have the same size (algorithms always know it), otherwise Test
  // throws Error(kErrTruncate). The buffer may be written at any time until
  // Test returns true and must not be read before.
  virtual RequestId Irecv(int peer, int tag, std::byte* data,
                          std::size_t bytes) = 0;

  // Never blocks. True once the request has completed, which also frees it.
  // Throws bdmpi::Error when the request can never complete (peer known
  // dead, time limit exceeded); the operation that owns it is then dead and
  // the job must end.
  virtual bool Test(RequestId request) = 0;
};

}  // namespace bdmpi::coll
