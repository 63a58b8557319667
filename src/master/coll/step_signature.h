// What every message of an inter-node step carries ahead of its data: the
// collective the sender's ranks called. A master whose own ranks called
// another collective, with another root or another size, would otherwise
// read the data as its own (or fail on a size that happens to differ); with
// it, the receiver ends the job naming both calls. It rides in the messages
// the step sends anyway (MpiTransport), so it costs no round trip.
#pragma once

#include <cstdint>
#include <exception>

namespace bdmpi {

struct StepSignature {
  std::int32_t type = 0;    // the collective's MsgType
  std::int32_t root = -1;   // its root, a rank of the communicator (bcast, reduce), else -1
  std::uint64_t bytes = 0;  // the data every node holds (0: barrier, comm split)
  bool operator==(const StepSignature&) const = default;
};

// Thrown by MpiTransport::Test when a peer's signature differs from this
// master's; Network turns it into a NetworkEvent for the master to word.
struct StepMismatch : std::exception {
  int peer_node = 0;  // the sender's rank among the masters
  StepSignature theirs;
  const char* what() const noexcept override { return "collective mismatch between nodes"; }
};

}  // namespace bdmpi
