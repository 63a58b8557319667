// coll::Transport over Open MPI: how the collective algorithms of
// src/collectives talk among the masters. Used only by the network thread.
//
// One communicator of the masters (the network's "coll") carries the
// inter-node steps of every BDMPI communicator. A BDMPI communicator spans
// any subset of the nodes, so a transport sees only the masters that hold
// its members (a NodeGroup) and translates its peers' ranks to ranks of the
// masters' communicator. An MPI communicator per BDMPI communicator would
// also do that, but creating one is collective over all the masters of the
// parent (MPI_Comm_split) or blocking (MPI_Comm_create_group), and a
// blocking call in the network thread could deadlock with communicators
// created concurrently on other nodes in another order.
//
// What keeps the messages of different communicators apart is the tag: the
// MPI tag of a message is the receiving master's channel for the
// communicator (a number it chose when the communicator was created,
// unique among its live communicators) times kOpTagSpace plus the
// operation's own tag. Matching happens at the receiver, so a channel only
// has to be unique there; every master learns the others' channels when
// the communicator is created (SplitEntry::channel).
//
// The receiver checks that the sender's ranks called the same collective
// (step_signature.h): a small message (up to kSmallStepMessage bytes:
// barriers, small reductions) travels copied behind the signature; the
// first large message from one master to another with one tag in a step
// is preceded by the signature alone, and large data always travels as it
// is, into receives posted ahead. A signature in every large message (one
// derived datatype with the data, read after a probe) made 4 MiB
// broadcasts and allreduces 1.3-1.9 times as slow (docs/communicators.md;
// likely causes, not measured apart: Open MPI packs non-contiguous data in
// pieces, and a receive posted only after the probe starts late).
#pragma once

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "collectives/transport.h"
#include "master/coll/step_signature.h"

namespace bdmpi {

// Operation tags (src/collectives) are below this.
inline constexpr int kOpTagBits = 14;
inline constexpr int kOpTagSpace = 1 << kOpTagBits;
// Data up to this many bytes is copied next to the signature (MpiTransport).
inline constexpr std::size_t kSmallStepMessage = 64;

// The masters of one communicator.
struct NodeGroup {
  std::vector<int> nodes;     // their ranks in the masters' communicator, ascending
  std::vector<int> channels;  // each one's channel for the communicator
  int self = 0;               // this master's index in nodes
};

class MpiTransport : public coll::Transport {
 public:
  // Peers are the masters of `group`, addressed in `comm`; `signature`
  // goes with every message and must match the peers' (else StepMismatch).
  MpiTransport(MPI_Comm comm, std::shared_ptr<const NodeGroup> group,
               StepSignature signature);

  int rank() const override { return group_->self; }
  int size() const override { return static_cast<int>(group_->nodes.size()); }
  coll::RequestId Isend(int peer, int tag, const std::byte* data,
                        std::size_t bytes) override;
  coll::RequestId Irecv(int peer, int tag, std::byte* data,
                        std::size_t bytes) override;
  bool Test(coll::RequestId request) override;
  // Requests completed so far: a step that moves data is not stuck.
  std::uint64_t completed() const { return completed_; }
  // For a step that will never finish (the job is ending): cancels its
  // posted receives and waits until `deadline` for each to be cancelled
  // or, matched already, filled, and for its sends to complete. MPI writes
  // into a receive's buffer and reads a send's until then. False when some
  // request is still open: this transport's frames must then outlive it.
  bool Settle(std::chrono::steady_clock::time_point deadline);

 private:
  // A small message with its signature, or a received signature (room
  // for a small message: the sender may have thought the data small).
  using Frame = std::array<std::byte, sizeof(StepSignature) + kSmallStepMessage>;
  struct Pending {
    MPI_Request request = MPI_REQUEST_NULL;
    // The signature sent or received ahead of a large message (or null).
    MPI_Request signature_request = MPI_REQUEST_NULL;
    std::size_t expected = 0;   // receives: the exact size the algorithm wants
    bool is_recv = false;
    bool framed = false;        // small: the message is `frame`
    int peer = 0;               // its index in the group
    std::byte* data = nullptr;  // framed receives: where the algorithm wants it
    Frame frame;
  };
  // The first large message between this master and `peer` with `tag` in
  // this step: marks it, true the first time.
  bool FirstLarge(std::vector<bool>& seen, int peer, int tag);
  // A completed receive of a signature (`bytes` of `frame`, from `peer`):
  // throws StepMismatch unless it is ours.
  void CheckSignature(const Frame& frame, int bytes, int peer) const;
  // Tests `request`; false while pending. Throws Error(kErrTruncate) when
  // more than `capacity` bytes came; else sets `*count` to the bytes received.
  bool TestReceive(MPI_Request& request, std::size_t capacity, int peer, int* count) const;
  // The MPI tag of a message to `peer` with operation tag `tag`.
  int MpiTag(int peer, int tag) const;

  MPI_Comm comm_;
  std::shared_ptr<const NodeGroup> group_;
  StepSignature signature_;
  // By peer * kTagsPerOperation + tag % kTagsPerOperation: whether a large
  // message has gone to / come from that peer with that tag.
  std::vector<bool> signed_to_, signed_from_;
  coll::RequestId next_id_ = 0;
  std::unordered_map<coll::RequestId, Pending> pending_;
  std::uint64_t completed_ = 0;
};

}  // namespace bdmpi
