// One collective operation in progress on this node's master.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "common/protocol.h"
#include "master/payload.h"

namespace bdmpi {

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
  bool root_arrived = false;
  bool local_complete = false;  // every local member has done its part
  bool done = false;            // the result is ready (after the inter-node step)
  // Replies still to be given out; the collective is dropped at zero.
  int replies_due = 0;

  // Reductions: contributions by comm rank, folded into `result` strictly
  // in rank order so that results do not depend on the schedule; `folded`
  // counts the local ranks folded so far.
  std::vector<std::optional<Payload>> contributions;
  int folded = 0;
  // `result` mapped, when it is on disk, while it is being folded into or
  // moved between nodes.
  std::optional<MappedFile> accumulator_map;

  // Bcast: the root's data; reductions: the result.
  Payload result;

  // Comm split: every member's entry, ordered by node and then parent rank
  // (the layout of the masters' allgather; this node's block starts at
  // split_offset), the channel this master chose for each color of its
  // members, and the outcome for each local member (world rank -> new
  // communicator id and rank, none for MPI_UNDEFINED) with each new
  // communicator's member list.
  std::vector<SplitEntry> split_entries;
  std::size_t split_offset = 0;
  std::map<int, int> split_channels;
  std::map<int, std::pair<int, int>> split_outcome;  // -> (id, rank)
  std::map<int, Payload> split_members;
  // Members that joined without waiting (MPI_Comm_idup): world rank -> the
  // receive id whose completion hands them the outcome (idup_split.cpp).
  std::map<int, std::uint64_t> nonblocking_members;
};

struct MasterComm;

// Whether this node's part of a collective is complete, so that its
// inter-node step may start or, on one node, its result is ready: the
// message table names one for each collective.
bool EveryLocalMemberArrived(const Collective& collective, const MasterComm& comm);
bool BcastLocallyComplete(const Collective& collective, const MasterComm& comm);
bool EveryLocalPartFolded(const Collective& collective, const MasterComm& comm);

}  // namespace bdmpi
