#include "master/message_table.h"

#include <array>
#include <cstdint>
#include <type_traits>

#include "master/master.h"

namespace bdmpi {

// The handlers are private members of the master and its families: the
// table is built by a friend, which binds each to its object.
struct MessageTable {
  static const MessageRow* Find(MsgType type);

  // The object whose member `F` is, in `master` (const with it).
  template <auto F, class M>
  static auto& Part(M& master) {
    using Family = typename ClassOf<decltype(F)>::type;
    if constexpr (std::is_same_v<Family, Master>) {
      return master;
    } else if constexpr (std::is_same_v<Family, NodeMemory>) {
      return master.memory_;
    } else if constexpr (std::is_same_v<Family, PointToPoint>) {
      return master.p2p_;
    } else if constexpr (std::is_same_v<Family, Collectives>) {
      return master.collectives_;
    } else {
      static_assert(std::is_same_v<Family, CriticalSections>, "a family the master does not have");
      return master.critical_;
    }
  }

  template <class T>
  struct ClassOf;
  template <class C, class T>
  struct ClassOf<T C::*> {
    using type = C;
  };

  // The columns' functions, one per member function. A handler declares
  // the inline payload only when it reads it.
  template <auto F>
  static void Handle(Master& master, Slave& slave, const RequestMsg& request,
                     const std::byte* inline_payload) {
    auto& part = Part<F>(master);
    if constexpr (std::is_invocable_v<decltype(F), decltype(part), Slave&, const RequestMsg&,
                                      const std::byte*>) {
      (part.*F)(slave, request, inline_payload);
    } else {
      (part.*F)(slave, request);
    }
  }
  template <auto F>
  static bool Ready(const Master& master, const Slave& slave, const RequestMsg& request) {
    return (Part<F>(master).*F)(slave, request);
  }
  template <auto F>
  static ReplyMsg Complete(Master& master, Slave& slave, const RequestMsg& request) {
    return (Part<F>(master).*F)(slave, request);
  }
  template <auto F>
  static std::string Describe(const Master& master, const Slave& slave,
                              const RequestMsg& request) {
    return (Part<F>(master).*F)(slave, request);
  }
};

namespace {

// Rows are found by the type's family and number within the family.
constexpr int kFamilies = 16;
constexpr int kPerFamily = 32;

constexpr int SlotOf(MsgType type) {
  int value = static_cast<int>(type);
  int family = value >> 8;
  int number = value & 0xff;
  if (family >= kFamilies || number >= kPerFamily) return -1;
  return family * kPerFamily + number;
}

}  // namespace

const MessageRow* MessageTable::Find(MsgType type) {
  using M = Master;
  using C = CriticalSections;
  using P = PointToPoint;
  using N = NodeMemory;
  using Co = Collectives;
  static constexpr MessageRow kRows[] = {
      // Life cycle (master.cpp).
      {.type = MsgType::kInit, .mpi_call = "MPI_Init", .replies = Replies::kYes,
       .blocks = Blocks::kRunnable, .handle = Handle<&M::HandleInit>},
      {.type = MsgType::kFinalize, .replies = Replies::kYes, .handle = Handle<&M::HandleFinalize>},
      {.type = MsgType::kAbort, .handle = Handle<&M::HandleAbort>},
      // Not a request: the watcher's and the network's wake-ups (OnEvent).
      {.type = MsgType::kEvent, .master_event = true},

      // Point-to-point (p2p.h). A send takes one of four ways, each its own
      // row (common/protocol.h); the slave chooses (slave/p2p/send_path.h).
      // A window payload may be placed into its posted receive by the master.
      {.type = MsgType::kSend, .mpi_call = "MPI_Send", .replies = Replies::kIfAsked,
       .comm_check = CommCheck::kOwnRankAndPeer, .may_place = true,
       .handle = Handle<&P::HandleSend>},
      {.type = MsgType::kSyncSend, .mpi_call = "MPI_Ssend/MPI_Bsend", .replies = Replies::kIfAsked,
       .comm_check = CommCheck::kOwnRankAndPeer, .handle = Handle<&P::HandleSyncSend>},
      // A collective's block, which stays in the sender's memory.
      {.type = MsgType::kLentSend, .mpi_call = "a collective's send",
       .comm_check = CommCheck::kOwnRankAndPeer, .may_lend = true,
       .handle = Handle<&P::HandleLentSend>},
      // Answered at once: granted (the receive is reserved) or refused.
      {.type = MsgType::kPlaceOffer, .mpi_call = "MPI_Send", .replies = Replies::kYes,
       .comm_check = CommCheck::kOwnRankAndPeer, .may_place = true,
       .handle = Handle<&P::HandlePlaceOffer>},
      {.type = MsgType::kPlaced, .mpi_call = "MPI_Send", .comm_check = CommCheck::kOwnRankAndPeer,
       .may_place = true, .handle = Handle<&P::HandlePlaced>},
      // With wants_reply it is MPI_Recv: a post and a wait.
      {.type = MsgType::kPostRecv, .mpi_call = "MPI_Recv", .replies = Replies::kIfAsked,
       .blocks = Blocks::kRBlocked, .handle = Handle<&P::HandlePostRecv>,
       .ready = Ready<&P::RecvReady>, .complete = Complete<&P::CompleteRecv>,
       .describe = Describe<&P::DescribeSourceTag>},
      {.type = MsgType::kWaitRecv, .mpi_call = "MPI_Wait/MPI_Waitall", .replies = Replies::kYes,
       .blocks = Blocks::kRBlocked, .handle = Handle<&P::HandleWaitRecv>,
       .ready = Ready<&P::RecvReady>, .complete = Complete<&P::CompleteRecv>,
       .describe = Describe<&P::DescribeWaitRecv>},
      {.type = MsgType::kTestRecv, .mpi_call = "MPI_Test", .replies = Replies::kYes,
       .blocks = Blocks::kRunnable, .handle = Handle<&P::HandleTestRecv>,
       .complete = Complete<&P::CompleteRecv>},
      {.type = MsgType::kProbe, .mpi_call = "MPI_Probe", .replies = Replies::kYes,
       .blocks = Blocks::kRBlocked, .handle = Handle<&P::HandleProbe>,
       .ready = Ready<&P::ProbeReady>, .complete = Complete<&P::CompleteProbe>,
       .describe = Describe<&P::DescribeSourceTag>},
      {.type = MsgType::kIprobe, .mpi_call = "MPI_Iprobe", .replies = Replies::kYes,
       .blocks = Blocks::kRunnable, .handle = Handle<&P::HandleProbe>,
       .complete = Complete<&P::CompleteProbe>},
      {.type = MsgType::kWaitAny, .mpi_call = "MPI_Waitany/MPI_Waitsome", .replies = Replies::kYes,
       .blocks = Blocks::kRBlocked, .handle = Handle<&P::HandleAnyRecv>,
       .ready = Ready<&P::AnyRecvReady>, .complete = Complete<&P::CompleteAnyRecv>,
       .describe = Describe<&P::DescribeWaitAny>},
      {.type = MsgType::kTestAny, .mpi_call = "MPI_Testany/MPI_Testsome", .replies = Replies::kYes,
       .blocks = Blocks::kRunnable, .handle = Handle<&P::HandleAnyRecv>,
       .complete = Complete<&P::CompleteAnyRecv>},
      {.type = MsgType::kPollAny, .replies = Replies::kYes, .handle = Handle<&P::HandleAnyRecv>,
       .complete = Complete<&P::CompleteAnyRecv>},
      {.type = MsgType::kTestAll, .mpi_call = "MPI_Testall", .replies = Replies::kYes,
       .blocks = Blocks::kRunnable, .handle = Handle<&P::HandleTestAll>,
       .complete = Complete<&P::CompleteTestAll>},
      {.type = MsgType::kFreeRecv, .handle = Handle<&P::HandleFreeRecv>},
      {.type = MsgType::kCancel, .mpi_call = "MPI_Cancel", .replies = Replies::kYes,
       .handle = Handle<&P::HandleCancel>},
      // Its communicator and peer are checked by its handler: a send whose
      // communicator has gone is just not cancelled.
      {.type = MsgType::kCancelSend, .mpi_call = "MPI_Cancel", .replies = Replies::kYes,
       .handle = Handle<&P::HandleCancelSend>},
      {.type = MsgType::kMprobe, .mpi_call = "MPI_Mprobe", .replies = Replies::kYes,
       .blocks = Blocks::kRBlocked, .handle = Handle<&P::HandleMprobe>,
       .ready = Ready<&P::ProbeReady>, .complete = Complete<&P::CompleteMprobe>,
       .describe = Describe<&P::DescribeSourceTag>},
      {.type = MsgType::kImprobe, .mpi_call = "MPI_Improbe", .replies = Replies::kYes,
       .blocks = Blocks::kRunnable, .handle = Handle<&P::HandleMprobe>,
       .complete = Complete<&P::CompleteMprobe>},
      {.type = MsgType::kMrecv, .mpi_call = "MPI_Mrecv", .replies = Replies::kYes,
       .handle = Handle<&P::HandleMrecv>},
      // Asks about the lent block of its last reply, which stays held.
      {.type = MsgType::kCopyLent, .replies = Replies::kYes, .keeps_reply_files = true,
       .handle = Handle<&P::HandleCopyLent>},
      // One-way: a sender wrote a message into a receive the master knows.
      {.type = MsgType::kDirectDone, .handle = Handle<&P::HandleDirectDone>},
      // One-way: a receive the master knows was written while its rank polled.
      {.type = MsgType::kDirectTaken, .handle = Handle<&P::HandleDirectTaken>},
      {.type = MsgType::kWaitSsend, .mpi_call = "MPI_Ssend", .replies = Replies::kYes,
       .blocks = Blocks::kRBlocked, .handle = Handle<&P::HandleWaitRecv>,
       .ready = Ready<&P::RecvReady>, .complete = Complete<&P::CompleteRecv>,
       .describe = Describe<&P::DescribeAwaitedSend>},

      // Collectives (collectives.h: collective.cpp, bcast.cpp, reduce.cpp).
      {.type = MsgType::kBarrier, .mpi_call = "MPI_Barrier", .replies = Replies::kYes,
       .blocks = Blocks::kCBlocked, .comm_check = CommCheck::kOwnRank,
       .handle = Handle<&Co::HandleCollective>, .ready = Ready<&Co::CollectiveReady>,
       .complete = Complete<&Co::CompleteCollective>,
       .make_state = &MakeCollectiveState<BarrierState>,
       .locally_complete = &EveryLocalMemberArrived, .prepare_step = &Co::PrepareBarrierStep,
       .start_step = &StartBarrierStep},
      {.type = MsgType::kBcast, .mpi_call = "MPI_Bcast", .replies = Replies::kIfAsked,
       .blocks = Blocks::kCBlocked, .comm_check = CommCheck::kOwnRankAndPeer,
       .handle = Handle<&Co::HandleCollective>, .ready = Ready<&Co::CollectiveReady>,
       .complete = Complete<&Co::CompleteCollective>, .describe = Describe<&M::DescribeRooted>,
       .result_for = ResultFor::kNonRoot, .rooted = true, .same_size = true,
       .make_state = &MakeCollectiveState<BcastState>, .contribute = &Co::ContributeBcast,
       .locally_complete = &BcastLocallyComplete, .prepare_step = &Co::PrepareBcastStep,
       .start_step = &StartBcastStep, .hand_result = &Co::GiveResult},
      {.type = MsgType::kReduce, .mpi_call = "MPI_Reduce", .replies = Replies::kIfAsked,
       .blocks = Blocks::kCBlocked, .comm_check = CommCheck::kOwnRankAndPeer,
       .handle = Handle<&Co::HandleCollective>, .ready = Ready<&Co::CollectiveReady>,
       .complete = Complete<&Co::CompleteCollective>, .describe = Describe<&M::DescribeRooted>,
       .result_for = ResultFor::kRoot, .rooted = true, .same_size = true,
       .make_state = &MakeCollectiveState<ReduceState>, .contribute = &Co::ContributeReduce,
       .locally_complete = &EveryLocalPartFolded, .prepare_step = &Co::PrepareReduceStep,
       .start_step = &StartReduceStep, .hand_result = &Co::GiveResult},
      {.type = MsgType::kAllreduce, .mpi_call = "MPI_Allreduce", .replies = Replies::kIfAsked,
       .blocks = Blocks::kCBlocked, .comm_check = CommCheck::kOwnRank,
       .handle = Handle<&Co::HandleCollective>, .ready = Ready<&Co::CollectiveReady>,
       .complete = Complete<&Co::CompleteCollective>, .same_size = true,
       .make_state = &MakeCollectiveState<ReduceState>, .contribute = &Co::ContributeReduce,
       .locally_complete = &EveryLocalPartFolded, .prepare_step = &Co::PrepareReduceStep,
       .start_step = &StartAllreduceStep, .hand_result = &Co::GiveResult},

      // BDMPI extensions (critical.h).
      {.type = MsgType::kEnterCritical, .mpi_call = "BDMPI_Enter_critical",
       .replies = Replies::kYes, .blocks = Blocks::kCritical, .handle = Handle<&C::HandleEnter>,
       .ready = Ready<&C::Ready>},
      {.type = MsgType::kExitCritical, .handle = Handle<&C::HandleExit>},

      // Communicators (comm.cpp): a split is a collective.
      {.type = MsgType::kCommSplit, .mpi_call = "MPI_Comm_split/dup/create",
       .replies = Replies::kIfAsked, .blocks = Blocks::kCBlocked, .comm_check = CommCheck::kOwnRank,
       .handle = Handle<&Co::HandleCollective>, .ready = Ready<&Co::CollectiveReady>,
       .complete = Complete<&Co::CompleteCollective>,
       .make_state = &MakeCollectiveState<SplitState>, .contribute = &Co::ContributeSplit,
       .locally_complete = &EveryLocalMemberArrived, .prepare_step = &Co::PrepareSplitStep,
       .start_step = &StartSplitStep, .finish = &Co::FinishSplit,
       .hand_result = &Co::CompleteSplit},
      {.type = MsgType::kCommFree, .comm_check = CommCheck::kLiveMember,
       .handle = Handle<&Co::HandleCommFree>},
      // Checked by their handlers: the communicator does not exist yet.
      {.type = MsgType::kCommNewId, .mpi_call = "MPI_Comm_create_group/MPI_Intercomm_create",
       .replies = Replies::kYes, .handle = Handle<&Co::HandleCommNewId>},
      {.type = MsgType::kCommChannel, .mpi_call = "MPI_Comm_create_group/MPI_Intercomm_create",
       .replies = Replies::kYes, .handle = Handle<&Co::HandleCommChannel>},
      {.type = MsgType::kCommMembers, .mpi_call = "MPI_Comm_create_group/MPI_Intercomm_create",
       .replies = Replies::kYes, .handle = Handle<&Co::HandleCommMembers>},

      // Memory (memory.h). Release and ReadAhead go master -> slave only.
      {.type = MsgType::kRelease},
      {.type = MsgType::kReadAhead},
      // Sent while the slave waits for a reply that may be made already (a
      // runnable slave switched out), naming files it has yet to read.
      {.type = MsgType::kReleased, .keeps_reply_files = true, .handle = Handle<&N::HandleReleased>},
      {.type = MsgType::kReleaseProgress, .keeps_reply_files = true,
       .handle = Handle<&N::HandleReleaseProgress>},
      {.type = MsgType::kRestoreLent, .replies = Replies::kYes, .keeps_reply_files = true,
       .handle = Handle<&N::HandleRestoreLent>},
      {.type = MsgType::kLentSettled, .keeps_reply_files = true,
       .handle = Handle<&N::HandleLentSettled>},
      // No handler: OnRequest lets go of the last reply's files, as for
      // every request that does not keep them, which is all it is for.
      {.type = MsgType::kPayloadRead},

      // Dynamic processes (launch/spawn_ranks.cpp, launch/service_names.cpp).
      {.type = MsgType::kSpawn, .mpi_call = "MPI_Comm_spawn", .replies = Replies::kYes,
       .handle = Handle<&M::HandleSpawn>},
      {.type = MsgType::kPublishName, .mpi_call = "MPI_Publish_name", .replies = Replies::kYes,
       .handle = Handle<&M::HandlePublishName>},
      {.type = MsgType::kLookupName, .mpi_call = "MPI_Lookup_name", .replies = Replies::kYes,
       .handle = Handle<&M::HandleLookupName>},
      {.type = MsgType::kUnpublishName, .mpi_call = "MPI_Unpublish_name",
       .replies = Replies::kYes, .handle = Handle<&M::HandleUnpublishName>},
      // One-sided communication (docs/one-sided.md): one-way, the call in
      // which the slave's next waits on a window's communicator are made,
      // for the deadlock report (blocked_call.cpp).
      {.type = MsgType::kRmaWaitIn, .handle = Handle<&M::HandleRmaWaitIn>},
  };

  static constexpr auto kSlots = [] {
    std::array<std::int8_t, kFamilies * kPerFamily> slots{};
    slots.fill(-1);
    for (std::size_t row = 0; row < std::size(kRows); ++row) {
      int slot = SlotOf(kRows[row].type);
      // Not a constant expression, so compilation fails, when a row's type
      // is out of range or has two rows.
      if (slot < 0 || slots[slot] >= 0) throw "bad message table row";
      slots[slot] = static_cast<std::int8_t>(row);
    }
    return slots;
  }();
  static_assert(std::size(kRows) < 128);
  static_assert(
      [] {
        for (MsgType listed : kAllMsgTypes) {
          if (SlotOf(listed) < 0 || kSlots[SlotOf(listed)] < 0) return false;
        }
        return std::size(kRows) == std::size(kAllMsgTypes);
      }(),
      "every MsgType of BDMPI_MSG_TYPES needs a row in the message table");
  static_assert(
      [] {
        for (const MessageRow& row : kRows) {
          bool waits = row.blocks != Blocks::kNever && row.blocks != Blocks::kRunnable;
          if (waits && row.ready == nullptr) return false;
        }
        return true;
      }(),
      "a message that can leave its slave blocked needs a ready function");
  static_assert(
      [] {
        for (const MessageRow& row : kRows) {
          bool collective = row.handle == Handle<&Co::HandleCollective>;
          if (collective != (row.locally_complete != nullptr)) return false;
          if (collective != (row.start_step != nullptr)) return false;
          if (collective != (row.prepare_step != nullptr)) return false;
          if (collective != (row.make_state != nullptr)) return false;
          bool collective_only = row.rooted || row.same_size || row.contribute != nullptr ||
                                 row.finish != nullptr || row.hand_result != nullptr ||
                                 row.result_for != ResultFor::kEveryone;
          if (collective_only && !collective) return false;
          // A root is checked against the communicator before it is used.
          if (row.rooted && row.comm_check != CommCheck::kOwnRankAndPeer) return false;
          if (row.rooted != (row.result_for != ResultFor::kEveryone)) return false;
          // A result sized by the members is given back to them.
          if (row.same_size && row.hand_result == nullptr) return false;
        }
        return true;
      }(),
      "a collective needs its state, its local completion, its step's data and its "
      "inter-node step "
      "(a rooted one its root checked, a sized one its result handed out); nothing else "
      "has any of them");
  static_assert(
      [] {
        for (const MessageRow& row : kRows) {
          // A master event is served before any sender is known.
          if (row.master_event && (row.handle != nullptr || row.mpi_call != nullptr))
            return false;
          // Only a slave that waits for a reply sends while it holds one.
          if (row.keeps_reply_files && row.blocks != Blocks::kNever) return false;
          // A lent or placed payload goes to a checked peer, and is a
          // point-to-point step of one of the two kinds.
          if ((row.may_lend || row.may_place) && (row.comm_check != CommCheck::kOwnRankAndPeer ||
                                                  !IsPointToPoint(row.type) ||
                                                  (row.may_lend && row.may_place)))
            return false;
        }
        return true;
      }(),
      "a master event has no handler, only a request that never blocks keeps its reply's "
      "files, and a lent or placed payload is a point-to-point step with a checked peer");
  static_assert(
      [] {
        for (const MessageRow& row : kRows) {
          // What lets a blocked or yielding slave run again is its reply.
          if (row.blocks != Blocks::kNever && row.replies == Replies::kNo) return false;
          // Nobody waits for an answer to a master's own event.
          if (row.master_event && row.replies != Replies::kNo) return false;
          // A reply is made by a handler (or by its completion).
          if (row.replies != Replies::kNo && row.handle == nullptr) return false;
        }
        return true;
      }(),
      "a request that can block or yield is answered, a master event never is, and an "
      "answered one has a handler");

  int slot = SlotOf(type);
  if (slot < 0 || kSlots[slot] < 0) return nullptr;
  return &kRows[kSlots[slot]];
}

const MessageRow* FindMessageRow(MsgType type) { return MessageTable::Find(type); }

const char* MpiCallName(MsgType type) {
  const MessageRow* row = FindMessageRow(type);
  return row != nullptr && row->mpi_call != nullptr ? row->mpi_call : MsgTypeName(type);
}

}  // namespace bdmpi
