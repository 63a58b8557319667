// A simulated network of n peers inside one process and one thread, for
// tests and for benchmarking algorithms without a cluster. One driver
// progresses every peer's operations in turn (RunToCompletion), so runs are
// reproducible and need no threads.
//
// Matching follows MPI: a send and a receive match when both are posted with
// the same (source, destination, tag), in posting order. Data moves only when
// a Test on either side finds the pair matched, never at posting time, so an
// algorithm that reads a receive buffer or reuses a send buffer before Test
// returned true sees wrong data. With delay > 0 each Test that could complete
// returns false with that probability (seeded), which varies the order in
// which requests complete from run to run of different seeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

class InprocNetwork {
 public:
  struct Options {
    std::uint64_t seed = 1;
    double delay = 0.0;  // probability that a completable Test says false
    // A message larger than this throws kErrIntern (0: no limit); lets tests
    // check that algorithms keep to their chunk size.
    std::size_t max_message_bytes = 0;
  };

  explicit InprocNetwork(int size) : InprocNetwork(size, Options{}) {}
  InprocNetwork(int size, Options options);
  ~InprocNetwork();
  InprocNetwork(const InprocNetwork&) = delete;
  InprocNetwork& operator=(const InprocNetwork&) = delete;

  int size() const { return static_cast<int>(peers_.size()); }
  // The view of peer `rank`; valid as long as the network.
  Transport& peer(int rank);

  // Posts and completions so far: a driver that sees it unchanged over a
  // sweep over all operations (without delays) is looking at a deadlock.
  std::uint64_t events() const { return events_; }
  std::size_t outstanding() const { return requests_.size(); }
  std::size_t max_outstanding() const { return max_outstanding_; }
  std::uint64_t messages() const { return messages_; }
  // One line per posted, not yet completed request, for deadlock reports.
  std::string DescribeOutstanding() const;

 private:
  class Peer;
  struct Request {
    bool is_send;
    int owner, peer, tag;
    std::byte* data;
    std::size_t bytes;
    RequestId partner = 0;  // the matched request, 0 while unmatched
    bool done = false;      // data has moved
  };
  using Key = std::tuple<int, int, int>;  // source, destination, tag

  RequestId Post(bool is_send, int owner, int peer, int tag, std::byte* data,
                 std::size_t bytes);
  bool Test(int owner, RequestId id);
  void Deliver(Request& a, Request& b);

  Options options_;
  std::vector<std::unique_ptr<Peer>> peers_;
  std::unordered_map<RequestId, Request> requests_;
  std::map<Key, std::deque<RequestId>> unmatched_sends_, unmatched_recvs_;
  std::mt19937_64 random_;
  RequestId next_id_ = 1;
  std::uint64_t events_ = 0;
  std::uint64_t messages_ = 0;
  std::size_t max_outstanding_ = 0;
};

// Calls Progress on every operation in turn, as the master's network thread
// does, until all have completed. Returns false, leaving them incomplete,
// when `idle_sweeps` sweeps in a row changed nothing on the network.
bool RunToCompletion(InprocNetwork& net, std::span<Operation* const> ops,
                     int idle_sweeps = 1000);
bool RunToCompletion(InprocNetwork& net,
                     const std::vector<std::unique_ptr<Operation>>& ops,
                     int idle_sweeps = 1000);

}  // namespace bdmpi::coll
