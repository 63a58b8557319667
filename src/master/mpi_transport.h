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
// Every message starts with the step's signature (step_signature.h), sent
// from its own memory with the data through one derived datatype, so
// neither side copies the data (up to kSmallStepMessage bytes are copied:
// cheaper than a datatype). Receives are matched with MPI_Improbe so
// that a message of another size can still be read and its signature
// compared before a size error is reported.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "collectives/transport.h"
#include "master/step_signature.h"

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

 private:
  struct Pending {
    MPI_Request request = MPI_REQUEST_NULL;  // receives: null until matched
    std::size_t expected = 0;  // receives: the exact size the algorithm wants
    bool is_recv = false;
    int peer = 0;              // receives: its index in the group
    int mpi_tag = 0;           // receives
    std::byte* data = nullptr;  // receives: where the algorithm wants it
    StepSignature signature;   // sent, or received
    std::vector<std::byte> odd_size;  // a received message of another size
    bool odd = false;                 // whether odd_size holds it
    // Small messages (barriers, 8-byte reductions) travel through here as
    // plain bytes: building a derived datatype costs more than the copy.
    std::array<std::byte, sizeof(StepSignature) + kSmallStepMessage> small;
    bool in_small = false;            // receives: matched into `small`
  };
  // Matches a pending receive's message if it has arrived; false if not.
  bool Match(Pending& pending);
  // After a completed receive: the peer's signature against ours, then the size.
  void CheckReceived(const Pending& pending, int source) const;
  // The MPI tag of a message to `peer` with operation tag `tag`.
  int MpiTag(int peer, int tag) const;

  MPI_Comm comm_;
  std::shared_ptr<const NodeGroup> group_;
  StepSignature signature_;
  coll::RequestId next_id_ = 0;
  std::unordered_map<coll::RequestId, Pending> pending_;
  std::uint64_t completed_ = 0;
};

}  // namespace bdmpi
