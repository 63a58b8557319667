// The selection of a collective call's engine; see engine.h.
#include "slave/coll/engine.h"

#include <cstdlib>
#include <cstring>

#include "common/job_names.h"
#include "common/log.h"
#include "slave/p2p/direct_path.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/threads.h"

namespace bdmpi {
namespace {

// Read once: every rank of the job has the same (bdmpiexec sets it).
const ForcedEngines& Forced() {
  static const ForcedEngines forced = [] {
    const char* text = std::getenv("BDMPI_COLL_ENGINE");
    return ParseCollEngines(text != nullptr ? text : "", "BDMPI_COLL_ENGINE");
  }();
  return forced;
}

// Whether the ranks of this node may poll for each other: every rank has
// a running slot, and either a core (BDMPI_MAY_POLL=1: they spin) or a
// share of one (3: they yield between looks, as Open MPI's oversubscribed
// ranks do); not 2, where ranks outnumber the slots and most wait for one,
// and not with polling turned off. The same on every rank of the node:
// the master sets it for all at their start.
bool NodeRanksSpin() {
  static const bool spin = [] {
    const char* may_poll = std::getenv(kEnvMayPoll);
    const char* poll = std::getenv(kEnvDirectPoll);
    return may_poll != nullptr &&
           (std::strcmp(may_poll, "1") == 0 || std::strcmp(may_poll, "3") == 0) &&
           (poll == nullptr || std::strcmp(poll, "0") != 0);
  }();
  return spin && Direct().on();
}

bool AllMembersOnThisNode(const CommInfo& comm) {
  Runtime* runtime = Runtime::Instance();
  for (int r = 0; r < comm.size; ++r)
    if (runtime->LocalSlave(comm.WorldRank(r)) < 0) return false;
  return true;
}

// Whether the node engine (node_coll.h) serves a barrier, bcast or
// allreduce of `bytes` per rank by default: its members are all on this
// node and all run at once, so each part is written straight into the
// receive its hub polls. Every member decides alike: the same node,
// the same BDMPI_MAY_POLL, the same size (equal type signatures).
// Measured (docs/collectives.md, "The node engine"), 2 ranks with -nr 2:
// a barrier and an allreduce of 8 B to 4 KiB took 0.01-0.4 of the
// masters' fold; above the direct path's size (4 KiB) each part goes
// through the master, a round trip where the fold makes one (8 KiB: 3.4
// times the fold's time). A bcast's root gives the masters its buffer and
// goes on, where the node engine's root may wait for a receiver to post:
// 1 KiB (a message that travels in the direct table's slot) won every time
// (0.01-0.49), 2-4 KiB only some times (0.37-2.8).
constexpr std::uint64_t kNodeEngineMaxBytes = 4096;
constexpr std::uint64_t kNodeBcastMaxBytes = 1024;

bool NodeEngineFits(CollKind kind, const CommInfo& comm, std::uint64_t bytes) {
  if (!EngineServes(CollEngine::kNode, kind) || comm.size < 2) return false;
  std::uint64_t most = kind == CollKind::kBcast ? kNodeBcastMaxBytes : kNodeEngineMaxBytes;
  if (bytes > most || bytes > Direct().max_bytes()) return false;
  return NodeRanksSpin() && AllMembersOnThisNode(comm);
}

// What serves a call of `kind` on an intracommunicator unless forced or
// the node engine fits.
EngineChoice Default(CollKind kind, bool user_op) {
  switch (kind) {
    case CollKind::kBarrier:
      return {CollEngine::kMaster, "the masters release the ranks once every one has arrived"};
    case CollKind::kBcast:
      return {CollEngine::kMaster,
              "the root deposits its buffer once and goes on; the masters carry it"};
    case CollKind::kReduce:
      if (user_op)
        return {CollEngine::kSchedule,
                "a user-defined operation, which the masters cannot apply: the root folds "
                "in rank order"};
      return {CollEngine::kMaster, "a predefined operation: the masters reduce"};
    case CollKind::kAllreduce:
      if (user_op)
        return {CollEngine::kFoldBcast,
                "a user-defined operation, which the masters cannot apply: rank 0 folds "
                "(n - 1 messages, not the schedule's n(n - 1)) and broadcasts"};
      return {CollEngine::kMaster, "a predefined operation: the masters reduce"};
    case CollKind::kScan:
    case CollKind::kExscan:
      return {CollEngine::kChain, "a chain in rank order: n - 1 messages, not n(n - 1) / 2"};
  }
  return {CollEngine::kSchedule, "no other"};
}

constexpr const char* kNodeReason =
    "every member on this node and running, small parts: they meet in the node's direct "
    "table, no master";

EngineChoice Choose(CollKind kind, const CommInfo& comm, bool user_op, std::uint64_t bytes) {
  bool scan = kind == CollKind::kScan || kind == CollKind::kExscan;
  // MPI defines no scan on an intercommunicator: the chain refuses it.
  if (comm.inter && !scan) return {CollEngine::kInter, "an intercommunicator"};
  CollEngine forced = Forced()[static_cast<std::size_t>(kind)];
  if (forced == CollEngine::kAuto) {
    if (NodeEngineFits(kind, comm, bytes)) return {CollEngine::kNode, kNodeReason};
    return Default(kind, user_op);
  }
  if (forced == CollEngine::kMaster && user_op) {
    EngineChoice fallback = Default(kind, user_op);
    fallback.reason = "forced master cannot apply a user-defined operation: the default";
    return fallback;
  }
  return {forced, "forced by BDMPI_COLL_ENGINE"};
}

}  // namespace

EngineChoice SelectEngine(CollKind kind, const CommInfo& comm, bool user_op,
                          std::uint64_t bytes) {
  EngineChoice choice = Choose(kind, comm, user_op, bytes);
  // A rank waits at the master for one call at a time, and the masters'
  // collectives wait there: at MPI_THREAD_MULTIPLE threads may run
  // collectives on different communicators at once, in any order, so they
  // go point to point, whose waits poll (slave/runtime/threads.h). Every
  // rank of the job asks for the same level, or they would not match.
  if ((choice.engine == CollEngine::kMaster || choice.engine == CollEngine::kNode) &&
      threads::LockOn())
    choice = {CollEngine::kSchedule,
              "MPI_THREAD_MULTIPLE: the masters' collectives would block the rank's other "
              "threads (BDMPI_THREAD_LEVEL caps the level)"};
  BDMPI_DEBUG("coll", "%s on communicator %d (%d ranks): engine %s (%s)",
              CollKindName(kind).data(), comm.id, comm.size,
              CollEngineName(choice.engine).data(), choice.reason);
  return choice;
}

}  // namespace bdmpi
