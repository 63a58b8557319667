// The collectives on communicators between two jobs; see cross_job.h and
// cross_job_coll.h.
#include "slave/comm/cross_job_coll.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "common/error.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/collectives.h"
#include "slave/comm/cross_job_internal.h"
#include "slave/comm/cross_job_mesh.h"
#include "slave/datatype/datatypes.h"
#include "slave/p2p/wire_data.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"

namespace bdmpi {

namespace {

// One block a collective moves: `count` elements of `datatype` at `at`,
// to or from rank `rank` of the peer group (CrossJobComm::peers()).
struct CrossBlock {
  int rank;
  const void* at;
  int count;
  MPI_Datatype datatype;
};

// What a rank of a collective that moves blocks sends and receives.
struct CrossMoves {
  std::vector<CrossBlock> sends;
  std::vector<CrossBlock> receives;
};

// Rank `rank`'s block of a buffer, `displs` in extents of `datatype`.
const void* CrossBlockAt(const void* buffer, const int displs[], int rank, MPI_Datatype datatype) {
  return static_cast<const char*>(buffer) + displs[rank] * LookupType(datatype).extent;
}

// The one algorithm of the collectives that move blocks, on both kinds of
// communicator: every send first, then every receive in the order given.
// A send is written whole before it returns and reads meanwhile when the
// socket is full, so sending first never waits for a receiver; a block
// to this rank itself goes through its own queue. Frames between two
// ranks keep their order and members call collectives in one order, so
// the operation's tag is all a receive needs to match.
void MoveBlocks(const CommInfo& comm, CrossTag tag, const CrossMoves& moves) {
  const CrossJobComm& cross = CrossOf(comm);
  std::int32_t context = CrossCollContext(comm);
  const std::vector<int>& peers = cross.peers();
  for (const CrossBlock& block : moves.sends) {
    WireData wire = ToWire(block.at, block.count, block.datatype);
    cross.mesh->Send(peers[static_cast<std::size_t>(block.rank)], context, tag, wire.data,
                     wire.bytes);
  }
  for (const CrossBlock& block : moves.receives) {
    Frame frame =
        cross.mesh->Take(context, peers[static_cast<std::size_t>(block.rank)], tag, peers);
    // The receive buffer is the user's (the blocks name it as const only
    // to share one type with the sends).
    DeliverFrame(frame, cross, const_cast<void*>(block.at), block.count, block.datatype,
                 MPI_STATUS_IGNORE);
  }
}

// Folds the local group's contributions at local rank `root`, in rank
// order (a user-defined operation sees the lower ranks as `in`).
std::vector<std::byte> FoldLocal(const CommInfo& comm, std::vector<std::byte> mine, int count,
                                 MPI_Datatype datatype, MPI_Op op, int root) {
  const CrossJobComm& cross = CrossOf(comm);
  CheckedOp checked = CheckOp(op, datatype);
  std::int32_t context = CrossCollContext(comm);
  int root_index = cross.local[static_cast<std::size_t>(root)];
  if (comm.rank != root) {
    cross.mesh->Send(root_index, context, kCrossReduceTag, mine.data(), mine.size());
    return {};
  }
  std::vector<std::vector<std::byte>> parts(static_cast<std::size_t>(comm.size));
  for (int r = 0; r < comm.size; ++r)
    parts[static_cast<std::size_t>(r)] =
        r == root ? std::move(mine)
                  : cross.mesh
                        ->Take(context, cross.local[static_cast<std::size_t>(r)], kCrossReduceTag,
                               cross.local)
                        .data;
  std::vector<std::byte> folded = std::move(parts.back());
  for (int r = comm.size - 2; r >= 0; --r)
    ApplyOpWire(checked, datatype, parts[static_cast<std::size_t>(r)].data(), folded.data(), count);
  return folded;
}

void WriteResult(const std::vector<std::byte>& wire, void* recv, int count, MPI_Datatype datatype) {
  WriteWire(wire, recv, count, ScatteredLayout(datatype).get());
}

}  // namespace

void CrossBarrier(const CommInfo& comm) {
  CrossFence(CrossOf(comm), CrossMe(comm), CrossCollContext(comm));
}

void CrossBcast(const CommInfo& comm, void* buffer, int count, MPI_Datatype datatype, int root) {
  const CrossJobComm& cross = CrossOf(comm);
  std::int32_t context = CrossCollContext(comm);
  RootedPart part = CrossPartIn(comm, root);
  if (part == RootedPart::kNone) return;
  if (part == RootedPart::kRoot) {
    WireData wire = ToWire(buffer, count, datatype);
    for (int peer : cross.peers())
      if (peer != CrossMe(comm))
        cross.mesh->Send(peer, context, kCrossBcastTag, wire.data, wire.bytes);
    return;
  }
  Frame frame = cross.mesh->Take(context, cross.peers()[static_cast<std::size_t>(root)],
                                 kCrossBcastTag, cross.peers());
  DeliverFrame(frame, cross, buffer, count, datatype, MPI_STATUS_IGNORE);
}

void CrossReduce(const CommInfo& comm, const void* send, void* recv, int count,
                 MPI_Datatype datatype, MPI_Op op, int root) {
  const CrossJobComm& cross = CrossOf(comm);
  RootedPart part = CrossPartIn(comm, root);
  if (part == RootedPart::kNone) return;
  if (cross.remote.empty()) {
    const void* mine = send == MPI_IN_PLACE ? recv : send;
    std::vector<std::byte> folded =
        FoldLocal(comm, WireCopy(mine, count, datatype), count, datatype, op, root);
    if (part == RootedPart::kRoot) WriteResult(folded, recv, count, datatype);
    return;
  }
  // An intercommunicator: the other group folds at its rank 0, which sends
  // the result to the root.
  std::int32_t context = CrossCollContext(comm);
  if (part == RootedPart::kRoot) {
    Frame frame = cross.mesh->Take(context, cross.remote.front(), kCrossResultTag, cross.remote);
    DeliverFrame(frame, cross, recv, count, datatype, MPI_STATUS_IGNORE);
    return;
  }
  std::vector<std::byte> folded =
      FoldLocal(comm, WireCopy(send, count, datatype), count, datatype, op, 0);
  if (comm.rank == 0)
    cross.mesh->Send(cross.remote[static_cast<std::size_t>(root)], context, kCrossResultTag,
                     folded.data(), folded.size());
}

void CrossAllreduce(const CommInfo& comm, const void* send, void* recv, int count,
                    MPI_Datatype datatype, MPI_Op op) {
  const CrossJobComm& cross = CrossOf(comm);
  std::int32_t context = CrossCollContext(comm);
  const void* mine = send == MPI_IN_PLACE ? recv : send;
  std::vector<std::byte> folded =
      FoldLocal(comm, WireCopy(mine, count, datatype), count, datatype, op, 0);
  // Rank 0 sends the fold to the ranks that get it: the remote group of
  // an intercommunicator, else its own.
  bool inter = !cross.remote.empty();
  if (comm.rank == 0)
    for (int peer : cross.peers())
      if (peer != CrossMe(comm))
        cross.mesh->Send(peer, context, kCrossResultTag, folded.data(), folded.size());
  if (!inter && comm.rank == 0) {
    WriteResult(folded, recv, count, datatype);
    return;
  }
  Frame frame = cross.mesh->Take(context, cross.peers().front(), kCrossResultTag, cross.peers());
  WriteResult(frame.data, recv, count, datatype);
}

CrossEvenBlocks EvenBlocksOf(const CommInfo& comm, int count) {
  CrossEvenBlocks blocks;
  for (int r = 0; r < comm.PeerGroupSize(); ++r) {
    blocks.counts.push_back(count);
    blocks.displs.push_back(r * count);
  }
  return blocks;
}

namespace {

// What each rank of a gather(v) sends and receives.
CrossMoves GathervMoves(const CommInfo& comm, const void* send, int sendcount,
                        MPI_Datatype sendtype, void* recv, const int recvcounts[],
                        const int displs[], MPI_Datatype recvtype, int root) {
  RootedPart part = CrossPartIn(comm, root);
  CrossMoves moves;
  if (part == RootedPart::kMember) moves.sends.push_back({root, send, sendcount, sendtype});
  if (part == RootedPart::kRoot) {
    bool intra = CrossOf(comm).remote.empty();
    // An intracommunicator's root sends itself its block, unless in place.
    if (intra && send != MPI_IN_PLACE)
      moves.sends.push_back({comm.rank, send, sendcount, sendtype});
    for (int r = 0; r < comm.PeerGroupSize(); ++r)
      if (!(intra && r == comm.rank && send == MPI_IN_PLACE))
        moves.receives.push_back(
            {r, CrossBlockAt(recv, displs, r, recvtype), recvcounts[r], recvtype});
  }
  return moves;
}

CrossMoves ScattervMoves(const CommInfo& comm, const void* send, const int sendcounts[],
                         const int displs[], MPI_Datatype sendtype, void* recv, int recvcount,
                         MPI_Datatype recvtype, int root) {
  RootedPart part = CrossPartIn(comm, root);
  CrossMoves moves;
  if (part == RootedPart::kMember) moves.receives.push_back({root, recv, recvcount, recvtype});
  if (part == RootedPart::kRoot) {
    bool intra = CrossOf(comm).remote.empty();
    for (int r = 0; r < comm.PeerGroupSize(); ++r)
      if (!(intra && r == comm.rank && recv == MPI_IN_PLACE))
        moves.sends.push_back(
            {r, CrossBlockAt(send, displs, r, sendtype), sendcounts[r], sendtype});
    if (intra && recv != MPI_IN_PLACE)
      moves.receives.push_back({comm.rank, recv, recvcount, recvtype});
  }
  return moves;
}

CrossMoves AllgathervMoves(const CommInfo& comm, const void* send, int sendcount,
                           MPI_Datatype sendtype, void* recv, const int recvcounts[],
                           const int displs[], MPI_Datatype recvtype) {
  // In place (an intracommunicator's), this rank's block is already there.
  bool in_place = send == MPI_IN_PLACE;
  CrossBlock mine = in_place ? CrossBlock{0, CrossBlockAt(recv, displs, comm.rank, recvtype),
                                          recvcounts[comm.rank], recvtype}
                             : CrossBlock{0, send, sendcount, sendtype};
  CrossMoves moves;
  for (int r = 0; r < comm.PeerGroupSize(); ++r) {
    if (in_place && r == comm.rank) continue;
    mine.rank = r;
    moves.sends.push_back(mine);
    moves.receives.push_back({r, CrossBlockAt(recv, displs, r, recvtype), recvcounts[r], recvtype});
  }
  return moves;
}

// Alltoallw's: block r of each buffer `displs[r]` bytes in, of its own
// type. In place, the blocks go out of the receive buffer: every send is
// written (or, in a schedule, sent when it starts) before the first
// receive overwrites it.
CrossMoves AlltoallwMoves(const CommInfo& comm, const void* send, const int sendcounts[],
                          const int sdispls[], const MPI_Datatype sendtypes[], void* recv,
                          const int recvcounts[], const int rdispls[],
                          const MPI_Datatype recvtypes[]) {
  bool in_place = send == MPI_IN_PLACE;
  if (in_place) {
    send = recv;
    sendcounts = recvcounts;
    sdispls = rdispls;
    sendtypes = recvtypes;
  }
  CrossMoves moves;
  for (int r = 0; r < comm.PeerGroupSize(); ++r) {
    if (in_place && r == comm.rank) continue;
    moves.sends.push_back(
        {r, static_cast<const char*>(send) + sdispls[r], sendcounts[r], sendtypes[r]});
    moves.receives.push_back(
        {r, static_cast<char*>(recv) + rdispls[r], recvcounts[r], recvtypes[r]});
  }
  return moves;
}

// Alltoallv's, as Alltoallw's with displacements in bytes.
CrossMoves AlltoallvMoves(const CommInfo& comm, const void* send, const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype, void* recv,
                          const int recvcounts[], const int rdispls[], MPI_Datatype recvtype) {
  auto n = static_cast<std::size_t>(comm.PeerGroupSize());
  std::vector<int> sbytes(n), rbytes(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (send != MPI_IN_PLACE)
      sbytes[r] = sdispls[r] * static_cast<int>(LookupType(sendtype).extent);
    rbytes[r] = rdispls[r] * static_cast<int>(LookupType(recvtype).extent);
  }
  std::vector<MPI_Datatype> stypes(n, sendtype), rtypes(n, recvtype);
  return AlltoallwMoves(comm, send, sendcounts, sbytes.data(), stypes.data(), recv, recvcounts,
                        rbytes.data(), rtypes.data());
}

}  // namespace

void CrossGatherv(const CommInfo& comm, const void* send, int sendcount, MPI_Datatype sendtype,
                  void* recv, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                  int root) {
  MoveBlocks(
      comm, kCrossGatherTag,
      GathervMoves(comm, send, sendcount, sendtype, recv, recvcounts, displs, recvtype, root));
}

void CrossScatterv(const CommInfo& comm, const void* send, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void* recv, int recvcount,
                   MPI_Datatype recvtype, int root) {
  MoveBlocks(
      comm, kCrossScatterTag,
      ScattervMoves(comm, send, sendcounts, displs, sendtype, recv, recvcount, recvtype, root));
}

void CrossAllgatherv(const CommInfo& comm, const void* send, int sendcount, MPI_Datatype sendtype,
                     void* recv, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype) {
  MoveBlocks(comm, kCrossAllgatherTag,
             AllgathervMoves(comm, send, sendcount, sendtype, recv, recvcounts, displs, recvtype));
}

void CrossAlltoallv(const CommInfo& comm, const void* send, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void* recv, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype) {
  MoveBlocks(comm, kCrossAlltoallTag,
             AlltoallvMoves(comm, send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls,
                            recvtype));
}

void CrossScan(const CommInfo& comm, const void* send, void* recv, int count, MPI_Datatype datatype,
               MPI_Op op, bool exclusive) {
  const CrossJobComm& cross = CrossOf(comm);
  if (!cross.remote.empty()) CrossIntracommOnly(exclusive ? "MPI_Exscan" : "MPI_Scan");
  CheckedOp checked = CheckOp(op, datatype);
  std::int32_t context = CrossCollContext(comm);
  // Rank r gets x_0 op ... op x_{r-1} from r - 1, folds its own x_r after
  // it and passes that on to r + 1 (a user-defined operation sees the
  // lower ranks as `in`).
  std::vector<std::byte> prefix = WireCopy(send == MPI_IN_PLACE ? recv : send, count, datatype);
  Frame before;
  if (comm.rank > 0) {
    before = cross.mesh->Take(context, cross.local[static_cast<std::size_t>(comm.rank - 1)],
                              kCrossScanTag, cross.local);
    if (before.data.size() != prefix.size())
      throw Error(kErrTruncate, "a scan: rank " + std::to_string(comm.rank - 1) + " sent " +
                                    std::to_string(before.data.size()) + " bytes for " +
                                    std::to_string(prefix.size()));
    ApplyOpWire(checked, datatype, before.data.data(), prefix.data(), count);
  }
  if (comm.rank + 1 < comm.size)
    cross.mesh->Send(cross.local[static_cast<std::size_t>(comm.rank + 1)], context, kCrossScanTag,
                     prefix.data(), prefix.size());
  if (!exclusive) {
    WriteResult(prefix, recv, count, datatype);
  } else if (comm.rank > 0) {
    WriteResult(before.data, recv, count, datatype);
  }
}

// ---- schedules: the nonblocking and persistent collectives

CrossSchedule::CrossSchedule(const CommInfo& comm)
    : cross_(comm.cross),
      context_(CrossCollContext(comm)),
      tag_(kCrossScheduleTags +
           static_cast<std::int32_t>(comm.cross->schedules++ % kCrossScheduleTags)) {}

void CrossSchedule::SendWire(int to, const void* data, std::uint64_t bytes) {
  cross_->mesh->Send(to, context_, tag_, data, bytes);
}

void CrossSchedule::SendElements(int to, const void* buffer, int count, MPI_Datatype datatype) {
  WireData wire = ToWire(buffer, count, datatype);
  SendWire(to, wire.data, wire.bytes);
}

void CrossSchedule::Recv(int from, Take take) { steps_.push_back(Step{from, std::move(take), {}}); }

void CrossSchedule::Then(Action action) { steps_.push_back(Step{-1, {}, std::move(action)}); }

bool CrossSchedule::Advance(bool wait) {
  while (!done()) {
    Step& step = steps_[next_];
    if (step.from < 0) {
      step.action();
    } else if (wait) {
      Frame frame = cross_->mesh->Take(context_, step.from, tag_, {step.from});
      step.take(frame);
    } else if (std::optional<Frame> frame =
                   cross_->mesh->TryTake(context_, step.from, tag_, {step.from})) {
      step.take(*frame);
    } else {
      return false;
    }
    ++next_;
  }
  return true;
}

bool CrossSchedule::Test() { return Advance(/*wait=*/false); }

void CrossSchedule::Wait() { Advance(/*wait=*/true); }

namespace {

// A nonblocking or persistent collective between two jobs: each start
// runs the plan; the rank completes the schedule itself.
class CrossCollRequest : public Request {
 public:
  CrossCollRequest(MPI_Comm handle, CrossPlan plan) : Request(handle), plan_(std::move(plan)) {}

  bool CompletesOutsideMaster() const override { return true; }
  void Start() override {
    running_.reset();
    running_.emplace(plan_());
    active = true;
    done = running_->Test();
    SetEmptyStatus(&status);
  }
  bool Poll() override {
    if (!done && running_) done = running_->Test();
    if (!done) YieldRunningSlot();
    return done;
  }
  void Await() override {
    if (running_) running_->Wait();
    done = true;
  }
  // As CollectiveRequest: MPI makes cancelling a collective erroneous.
  void Cancel() override {
    if (active && !done)
      throw Error(kErrRequest, "MPI_Cancel of a collective operation (between two jobs)");
  }
  bool Free() override { return true; }

 private:
  CrossPlan plan_;
  std::optional<CrossSchedule> running_;
};

// A plan over the blocks `moves` gives at each start.
CrossPlan MovesPlan(MPI_Comm handle, std::function<CrossMoves(const CommInfo&)> moves) {
  moves(LookupComm(handle));  // checks the arguments now
  return [handle, moves = std::move(moves)] {
    const CommInfo& comm = LookupComm(handle);
    CrossSchedule schedule(comm);
    CrossMoves blocks = moves(comm);
    const std::vector<int>& peers = comm.cross->peers();
    for (const CrossBlock& block : blocks.sends)
      schedule.SendElements(peers[static_cast<std::size_t>(block.rank)], block.at, block.count,
                            block.datatype);
    for (const CrossBlock& block : blocks.receives) {
      std::shared_ptr<const CrossJobComm> cross = comm.cross;
      schedule.Recv(peers[static_cast<std::size_t>(block.rank)], [cross, block](Frame& frame) {
        DeliverFrame(frame, *cross, const_cast<void*>(block.at), block.count, block.datatype,
                     MPI_STATUS_IGNORE);
      });
    }
    return schedule;
  };
}

// Steps that take a contribution of `bytes` wire bytes from each of
// `from` (mesh indexes, in rank order), then fold them in that order (a
// user-defined operation sees the lower ranks as `in`) and hand the fold
// to `done`.
void FoldCrossSteps(CrossSchedule& schedule, const std::vector<int>& from, int count,
               MPI_Datatype datatype, MPI_Op op,
               std::function<void(const std::vector<std::byte>&)> done) {
  CheckedOp checked = CheckOp(op, datatype);
  std::uint64_t bytes = WireBytes(count, datatype);
  auto parts = std::make_shared<std::vector<std::vector<std::byte>>>(from.size());
  for (std::size_t i = 0; i < from.size(); ++i)
    schedule.Recv(from[i], [parts, i, bytes](Frame& frame) {
      if (frame.data.size() != bytes)
        throw Error(kErrTruncate, "a reduction between two jobs: a contribution of " +
                                      std::to_string(frame.data.size()) + " bytes for " +
                                      std::to_string(bytes));
      (*parts)[i] = std::move(frame.data);
    });
  schedule.Then([parts, checked, datatype, count, done = std::move(done)] {
    std::vector<std::byte> folded = std::move(parts->back());
    for (std::size_t r = parts->size() - 1; r-- > 0;)
      ApplyOpWire(checked, datatype, (*parts)[r].data(), folded.data(), count);
    done(folded);
  });
}

// The contribution of a reduction: `send`, or `recv` in place.
const void* OwnPart(const void* send, const void* recv) {
  return send == MPI_IN_PLACE ? recv : send;
}

// A reduction whose fold every rank of the peer group needs (allreduce,
// reduce-scatters): the rank sends its `count` elements to each of them,
// folds theirs, and hands `keep` the fold.
CrossPlan FoldEverywherePlan(MPI_Comm handle, const void* send, const void* recv, int count,
                             MPI_Datatype datatype, MPI_Op op,
                             std::function<void(const std::vector<std::byte>&)> keep) {
  CheckOp(op, datatype);
  return [=] {
    const CommInfo& comm = LookupComm(handle);
    CrossSchedule schedule(comm);
    const std::vector<int>& peers = comm.cross->peers();
    for (int peer : peers) schedule.SendElements(peer, OwnPart(send, recv), count, datatype);
    FoldCrossSteps(schedule, peers, count, datatype, op, keep);
    return schedule;
  };
}

// Keeps `count` elements of a fold from element `first` on in `recv`.
void KeepPart(const std::vector<std::byte>& folded, std::uint64_t first, int count,
              MPI_Datatype datatype, void* recv) {
  std::uint64_t element = WireBytes(1, datatype);
  auto from = folded.begin() + static_cast<std::ptrdiff_t>(first * element);
  std::vector<std::byte> part(from, from + static_cast<std::ptrdiff_t>(count * element));
  WriteResult(part, recv, count, datatype);
}

CrossPlan ScanLikePlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm handle, bool exclusive) {
  const CommInfo& checked = LookupComm(handle);
  if (!checked.cross->remote.empty()) CrossIntracommOnly(exclusive ? "MPI_Iexscan" : "MPI_Iscan");
  CheckOp(op, datatype);
  return [=] {
    const CommInfo& comm = LookupComm(handle);
    CrossSchedule schedule(comm);
    const std::vector<int>& local = comm.cross->local;
    // Rank r's contribution goes to every rank that folds it: r and up,
    // or above r (an exclusive scan).
    for (int r = exclusive ? comm.rank + 1 : comm.rank; r < comm.size; ++r)
      schedule.SendElements(local[static_cast<std::size_t>(r)], OwnPart(send, recv), count,
                            datatype);
    std::vector<int> lower(local.begin(), local.begin() + (exclusive ? comm.rank : comm.rank + 1));
    if (!lower.empty())
      FoldCrossSteps(schedule, lower, count, datatype, op, [=](const std::vector<std::byte>& folded) {
        WriteResult(folded, recv, count, datatype);
      });
    return schedule;
  };
}

}  // namespace

CrossPlan CrossBarrierPlan(MPI_Comm handle) {
  return [handle] {
    const CommInfo& comm = LookupComm(handle);
    CrossSchedule schedule(comm);
    int me = CrossMe(comm);
    for (int peer : comm.cross->peers())
      if (peer != me) schedule.SendWire(peer, nullptr, 0);
    for (int peer : comm.cross->peers())
      if (peer != me) schedule.Recv(peer, [](Frame&) {});
    return schedule;
  };
}

CrossPlan CrossBcastPlan(void* buffer, int count, MPI_Datatype datatype, int root,
                         MPI_Comm handle) {
  return MovesPlan(handle, [=](const CommInfo& comm) {
    CrossMoves moves;
    RootedPart part = CrossPartIn(comm, root);
    if (part == RootedPart::kMember) moves.receives.push_back({root, buffer, count, datatype});
    if (part == RootedPart::kRoot)
      for (int r = 0; r < comm.PeerGroupSize(); ++r)
        if (comm.cross->peers()[static_cast<std::size_t>(r)] != CrossMe(comm))
          moves.sends.push_back({r, buffer, count, datatype});
    return moves;
  });
}

CrossPlan CrossGathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm handle) {
  return MovesPlan(handle, [=](const CommInfo& comm) {
    return GathervMoves(comm, send, sendcount, sendtype, recv, recvcounts, displs, recvtype, root);
  });
}

CrossPlan CrossGatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm handle) {
  CrossEvenBlocks blocks = EvenBlocksOf(LookupComm(handle), recvcount);
  return MovesPlan(handle, [=](const CommInfo& comm) {
    return GathervMoves(comm, send, sendcount, sendtype, recv, blocks.counts.data(),
                        blocks.displs.data(), recvtype, root);
  });
}

CrossPlan CrossScattervPlan(const void* send, const int sendcounts[], const int displs[],
                            MPI_Datatype sendtype, void* recv, int recvcount, MPI_Datatype recvtype,
                            int root, MPI_Comm handle) {
  return MovesPlan(handle, [=](const CommInfo& comm) {
    return ScattervMoves(comm, send, sendcounts, displs, sendtype, recv, recvcount, recvtype, root);
  });
}

CrossPlan CrossScatterPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm handle) {
  CrossEvenBlocks blocks = EvenBlocksOf(LookupComm(handle), sendcount);
  return MovesPlan(handle, [=](const CommInfo& comm) {
    return ScattervMoves(comm, send, blocks.counts.data(), blocks.displs.data(), sendtype, recv,
                         recvcount, recvtype, root);
  });
}

CrossPlan CrossAllgathervPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                              MPI_Comm handle) {
  return MovesPlan(handle, [=](const CommInfo& comm) {
    return AllgathervMoves(comm, send, sendcount, sendtype, recv, recvcounts, displs, recvtype);
  });
}

CrossPlan CrossAllgatherPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm handle) {
  CrossEvenBlocks blocks = EvenBlocksOf(LookupComm(handle), recvcount);
  return MovesPlan(handle, [=](const CommInfo& comm) {
    return AllgathervMoves(comm, send, sendcount, sendtype, recv, blocks.counts.data(),
                           blocks.displs.data(), recvtype);
  });
}

CrossPlan CrossAlltoallvPlan(const void* send, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recv, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm handle) {
  return MovesPlan(handle, [=](const CommInfo& comm) {
    return AlltoallvMoves(comm, send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls,
                          recvtype);
  });
}

CrossPlan CrossAlltoallPlan(const void* send, int sendcount, MPI_Datatype sendtype, void* recv,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm handle) {
  const CommInfo& comm = LookupComm(handle);
  CrossEvenBlocks sent = EvenBlocksOf(comm, sendcount), received = EvenBlocksOf(comm, recvcount);
  return MovesPlan(handle, [=](const CommInfo& at) {
    return AlltoallvMoves(at, send, sent.counts.data(), sent.displs.data(), sendtype, recv,
                          received.counts.data(), received.displs.data(), recvtype);
  });
}

CrossPlan CrossAlltoallwPlan(const void* send, const int sendcounts[], const int sdispls[],
                             const MPI_Datatype sendtypes[], void* recv, const int recvcounts[],
                             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm handle) {
  return MovesPlan(handle, [=](const CommInfo& comm) {
    return AlltoallwMoves(comm, send, sendcounts, sdispls, sendtypes, recv, recvcounts, rdispls,
                          recvtypes);
  });
}

CrossPlan CrossReducePlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                          int root, MPI_Comm handle) {
  CrossPartIn(LookupComm(handle), root);
  CheckOp(op, datatype);
  return [=] {
    const CommInfo& comm = LookupComm(handle);
    CrossSchedule schedule(comm);
    const std::vector<int>& peers = comm.cross->peers();
    RootedPart part = CrossPartIn(comm, root);
    // Every member sends to the root; an intracommunicator's root to
    // itself too.
    bool intra = comm.cross->remote.empty();
    if (part == RootedPart::kMember || (intra && part == RootedPart::kRoot))
      schedule.SendElements(peers[static_cast<std::size_t>(root)], OwnPart(send, recv), count,
                            datatype);
    if (part == RootedPart::kRoot)
      FoldCrossSteps(schedule, peers, count, datatype, op, [=](const std::vector<std::byte>& folded) {
        WriteResult(folded, recv, count, datatype);
      });
    return schedule;
  };
}

CrossPlan CrossAllreducePlan(const void* send, void* recv, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm handle) {
  return FoldEverywherePlan(
      handle, send, recv, count, datatype, op,
      [=](const std::vector<std::byte>& folded) { WriteResult(folded, recv, count, datatype); });
}

CrossPlan CrossReduceScatterPlan(const void* send, void* recv, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm handle) {
  // The vector holds the local group's parts, back to back (the other
  // group's vectors are as long); this rank keeps its own.
  const CommInfo& comm = LookupComm(handle);
  int total = std::accumulate(recvcounts, recvcounts + comm.size, 0);
  std::uint64_t first =
      static_cast<std::uint64_t>(std::accumulate(recvcounts, recvcounts + comm.rank, 0));
  int mine = recvcounts[comm.rank];
  return FoldEverywherePlan(
      handle, send, recv, total, datatype, op,
      [=](const std::vector<std::byte>& folded) { KeepPart(folded, first, mine, datatype, recv); });
}

CrossPlan CrossReduceScatterBlockPlan(const void* send, void* recv, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm handle) {
  const CommInfo& comm = LookupComm(handle);
  auto first = static_cast<std::uint64_t>(comm.rank) * static_cast<std::uint64_t>(recvcount);
  return FoldEverywherePlan(handle, send, recv, comm.size * recvcount, datatype, op,
                            [=](const std::vector<std::byte>& folded) {
                              KeepPart(folded, first, recvcount, datatype, recv);
                            });
}

CrossPlan CrossScanPlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm) {
  return ScanLikePlan(send, recv, count, datatype, op, comm,
                      /*exclusive=*/false);
}

CrossPlan CrossExscanPlan(const void* send, void* recv, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm) {
  return ScanLikePlan(send, recv, count, datatype, op, comm,
                      /*exclusive=*/true);
}

void RunCross(const CrossPlan& plan) { plan().Wait(); }

namespace {
// How far the members' next pairs may lie apart for MPI_Comm_idup: the
// pair taken is the highest proposed, which must fall in every member's
// window. Members' next pairs differ by the creations some took part in
// and others not since they last made one together.
constexpr int kCrossIdupWindow = 1 << 12;
}  // namespace

MPI_Request CrossIdup(MPI_Comm parent, MPI_Comm* newcomm) {
  const CommInfo& comm = LookupComm(parent);
  auto copy = std::make_shared<CrossJobComm>(CrossOf(comm));
  std::vector<int> members = copy->local;
  members.insert(members.end(), copy->remote.begin(), copy->remote.end());
  const int me = CrossMe(comm);
  CommInfo info = comm;
  info.name.clear();
  *newcomm = AddCrossComm(std::move(info), copy);  // its context is set when agreed
  const std::int32_t proposal = copy->mesh->OpenWindow(kCrossIdupWindow);
  CrossPlan plan = [parent, copy, members, me, proposal] {
    CrossSchedule schedule(LookupComm(parent));
    auto proposals = std::make_shared<std::vector<std::int32_t>>(1, proposal);
    for (int member : members)
      if (member != me) schedule.SendWire(member, &proposal, sizeof proposal);
    for (int member : members)
      if (member != me)
        schedule.Recv(member, [proposals](Frame& frame) {
          std::int32_t theirs = 0;
          std::memcpy(&theirs, frame.data.data(), std::min(frame.data.size(), sizeof theirs));
          proposals->push_back(theirs);
        });
    schedule.Then([copy, proposals] {
      auto [low, high] = std::minmax_element(proposals->begin(), proposals->end());
      copy->mesh->CloseWindow(*high);
      if (*high - *low >= kCrossIdupWindow)
        throw Error(kErrOther,
                    "MPI_Comm_idup on a communicator between two jobs: its members have made "
                    "too many communicators apart since they last made one together (over " +
                        std::to_string(kCrossIdupWindow / 2) +
                        "); MPI_Comm_dup agrees whatever the distance");
      copy->context = *high;
    });
    return schedule;
  };
  return StartCross(std::move(plan), parent);
}

MPI_Request StartCross(CrossPlan plan, MPI_Comm comm) {
  auto request = std::make_unique<CrossCollRequest>(comm, std::move(plan));
  request->Start();
  return NewRequest(std::move(request));
}

MPI_Request NewCrossPersistent(CrossPlan plan, MPI_Comm comm) {
  auto request = std::make_unique<CrossCollRequest>(comm, std::move(plan));
  request->persistent = true;
  request->active = false;
  request->done = true;
  return NewRequest(std::move(request));
}

}  // namespace bdmpi
