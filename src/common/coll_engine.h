// The engines that serve a rank's collective call, and the setting that
// forces one per collective (--coll-engine, BDMPI_COLL_ENGINE). bdmpiexec
// checks the setting (a bad one ends the launch), the ranks read it
// (slave/coll/engine.h, which picks the engine of each call).
//
//   master      the masters' two-phase collective: every rank deposits its
//               part with its master, the masters combine among themselves
//               (the inter-node algorithms of collectives/select.h)
//   fold_bcast  allreduce: rank 0 folds every contribution in rank order,
//               then broadcasts the result (MPI_Bcast's engine)
//   schedule    the one-round schedules of the nonblocking collectives
//               (slave/coll/nbc.h), run to completion
//   chain       scan, exscan: a chain in rank order (n - 1 messages)
//   inter       intercommunicators: their own schedules; chosen for every
//               call on one, never forced
//   node        barrier, bcast, allreduce as point-to-point messages that
//               take the direct path between running ranks of a node, rank 0
//               (the root) folding in rank order (slave/coll/node_coll.h);
//               by default for small parts when every member is on the
//               node and every rank of the node runs on a core of its own
//
// docs/collectives.md, "Which engine serves a call", says when each is
// chosen and why.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace bdmpi {

enum class CollKind { kBarrier, kBcast, kReduce, kAllreduce, kScan, kExscan };
inline constexpr std::size_t kNumCollKinds = 6;

enum class CollEngine { kAuto, kMaster, kFoldBcast, kSchedule, kChain, kInter, kNode };

// "barrier", "bcast", ...; "master", "fold_bcast", ...
std::string_view CollKindName(CollKind kind);
std::string_view CollEngineName(CollEngine engine);

// Whether `engine` serves calls of `kind` (on an intracommunicator; some
// calls it still cannot serve, see slave/coll/engine.h). kAuto and kInter
// serve none: neither can be forced.
bool EngineServes(CollEngine engine, CollKind kind);

// The node engine's messages travel on the communicator's collective twin
// with a tag per collective, past the schedules' (slave/coll/coll_p2p.h),
// so that a rank blocked in one is named in its call ("MPI_Barrier").
inline constexpr int kNodeCollTagBase = 64;
constexpr int NodeCollTag(CollKind kind) { return kNodeCollTagBase + static_cast<int>(kind); }
// The barrier schedule's tag (slave/coll/coll_p2p.h, kTagBarrier).
inline constexpr int kScheduleBarrierTag = 8;
// Whether every receive of `tag` on a collective twin goes through
// DirectPath::Post, which first takes a message waiting in the rank's
// inbox (the node engine's and the barrier schedule's receives): only
// such a twin's message may wait there (DirectPath::TrySend). Every other
// receive on a twin may go straight to the master, which never looks in
// an inbox.
constexpr bool TwinTagUsesInbox(int tag) {
  return tag == kScheduleBarrierTag ||
         (tag >= kNodeCollTagBase && tag < kNodeCollTagBase + static_cast<int>(kNumCollKinds));
}
// "MPI_Barrier", ... of a node engine's tag; "" for any other tag.
std::string NodeCollCallOfTag(int tag);
std::string NodeCollCallName(CollKind kind);

// What the setting forces, by kind (kAuto: nothing).
using ForcedEngines = std::array<CollEngine, kNumCollKinds>;

// Parses "KIND=ENGINE,..." (or "" / "auto": nothing forced). Throws
// Error(kErrArg) that starts with `what` and names the kind or engine
// that is wrong and what is accepted.
ForcedEngines ParseCollEngines(const std::string& text, const std::string& what);

}  // namespace bdmpi
