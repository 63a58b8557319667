// What masters send each other over Open MPI.
//
// Point-to-point (communicator "p2p", one tag): every forwarded BDMPI
// message starts with a WireHeader. A small payload follows the header in
// the same MPI message; a large one follows as `chunks` MPI messages of at
// most the chunk size, streamed from the sender's spill file and written to
// a spill file of the receiving master, so that neither holds it in memory.
// A master sends the messages for one destination node strictly one after
// the other, and MPI keeps the order of one sender's messages, so BDMPI's
// non-overtaking rule holds across nodes.
//
// Control (communicator "control"): ControlMsg, e.g. the job is ending, and
// every half second a numbered wave of kStateRequest from node 0 answered
// by each master's kState, for node 0's deadlock watch (network_control.h).
#pragma once

#include <cstdint>
#include <type_traits>

#include "master/coll/step_signature.h"

namespace bdmpi {

// A forwarded message, or (kind kSyncMatched, no payload) the news that
// a synchronous send's message was matched: it goes back to the sender's
// master, which completes send `sync_id` of rank `dest_world_rank`; or
// (kind kDynamic) a message from master to master about dynamic
// processes, its payload text fields (master/launch/dynamic_messages.cpp).
enum class WireKind : std::uint32_t { kMessage = 0, kSyncMatched = 1, kDynamic = 2 };

struct WireHeader {
  std::int32_t dest_world_rank = 0;
  std::int32_t comm = 0;
  std::int32_t source = 0;  // rank in comm
  std::int32_t tag = 0;
  std::uint64_t bytes = 0;
  std::uint32_t chunks = 0;  // 0: the payload follows in this MPI message
  WireKind kind = WireKind::kMessage;
  // A synchronous send's (0: none): the sender's world rank and send id.
  std::int32_t sync_sender = -1;
  std::uint32_t ordinal = 0;  // Envelope::ordinal
  std::uint64_t sync_id = 0;
};

// kHeartbeat: "still here" (master/network/peer_watch.h); kAbort: the job ends;
// kStateRequest: node 0 asks for every master's kState in round `round`;
// kState: a master's ranks and traffic, to node 0, answering a round;
// kStatus: no longer sent (the live status travels as text,
// master/network/status_exchange.h); its value stays reserved.
enum class ControlKind : std::int32_t {
  kAbort = 1,
  kHeartbeat = 2,
  kState = 3,
  kStatus = 4,
  kStateRequest = 5,
};

// An inter-node collective step a master has under way (or finished
// lately), for the deadlock watch: a step every master of its group has
// started with the same signature will complete, however long its data
// takes; one whose masters' signatures differ never will, or completed
// wrongly (step_conflict.h).
struct StepRef {
  std::int32_t comm = 0;
  std::int32_t group_size = 0;  // masters taking part
  std::uint64_t seq = 0;
  std::int32_t active = 0;      // 0: finished lately
  std::int32_t reserved = 0;
  StepSignature signature;      // what this node's ranks called
};

inline constexpr int kMaxStepRefs = 16;

// kState, for --progress: the node's ranks by state and its disk traffic
// so far; node 0 adds them up for the job's status line.
struct NodeProgress {
  std::int32_t running = 0;
  std::int32_t runnable = 0;
  std::int32_t blocked = 0;
  std::int32_t finished = 0;
  std::uint64_t spilled = 0;
  std::uint64_t written_back = 0;
  std::int32_t top_call_ranks = 0;  // ranks blocked in top_call
  char top_call[28] = {};           // the call most of its blocked ranks wait in
};

struct ControlMsg {
  ControlKind kind = ControlKind::kAbort;
  std::int32_t status = 0;  // the job's exit status
  char text[248] = {};      // why, for the other masters' messages
  // kState: whether every live rank of the node is blocked (1: none is
  // live, 2: some are blocked; 0: some can run), the messages
  // it has sent to and received from other nodes, a counter of its
  // network progress, and `text`: its blocked ranks and their calls.
  std::int32_t quiescent = 0;
  std::int32_t round = 0;  // kStateRequest, kState: the deadlock watch's wave
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t progress = 0;
  // Its collective steps; steps_overflow: more than fit (the watch then
  // assumes they progress).
  std::int32_t nsteps = 0;
  std::int32_t steps_overflow = 0;
  StepRef steps[kMaxStepRefs];
  NodeProgress activity;
};

static_assert(std::is_trivially_copyable_v<WireHeader>);
static_assert(std::is_trivially_copyable_v<ControlMsg>);
static_assert(std::is_trivially_copyable_v<StepRef>);
static_assert(std::is_trivially_copyable_v<NodeProgress>);

}  // namespace bdmpi
