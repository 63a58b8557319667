// Nonblocking, persistent and blocking collectives as schedules of
// point-to-point messages on the communicator's collective twin (see
// coll_p2p.h and docs/collectives.md, "Nonblocking and persistent collectives").
//
// There is no progress thread, and a rank blocked in MPI_Recv sits in its
// master: it cannot forward anything. So a schedule is one round: every
// message a rank sends is sent (buffered, never blocking) when the
// operation starts, with data the rank has then, and every receive is
// posted then too, in a fixed order. What is left is to complete those
// receives, in that order, and combine their data locally (folding
// reductions in rank order, so non-commutative operations are right).
// MPI_Wait, MPI_Test and the other completion calls do that; a rank never
// waits in a collective for something another rank would have to do after
// its own call returned, so no interleaving with other calls deadlocks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/protocol.h"
#include "slave/p2p/wire_data.h"
#include "slave/request/request.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

struct DirectRecv;

// One rank's part of one collective operation once its messages are
// posted: the steps still to complete, in order. A step is a receive (with
// what to do with its data) or a local action (copying or folding).
class Schedule {
 public:
  using Deliver = std::function<void(const ReplyMsg&)>;
  using Action = std::function<void()>;

  explicit Schedule(const CommInfo& comm);

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Sends now: `bytes` wire bytes, or `count` elements packed once.
  void SendBytes(int dest, int tag, const void* data, std::uint64_t bytes);
  void SendElements(int dest, int tag, const void* buffer, int count, MPI_Datatype type);
  // As SendElements, but the block is lent (slave/p2p/lent_blocks.h) when it
  // is large and needs no packing: the receiver reads it from this rank's
  // memory, and the schedule is done only once every lent block is back.
  // Only for blocks the program may not touch until the operation
  // completes and that no receive of the operation overwrites.
  void LendElements(int dest, int tag, const void* buffer, int count, MPI_Datatype type);
  // The same for wire bytes made already (lent when they are the user's).
  void LendWire(int dest, int tag, const WireData& wire);
  // Posts a receive of at most `capacity` wire bytes now; `deliver` takes
  // the master's reply when the step is reached and its message is there.
  void Recv(int source, int tag, std::uint64_t capacity, Deliver deliver);
  // Posts a receive of `count` elements into `buffer` (unpacked when the
  // type has gaps; more data than that is MPI_ERR_TRUNCATE).
  void RecvElements(int source, int tag, void* buffer, int count, MPI_Datatype type);
  // An empty message (a barrier's) that a rank of this node may write
  // without the master, and its receive: a standard send on the twin,
  // which goes into the receive RecvEmpty published or waits in the
  // receiver's inbox (slave/p2p/direct_path.h), else through the master,
  // counted there so that none of its sender's later ones passes it. Only
  // for a tag whose every receive is a RecvEmpty (TwinTagUsesInbox), on
  // an intracommunicator.
  void SendEmpty(int dest, int tag);
  void RecvEmpty(int source, int tag);
  // A step that completes receive `id`, which something other than this
  // schedule posted (the master completes it; see comm_idup.cpp).
  void Await(std::uint64_t id, Deliver deliver);
  // A local action, run when the steps before it are complete.
  void Then(Action action);

  // Adds a step for each lent block, then runs the local actions at the
  // front; call once all steps are added.
  void Begin();
  bool done() const { return next_ == steps_.size(); }
  // The receive id of the next step (0 when done).
  std::uint64_t waiting_id() const;
  // Takes the completion of the next step's receive and runs the local
  // actions after it.
  void Absorb(const ReplyMsg& reply);
  // Completes every step, blocking; while it waits at the master, the
  // receive buffers of the steps not yet taken are dead (AddPending).
  void Wait();
  // Adds to `dead` (memory/dead_pages.h) the buffers that the receives
  // not yet taken overwrite whole: nothing reads a receive's buffer before
  // its delivery fills it, and the blocks of one operation do not overlap.
  void AddPending(memory::DeadWhileWaiting& dead) const;
  bool Test();  // completes the steps whose messages are there
  // Completes the steps at the front whose receive a sender of the node
  // wrote or left in the inbox (RecvEmpty), polling for one first when
  // `wait`; the first it cannot complete is told to the master (with the
  // rest of the rank's deferred receives), which is then asked about it.
  void ProgressAlone(bool wait);
  // Whether a test can say "not yet" without the master: the first step
  // not completed by a sender already is a receive published, untold and
  // not written, which may stay so (DirectPath::MayStayUntold, as a
  // point-to-point receive's test).
  bool TestHere() const;
  // Frees the receives not completed (MPI_Request_free of an active
  // operation): they keep their place in matching order and drop their
  // messages.
  void Abandon();

 private:
  struct Step {
    Step(std::uint64_t receive, Deliver take, Action act)
        : id(receive), deliver(std::move(take)), action(std::move(act)) {}
    std::uint64_t id = 0;  // 0: a local action
    Deliver deliver;
    Action action;
    // A receive published for senders of the node (RecvEmpty), and its
    // sender's node slave index.
    std::shared_ptr<DirectRecv> direct;
    int sender = -1;
    // The bytes its delivery overwrites whole (RecvElements into a type
    // without gaps), dead while a blocking wait reaches it (Wait).
    const void* overwrites = nullptr;
    std::uint64_t overwrites_bytes = 0;
  };
  void RunLocalSteps();
  // Takes the next step's completion and runs the local actions after it.
  void TakeStep(const ReplyMsg& reply);
  void LendBytes(int dest, int tag, const void* data, std::uint64_t bytes);
  // The world rank of rank `dest` (of an intracommunicator).
  int WorldRankOf(int dest) const;

  int twin_ = 0;
  int rank_ = 0;
  int size_ = 0;
  // The members' world ranks (empty: MPI_COMM_WORLD, or an
  // intercommunicator, whose blocks are never lent).
  std::vector<int> world_ranks_;
  std::vector<Step> steps_;
  std::size_t next_ = 0;
  std::vector<std::uint64_t> lent_;  // ids of the lent blocks, until Begin
};

// A collective call with its arguments checked: each call posts one
// execution's messages and returns its schedule. Called once for a blocking
// or nonblocking call, at every MPI_Start for a persistent one.
using CollectivePlan = std::function<Schedule()>;

// The request of a nonblocking or persistent collective (request.h): each
// start runs the plan, and the master's completions are the steps of the
// schedule it made; `id` is the receive of the next one.
class CollectiveRequest : public Request {
 public:
  CollectiveRequest(MPI_Comm comm_handle, CollectivePlan plan);

  void Absorb(const ReplyMsg& reply) override;
  void AddOverwritten(memory::DeadWhileWaiting& dead) const override;
  void ProgressAlone(bool wait) override;
  bool TestHere() override;
  void Start() override;
  // Refused while active (MPI_ERR_REQUEST): MPI makes cancelling a
  // collective erroneous, and Open MPI refuses it so; the operation goes
  // on and completes as usual. An inactive persistent one: nothing to do.
  void Cancel() override;
  // Frees the schedule's receives not completed (Schedule::Abandon).
  bool Free() override;

 private:
  // Mirrors the schedule's state into what the completion calls see.
  void Reflect();

  CollectivePlan plan_;
  std::optional<Schedule> running_;
};

void RunBlocking(const CollectivePlan& plan);
// Starts `request` (a CollectiveRequest, or a kind derived from it) and
// returns its handle.
MPI_Request StartNonblocking(std::unique_ptr<CollectiveRequest> request);
MPI_Request StartNonblocking(CollectivePlan plan, MPI_Comm comm);
// Inactive until MPI_Start.
MPI_Request NewPersistent(CollectivePlan plan, MPI_Comm comm);

}  // namespace bdmpi
