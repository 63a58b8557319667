// The master's message table: one row per MsgType saying everything the
// master does with it, so that no switch over MsgType is needed anywhere
// else. Adding a message costs one X(...) line in common/protocol.h, one
// row in message_table.cpp (a compile-time check wants a row for every
// type), and its two halves: the slave's call in src/slave and the
// master's handler, a member of Master (the life cycle's, master.cpp) or
// of its family's class (p2p.h, collectives.h, critical.h, memory.h).
// Code outside the table asks a row's properties, never which type a
// request is.
#pragma once

#include <cstddef>
#include <string>

#include "common/protocol.h"
#include "master/coll/collective.h"
#include "master/coll/inter_node_steps.h"

namespace bdmpi {

class Collectives;
class Master;
struct Collective;
struct MasterComm;
struct Slave;

// Whether a request can leave its slave waiting, and in which state (the
// reply is what lets the slave run again).
enum class Blocks {
  kNever,     // answered at once, or never answered (no reply)
  kRunnable,  // may yield: runnable behind the others, answered when it runs
  kRBlocked,  // may wait for a point-to-point message
  kCBlocked,  // may wait in a collective
  kCritical,  // may wait for the critical section (cblocked too)
};

// The slave state of a request that waits (kRBlocked or kCBlocked).
constexpr bool BlocksInState(Blocks blocks, bool rblocked) {
  return rblocked ? blocks == Blocks::kRBlocked
                  : blocks == Blocks::kCBlocked || blocks == Blocks::kCritical;
}

// Whether the sender waits for the master's reply (RequestMsg::wants_reply).
enum class Replies {
  kNo,       // posted: never answered
  kIfAsked,  // answered when it wants a reply: a window payload's
             // acknowledgement, MPI_Recv's post and wait, a collective's
             // member that waits for its result
  kYes,      // a call: always answered (at once, or when the slave may run)
};

// What the master checks of a request's communicator fields before
// serving it (request_check.cpp).
enum class CommCheck {
  kNone,
  kOwnRank,         // `rank` is the sender's rank in `comm`
  kOwnRankAndPeer,  // and `peer` (destination, root) is a rank of `comm`
  kLiveMember,      // `comm` is a live communicator the sender is in
};

// Which members of a collective wait for its result (the others only
// contribute and are answered at once).
enum class ResultFor { kEveryone, kNonRoot, kRoot };

struct MessageRow {
  MsgType type;
  // The call users wrote, for diagnostics ("MPI_Bcast"); nullptr: the
  // type's own name.
  const char* mpi_call = nullptr;
  Replies replies = Replies::kNo;
  Blocks blocks = Blocks::kNever;
  CommCheck comm_check = CommCheck::kNone;
  // Sent by the master's own threads (wake-ups), never by a slave.
  bool master_event = false;
  // Sent while the slave may not have read its last reply yet (it waits
  // for one), so the files and the lent block that reply named stay held.
  bool keeps_reply_files = false;
  // A send whose data does not pass through the master: a lent block
  // (Where::kLent, LentSend), or one written into a posted receive's buffer
  // (Send's window payloads by the master, PlaceOffer and Placed by the
  // sender). Both need a checked peer.
  bool may_lend = false;
  bool may_place = false;
  // The functions below are members of the master or of one of its
  // protocol families, bound to the master's instance by the table
  // (message_table.cpp). A handler gets the request and the payload that
  // followed it in the queue message (Where::kInline), when it reads one.

  // Serves the request; nullptr: ignored (not sent by slaves).
  void (*handle)(Master&, Slave&, const RequestMsg&, const std::byte* inline_payload) = nullptr;
  // Whether a slave blocked in this request may run again; nullptr: yes.
  bool (*ready)(const Master&, const Slave&, const RequestMsg&) = nullptr;
  // The reply that lets it run; nullptr: an empty reply of this type.
  ReplyMsg (*complete)(Master&, Slave&, const RequestMsg&) = nullptr;
  // What a rank blocked in it waits for, as the user wrote it ("MPI_Recv
  // (source 2, tag 7)"); nullptr: mpi_call alone.
  std::string (*describe)(const Master&, const Slave&, const RequestMsg&) = nullptr;

  // Collectives only: the functions are the collectives family's
  // (collectives.h).
  ResultFor result_for = ResultFor::kEveryone;
  // Every member names the same root (`peer`): checked, and part of the
  // inter-node step's signature.
  bool rooted = false;
  // Every member passes the same number of bytes: checked, and part of the
  // signature.
  bool same_size = false;
  // The state of this kind of collective (collective.h).
  void (*make_state)(CollectiveState&) = nullptr;
  // Deposits the member's part; nullptr: it has none (MPI_Barrier).
  void (Collectives::*contribute)(Collective&, Slave&, const RequestMsg&,
                                  const std::byte* inline_payload) = nullptr;
  // Whether this node's part is complete (its inter-node step may start).
  bool (*locally_complete)(const Collective&, const MasterComm&) = nullptr;
  // Fills in the inter-node step what this node gives it.
  void (Collectives::*prepare_step)(Collective&, CollectiveStep&) = nullptr;
  // The step among the masters when the communicator spans nodes.
  InterNodeStepStarter start_step = nullptr;
  // Builds the result once this node has it all; nullptr: nothing to build.
  void (Collectives::*finish)(Collective&) = nullptr;
  // The reply that hands a member its result; nullptr: an empty reply.
  ReplyMsg (Collectives::*hand_result)(Slave&, Collective&, const RequestMsg&) = nullptr;
};

// The row of `type`, or nullptr for a value that is no MsgType (a corrupt
// or foreign request).
const MessageRow* FindMessageRow(MsgType type);

// The MPI call a request stands for, for the messages users read.
const char* MpiCallName(MsgType type);

}  // namespace bdmpi
