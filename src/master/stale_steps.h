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
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <optional>

#include "master/step_conflict.h"
#include "master/step_signature.h"

namespace bdmpi {

class StaleStepCheck {
 public:
  // This master finished step (comm, seq), whose messages to it carry MPI
  // tags [mpi_tag, mpi_tag + coll::kTagsPerOperation).
  void Finished(int mpi_tag, int comm, std::uint64_t seq, StepSignature signature);
  // Receives every step message still waiting on `coll` (the masters'
  // collective communicator) for this master, node `node`; the first whose
  // signature differs from that of the step it was sent for.
  std::optional<StepConflict> Find(MPI_Comm coll, int node);

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
};

}  // namespace bdmpi
