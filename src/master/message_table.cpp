#include "master/message_table.h"

#include <array>
#include <cstdint>

#include "master/master.h"

namespace bdmpi {

// Member functions of Master are private: the table is built by a friend.
struct MessageTable {
  static const MessageRow* Find(MsgType type);
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
  static constexpr MessageRow kRows[] = {
      // Life cycle (master.cpp).
      {.type = MsgType::kInit, .mpi_call = "MPI_Init", .blocks = Blocks::kRunnable,
       .handle = &M::HandleInit},
      {.type = MsgType::kFinalize, .handle = &M::HandleFinalize},
      {.type = MsgType::kAbort, .handle = &M::HandleAbort},
      // Not a request: the watcher's and the network's wake-ups (OnEvent).
      {.type = MsgType::kEvent, .master_event = true},

      // Point-to-point (p2p.cpp, blocked_call.cpp).
      {.type = MsgType::kSend, .comm_check = CommCheck::kOwnRankAndPeer, .may_lend = true,
       .may_place = true, .handle = &M::HandleSend},
      // With wants_reply it is MPI_Recv: a post and a wait.
      {.type = MsgType::kPostRecv, .mpi_call = "MPI_Recv", .blocks = Blocks::kRBlocked,
       .handle = &M::HandlePostRecv, .ready = &M::RecvReady, .complete = &M::CompleteRecv,
       .describe = &M::DescribeSourceTag},
      {.type = MsgType::kWaitRecv, .mpi_call = "MPI_Wait/MPI_Waitall", .blocks = Blocks::kRBlocked,
       .handle = &M::HandleWaitRecv, .ready = &M::RecvReady, .complete = &M::CompleteRecv,
       .describe = &M::DescribeWaitRecv},
      {.type = MsgType::kTestRecv, .mpi_call = "MPI_Test", .blocks = Blocks::kRunnable,
       .handle = &M::HandleTestRecv, .complete = &M::CompleteRecv},
      {.type = MsgType::kProbe, .mpi_call = "MPI_Probe", .blocks = Blocks::kRBlocked,
       .handle = &M::HandleProbe, .ready = &M::ProbeReady, .complete = &M::CompleteProbe,
       .describe = &M::DescribeSourceTag},
      {.type = MsgType::kIprobe, .mpi_call = "MPI_Iprobe", .blocks = Blocks::kRunnable,
       .handle = &M::HandleProbe, .complete = &M::CompleteProbe},
      {.type = MsgType::kWaitAny, .mpi_call = "MPI_Waitany/MPI_Waitsome",
       .blocks = Blocks::kRBlocked, .handle = &M::HandleAnyRecv, .ready = &M::AnyRecvReady,
       .complete = &M::CompleteAnyRecv, .describe = &M::DescribeWaitAny},
      {.type = MsgType::kTestAny, .mpi_call = "MPI_Testany/MPI_Testsome",
       .blocks = Blocks::kRunnable, .handle = &M::HandleAnyRecv,
       .complete = &M::CompleteAnyRecv},
      {.type = MsgType::kPollAny, .handle = &M::HandleAnyRecv, .complete = &M::CompleteAnyRecv},
      {.type = MsgType::kTestAll, .mpi_call = "MPI_Testall", .blocks = Blocks::kRunnable,
       .handle = &M::HandleTestAll, .complete = &M::CompleteTestAll},
      {.type = MsgType::kFreeRecv, .handle = &M::HandleFreeRecv},
      {.type = MsgType::kCancel, .mpi_call = "MPI_Cancel", .handle = &M::HandleCancel},
      {.type = MsgType::kMprobe, .mpi_call = "MPI_Mprobe", .blocks = Blocks::kRBlocked,
       .handle = &M::HandleProbe, .ready = &M::ProbeReady, .complete = &M::CompleteMprobe,
       .describe = &M::DescribeSourceTag},
      {.type = MsgType::kImprobe, .mpi_call = "MPI_Improbe", .blocks = Blocks::kRunnable,
       .handle = &M::HandleProbe, .complete = &M::CompleteMprobe},
      {.type = MsgType::kMrecv, .mpi_call = "MPI_Mrecv", .handle = &M::HandleMrecv},
      // Asks about the lent block of its last reply, which stays held.
      {.type = MsgType::kCopyLent, .keeps_reply_files = true, .handle = &M::HandleCopyLent},
      {.type = MsgType::kWaitSsend, .mpi_call = "MPI_Ssend", .blocks = Blocks::kRBlocked,
       .handle = &M::HandleWaitRecv, .ready = &M::RecvReady, .complete = &M::CompleteRecv,
       .describe = &M::DescribeAwaitedSend},

      // Collectives (collective.cpp, bcast.cpp, reduce.cpp).
      {.type = MsgType::kBarrier, .mpi_call = "MPI_Barrier", .blocks = Blocks::kCBlocked,
       .comm_check = CommCheck::kOwnRank,
       .handle = &M::HandleCollective, .ready = &M::CollectiveReady,
       .complete = &M::CompleteCollective, .locally_complete = &EveryLocalMemberArrived,
       .prepare_step = &M::PrepareBarrierStep, .start_step = &StartBarrierStep},
      {.type = MsgType::kBcast, .mpi_call = "MPI_Bcast", .blocks = Blocks::kCBlocked,
       .comm_check = CommCheck::kOwnRankAndPeer,
       .handle = &M::HandleCollective, .ready = &M::CollectiveReady,
       .complete = &M::CompleteCollective, .describe = &M::DescribeRooted,
       .result_for = ResultFor::kNonRoot, .rooted = true, .same_size = true,
       .contribute = &M::ContributeBcast, .locally_complete = &BcastLocallyComplete,
       .prepare_step = &M::PrepareBcastStep, .start_step = &StartBcastStep,
       .hand_result = &M::GiveResult},
      {.type = MsgType::kReduce, .mpi_call = "MPI_Reduce", .blocks = Blocks::kCBlocked,
       .comm_check = CommCheck::kOwnRankAndPeer,
       .handle = &M::HandleCollective, .ready = &M::CollectiveReady,
       .complete = &M::CompleteCollective, .describe = &M::DescribeRooted,
       .result_for = ResultFor::kRoot, .rooted = true, .same_size = true,
       .contribute = &M::ContributeReduce, .locally_complete = &EveryLocalPartFolded,
       .prepare_step = &M::PrepareReduceStep, .start_step = &StartReduceStep,
       .hand_result = &M::GiveResult},
      {.type = MsgType::kAllreduce, .mpi_call = "MPI_Allreduce", .blocks = Blocks::kCBlocked,
       .comm_check = CommCheck::kOwnRank,
       .handle = &M::HandleCollective, .ready = &M::CollectiveReady,
       .complete = &M::CompleteCollective, .same_size = true,
       .contribute = &M::ContributeReduce, .locally_complete = &EveryLocalPartFolded,
       .prepare_step = &M::PrepareReduceStep, .start_step = &StartAllreduceStep,
       .hand_result = &M::GiveResult},

      // BDMPI extensions (critical.cpp).
      {.type = MsgType::kEnterCritical, .mpi_call = "BDMPI_Enter_critical",
       .blocks = Blocks::kCritical, .handle = &M::HandleEnterCritical,
       .ready = &M::CriticalReady},
      {.type = MsgType::kExitCritical, .handle = &M::HandleExitCritical},

      // Communicators (comm.cpp): a split is a collective.
      {.type = MsgType::kCommSplit, .mpi_call = "MPI_Comm_split/dup/create",
       .blocks = Blocks::kCBlocked, .comm_check = CommCheck::kOwnRank,
       .handle = &M::HandleCollective, .ready = &M::CollectiveReady, .complete = &M::CompleteCollective,
       .contribute = &M::ContributeSplit, .locally_complete = &EveryLocalMemberArrived,
       .prepare_step = &M::PrepareSplitStep, .start_step = &StartSplitStep,
       .finish = &M::FinishSplit, .hand_result = &M::CompleteSplit},
      {.type = MsgType::kCommFree, .comm_check = CommCheck::kLiveMember,
       .handle = &M::HandleCommFree},
      // Checked by its handler: the communicator does not exist yet.
      {.type = MsgType::kCommRegister, .mpi_call = "MPI_Comm_create_group/MPI_Intercomm_create",
       .handle = &M::HandleCommRegister},

      // Memory (memory.cpp). Release and ReadAhead go master -> slave only.
      {.type = MsgType::kRelease},
      {.type = MsgType::kReadAhead},
      // Sent while the slave waits for a reply that may be made already (a
      // runnable slave switched out), naming files it has yet to read.
      {.type = MsgType::kReleased, .keeps_reply_files = true, .handle = &M::HandleReleased},
      {.type = MsgType::kReleaseProgress, .keeps_reply_files = true,
       .handle = &M::HandleReleaseProgress},
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
          bool collective = row.handle == &Master::HandleCollective;
          if (collective != (row.locally_complete != nullptr)) return false;
          if (collective != (row.start_step != nullptr)) return false;
          if (collective != (row.prepare_step != nullptr)) return false;
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
      "a collective needs its local completion, its step's data and its inter-node step "
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
          // A lent or placed payload goes to a checked peer.
          if ((row.may_lend || row.may_place) && row.comm_check != CommCheck::kOwnRankAndPeer)
            return false;
        }
        return true;
      }(),
      "a master event has no handler, only a request that never blocks keeps its reply's "
      "files, and a lent or placed payload needs a checked peer");

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
