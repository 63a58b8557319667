// One collective operation in progress on this node's master.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "common/file_io.h"
#include "common/protocol.h"
#include "master/memory/payload.h"

namespace bdmpi {

// The data of a broadcast or a reduction: the root's data, or the result
// folded so far, mapped in `accumulator_map` while it is on disk and being
// folded into or moved between nodes.
struct CollectiveData {
  Payload result;
  std::optional<MappedFile> accumulator_map;
};

// Each kind's state; the message table's make_state column says which.
struct BarrierState {};

struct BcastState : CollectiveData {
  bool root_arrived = false;
};

// Reductions: contributions by comm rank, folded into `result` strictly in
// rank order so that results do not depend on the schedule; `folded` counts
// the local ranks folded so far.
struct ReduceState : CollectiveData {
  std::vector<std::optional<Payload>> contributions;
  int folded = 0;
};

// Comm split: every member's entry, ordered by node and then parent rank
// (the layout of the masters' allgather; this node's block starts at
// `offset`), the channel this master chose for each color of its members,
// and the outcome for each local member (world rank -> new communicator id
// and rank, none for MPI_UNDEFINED) with each new communicator's member
// list. Members that joined without waiting (MPI_Comm_idup): world rank ->
// the receive id whose completion hands them the outcome (idup_split.cpp).
struct SplitState {
  std::vector<SplitEntry> entries;
  std::size_t offset = 0;
  std::map<int, int> channels;
  std::map<int, std::pair<int, int>> outcome;  // -> (id, rank)
  std::map<int, Payload> members;
  std::map<int, std::uint64_t> nonblocking_members;
};

using CollectiveState = std::variant<BarrierState, BcastState, ReduceState, SplitState>;

// (Not every state is assignable: MappedFile is not.)
template <class State>
void MakeCollectiveState(CollectiveState& state) {
  state.emplace<State>();
}

struct Collective {
  MsgType type = MsgType::kBarrier;
  int comm = 0;
  std::uint64_t seq = 0;  // the n-th collective on comm
  int root = 0;
  std::uint16_t datatype = 0;
  std::uint16_t op = 0;
  std::uint64_t bytes = 0;  // root's / contributors' payload size
  int first_rank = 0;       // the member (comm rank) that set `bytes`
  int arrived = 0;  // local members so far
  bool local_complete = false;  // every local member has done its part
  bool done = false;            // the result is ready (after the inter-node step)
  // Replies still to be given out; the collective is dropped at zero.
  int replies_due = 0;
  CollectiveState state;
};

// The data of a collective that has some (bcast, reductions); nullptr for
// the others.
CollectiveData* DataOf(Collective& collective);

struct MasterComm;

// Whether this node's part of a collective is complete, so that its
// inter-node step may start or, on one node, its result is ready: the
// message table names one for each collective.
bool EveryLocalMemberArrived(const Collective& collective, const MasterComm& comm);
bool BcastLocallyComplete(const Collective& collective, const MasterComm& comm);
bool EveryLocalPartFolded(const Collective& collective, const MasterComm& comm);

}  // namespace bdmpi
