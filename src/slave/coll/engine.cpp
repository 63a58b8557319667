// The selection of a collective call's engine; see engine.h.
#include "slave/coll/engine.h"

#include <cstdlib>

#include "common/log.h"
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

// What serves a call of `kind` on an intracommunicator unless forced.
// The node engine (node_coll.h) is never the default: on the 2-core VM at a
// load average of 10 it took as long as the masters' fold with every rank
// running (barrier and 8-byte allreduce on 2 ranks, -nr 2: 50-60 us
// either way; docs/collectives.md), since a rank that waits longer than
// its polling time waits at the master anyway, twice per call.
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

EngineChoice Choose(CollKind kind, const CommInfo& comm, bool user_op) {
  bool scan = kind == CollKind::kScan || kind == CollKind::kExscan;
  // MPI defines no scan on an intercommunicator: the chain refuses it.
  if (comm.inter && !scan) return {CollEngine::kInter, "an intercommunicator"};
  CollEngine forced = Forced()[static_cast<std::size_t>(kind)];
  if (forced == CollEngine::kAuto) return Default(kind, user_op);
  if (forced == CollEngine::kMaster && user_op) {
    EngineChoice fallback = Default(kind, user_op);
    fallback.reason = "forced master cannot apply a user-defined operation: the default";
    return fallback;
  }
  return {forced, "forced by BDMPI_COLL_ENGINE"};
}

}  // namespace

EngineChoice SelectEngine(CollKind kind, const CommInfo& comm, bool user_op) {
  EngineChoice choice = Choose(kind, comm, user_op);
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
