// MPI_Comm_idup on the master: a split whose members do not wait in it.
// Such a member's CommSplit request carries a receive id; the master joins
// it to the collective like any member (so the order of collectives on the
// parent is kept) but leaves it running, and when the new communicator
// exists completes that receive with the outcome. MPI_Wait, MPI_Test,
// MPI_Waitany ... then find it like any receive, and a rank waiting in
// them is rblocked, so others run meanwhile (-nr 1).
#include <cstdint>
#include <cstring>
#include <vector>

#include "master/coll/collectives.h"
#include "master/message_table.h"

namespace bdmpi {

void Collectives::JoinWithoutWaiting(Collective& collective, Slave& slave,
                                     const RequestMsg& request) {
  std::get<SplitState>(collective.state).nonblocking_members[slave.world_rank] = request.id;
  master_.AwaitUnposted(slave, request.id);
}

void Collectives::HandOutToNonblocking(Collective& collective) {
  SplitState* split = std::get_if<SplitState>(&collective.state);
  if (!collective.done || split == nullptr) return;
  for (auto [world_rank, recv_id] : split->nonblocking_members) {
    Slave* member = master_.slaves().ByWorldRank(world_rank);
    // As CompleteSplit's reply: rank and size in the status (the receive's
    // source and tag, which the slave reads as CommSplitReply); the payload
    // is the new id and then the members' world ranks (int32 each).
    Message outcome;
    std::vector<std::byte> data;
    auto made = split->outcome.find(world_rank);
    if (made != split->outcome.end()) {
      auto [id, rank] = made->second;
      const std::vector<int>& members = Comm(id).world_ranks;
      std::vector<std::int32_t> words{id};
      words.insert(words.end(), members.begin(), members.end());
      data.resize(words.size() * sizeof(std::int32_t));
      std::memcpy(data.data(), words.data(), data.size());
      outcome.envelope = Envelope{id, rank, static_cast<int>(members.size())};
    }
    outcome.payload = payloads_.Store(std::move(data));
    master_.CompleteUnposted(*member, recv_id, std::move(outcome));
    --collective.replies_due;
    master_.WakeIfReady(*member);
  }
  split->nonblocking_members.clear();
}

}  // namespace bdmpi
