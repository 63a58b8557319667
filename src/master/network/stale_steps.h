// The last check of a master's collective steps, when it shuts down: every
// rank of its node has finalized, so no message of a step can still be due
// to it, and one still waiting in Open MPI's queue was sent by a master
// whose ranks called another collective or root. A step whose root differs
// between nodes can complete on every node with each node's own data: when
// each node takes itself for the root, every node only sends (small data
// goes eagerly), no receiver compares a signature, and node 0's deadlock
// watch (step_conflict.h) sees it only if the job lives for another wave.
// The message's signature (mpi_transport.h) and the step this master
// finished with its tag name both calls.
//
// A stale message may still be on its way when this master shuts down, and
// MPI does not order messages across communicators: the masters' shutdown
// barrier (another communicator) completing says nothing about what has
// arrived on this one. So each master, once its steps are done, sends every
// other master a marker on the collective communicator itself, and enters
// the barrier only when every other master's marker has come: MPI delivers
// one sender's messages on one communicator in order to a receive that
// matches them all (any tag), so every step message a master sent before
// its marker has been received by then.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "master/coll/step_signature.h"
#include "master/network/step_conflict.h"

namespace bdmpi {

class StaleStepCheck {
 public:
  // This master finished step (comm, seq), whose messages to it carry MPI
  // tags [mpi_tag, mpi_tag + coll::kTagsPerOperation).
  void Finished(int mpi_tag, int comm, std::uint64_t seq, StepSignature signature);
  // This master's steps are all done: sends the marker, tag `flush_tag`
  // (which no step uses), to every other master on `coll` (the masters'
  // collective communicator).
  void Flush(MPI_Comm coll, int flush_tag);
  // Receives the step messages and markers waiting on `coll` for this
  // master, node `node` (after Flush); the first step message whose
  // signature differs from that of the step it was sent for.
  std::optional<StepConflict> Drain(MPI_Comm coll, int node);
  // Whether every other master's marker has come: no step message to this
  // master can be on its way any more.
  bool Flushed() const { return flush_tag_ >= 0 && unflushed_ == 0; }

 private:
  // Enough to name the step of a stale message sent a while ago.
  static constexpr std::size_t kKept = 64;
  struct Step {
    int mpi_tag = 0;
    int comm = 0;
    std::uint64_t seq = 0;
    StepSignature signature;
  };
  std::deque<Step> steps_;  // newest last
  int flush_tag_ = -1;
  int unflushed_ = 0;               // other masters whose marker has not come
  std::vector<bool> flushed_from_;  // by node
  std::optional<StepConflict> found_;
};

}  // namespace bdmpi
