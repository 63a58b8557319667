// Barrier among masters: no peer's operation completes before every peer has
// started its own.
#pragma once

#include <memory>

#include "collectives/operation.h"
#include "collectives/transport.h"

namespace bdmpi::coll {

// Dissemination: in round k each peer sends an empty message to r + 2^k and
// waits for one from r - 2^k; ceil(log2 n) rounds for any n.
std::unique_ptr<Operation> StartBarrierDissemination(Transport& t, int tag);

}  // namespace bdmpi::coll
