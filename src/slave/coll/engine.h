// Which engine serves a rank's blocking collective call: one selection per
// collective (barrier, bcast, reduce, allreduce, scan, exscan), by the
// communicator, the operation and what --coll-engine (BDMPI_COLL_ENGINE)
// forces; the engines are named in common/coll_engine.h, and
// docs/collectives.md ("Which engine serves a call") has the table.
// The other collectives have one engine: their schedules (coll_p2p.cpp),
// or an intercommunicator's (nbc_inter.h); the nonblocking and persistent
// ones always run their schedules.
#pragma once

#include <cstdint>

#include "common/coll_engine.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

struct EngineChoice {
  CollEngine engine;
  const char* reason;  // why, as the log line gives it
};

// The engine for a call of `kind` on `comm`; `user_op`: its operation is
// user-defined (the masters apply only predefined ones); `bytes`: the
// data of one rank's part (wire bytes; 0 for a barrier). A forced engine
// that cannot serve this call gives way to the default, and the reason
// says so. Logs the choice (debug, category coll). Throws Error(kErrArg)
// for a BDMPI_COLL_ENGINE that does not parse (set by hand: bdmpiexec
// checks its own).
EngineChoice SelectEngine(CollKind kind, const CommInfo& comm, bool user_op = false,
                          std::uint64_t bytes = 0);

}  // namespace bdmpi
