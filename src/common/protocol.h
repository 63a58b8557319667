// The wire protocol between a slave (libbdmpi) and its master (bdmprun).
//
// A slave writes RequestMsg to its node's request queue (one POSIX mq shared
// by all slaves of the node) and, when the request wants a reply, blocks in
// mq_receive on its own go-queue until the master sends a ReplyMsg. The master
// answers a blocking request only when the slave may run again, so "waiting
// for the reply" and "being descheduled" are the same thing. Replies on a
// go-queue arrive in request order.
//
// Payloads up to kInlinePayloadMax travel inside the request message; up to
// the memory threshold through the slave's shared-memory window (the master
// acknowledges when it has copied them out); larger ones through spill files
// in the node's private spill directory, named by a 64-bit file id
// (SpillFileName). A queue message may carry several requests
// (RequestBatch), so that with -nr 1 a send and the receive after it cost
// one message. Data
// the master hands to a slave in a reply (window contents, a spill file)
// stays valid until that slave's next request: a slave is sequential, so its
// next request proves it has consumed the reply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bdmpi {

// Also covers the shared tables both halves map (common/storage_table.h).
inline constexpr std::uint16_t kProtocolVersion = 22;

// The message types, numbered by family: 0x01 life cycle, 0x02
// point-to-point, 0x03 collectives, 0x04 BDMPI extensions, 0x05
// communicators, 0x06 memory. BDMPI_MSG_TYPES(X) lists each once, as
// X(Name, value); the enum, kAllMsgTypes and MsgTypeName are made from it,
// and the master's message table (src/master/message_table.cpp) is checked
// at compile time to have a row for each. What each one means:
//
// Life cycle.
//   Init:     slave -> master, reply when the slave is first scheduled.
//   Finalize: reply at once; the slave leaves co-operative scheduling.
//   Abort:    no reply; the master ends the job with `code`.
//   Event:    not from a slave: the master's watcher thread reports a
//             slave's exit (peer = its index) or a signal (code = signo),
//             or its network thread has news (peer = -2), or the
//             watcher of resumed ranks' memory (peer = -3).
//
// Point-to-point. A send is one of four protocols, each its own row, so
// that no field carries another step's meaning: Send (standard), SyncSend
// (wants its match notice), LentSend (a collective's block) and the two
// steps of a placed message (PlaceOffer, Placed). Which one a send takes
// is the slave's choice (src/slave/p2p/send_path.h).
//   Send:     a standard send: payload inline, in the window (wants_reply:
//             the reply says the window is free again) or in a file
//             written by the sender (no reply). Buffered: never blocks.
//             id != 0 names the send (from the sender's receive ids) for
//             CancelSend. A window payload whose receive is posted on this
//             node the master writes straight into the receive buffer.
//   SyncSend: as Send, but the sender wants to know when it is matched
//             (MPI_Ssend, MPI_Issend; a buffered send, which frees its
//             room in the attached buffer then): `id` (required) completes,
//             as a receive would, when a receive or a matched probe on the
//             destination takes the message; the sender waits for it with
//             WaitRecv/WaitAny/... like for a receive, or with WaitSsend.
//   LentSend: a collective's block that stays in the sender's memory
//             (Where::kLent; LentSendArgs: its address, size and the id):
//             `id` completes when the receiver has let go of the block
//             (its next request after the reply that named it) or the
//             master has copied it; the sender waits for it like for a
//             receive and must not touch the block until then.
//   PlaceOffer: a standard send larger than the window (wants_reply, no
//             payload, `bytes` its size): "is a receive for this posted?"
//             The reply (PlaceGrant) grants it, reserving that receive for
//             this message, or refuses (retry_later when no receive is
//             posted yet or the receiver is switched out): the sender then
//             sends the message as a Send. A granted sender writes the
//             data with process_vm_writev and sends Placed.
//   Placed:   no reply; the granted sender's report (PlacedArgs): 0, or
//             the errno of a failed write: the reservation is undone and
//             the message follows as a Send.
//   PostRecv: no reply; registers receive `id` (MPI_Irecv/MPI_Recv), which
//             the master matches against queued messages in MPI order.
//             PostRecvArgs::address: the receive buffer's address when a
//             sender may write the data straight into it (a dense type,
//             larger than an inline payload), else 0.
//             code = 1 + its slot in the direct table when the slave
//             published it there (direct messages, common/direct_table.h),
//             else 0. A Send with `counted` was counted by its sender in
//             the direct table's pending count for its destination, which
//             the master decrements when the message is matched or withdrawn.
//   WaitRecv: reply when receive `id` has its message (blocks: rblocked);
//             the reply carries status and the data (window or file).
//   TestRecv: reply at once, flag = 1 with the data if matched.
//   Probe:    reply when a matching unreceived message exists (blocks).
//   Iprobe:   reply at once, flag = 1 with the status if one exists.
//   WaitAny:  payload = receive ids (uint64 each, in the window/inline/
//             file like any payload). Reply when one of them has its
//             message (blocks: rblocked), with that receive's status and
//             data as for WaitRecv; flag = 1 + its position in the list
//             (the first complete one). MPI_Waitany, MPI_Waitsome.
//   TestAny:  as WaitAny, but reply at once; flag = 0 when none is
//             complete (after letting other slaves run first, as
//             TestRecv does). MPI_Testany, MPI_Testsome.
//   PollAny:  as TestAny, never yields: collects the further completed
//             receives of MPI_Waitsome / MPI_Testsome.
//   TestAll:  payload = receive ids; reply at once, flag = 1 when every
//             one is complete (no data: the slave then collects each
//             with WaitRecv), else 0 after letting others run first.
//   FreeRecv: no reply; receive `id` was freed (MPI_Request_free). It
//             stays posted, so that it still takes its message in MPI
//             order, and that message is discarded. For a synchronous
//             send's id: nothing waits for its match any more.
//   Cancel:   reply at once: flag = 1 when receive `id` was still
//             unmatched; it is withdrawn. Else 0: it completes as usual.
//             MPI_Cancel of a receive.
//   CancelSend: as Cancel, for the message of send `id` to rank `peer` of
//             `comm` while it is unmatched on this node. MPI_Cancel of a
//             send.
//   Mprobe:   as Probe, but the message found leaves matching: it becomes
//             completed receive `id` (no other receive can take it), whose
//             data Mrecv collects. Blocks. MPI_Mprobe.
//   Improbe:  as Mprobe, reply at once (flag = 0: none; after letting
//             others run first). MPI_Improbe.
//   WaitSsend: as WaitRecv for synchronous send `id`: MPI_Ssend, which
//             is described as such in a deadlock report.
//   Mrecv:    reply at once with matched message `id`'s status and data
//             as for WaitRecv; bytes = the receive's capacity. MPI_Mrecv,
//             MPI_Imrecv.
//   CopyLent: the reply before this one handed out a lent block (Where::
//             kLent, LentReplyArgs) that this slave may not read (process_vm_readv
//             refused): reply at once with the same data in a file of
//             the master's, as WaitRecv's reply would carry it. From then
//             on the master copies every lent block when it arrives.
//   DirectDone: no reply; this slave wrote a message straight into
//             receive `id` of the node's slave `peer` (by index), which
//             had told the master of it (kDoneTold in the direct table):
//             the master completes that receive from the slot's status.
//   DirectTaken: no reply; a sender wrote this slave's receive `id`
//             straight into its buffer while the slave polled for it
//             (kDonePolled in the direct table): the master, which had
//             been told of it, forgets it.
//
// Collectives, two phases as in the paper: every member deposits its part
// with its master; the master replies when the operation's result for this
// member is ready (cblocked until then). A member that only contributes
// (bcast root, reduce non-root) is answered at once.
//   Barrier:   reply when all members have arrived.
//   Bcast:     root's data in window/file; others get it in the reply.
//   Reduce:    contribution in window/file; root gets the result.
//   Allreduce: contribution in window/file; everyone gets the result.
//
// BDMPI extensions.
//   EnterCritical: reply when fewer than -nc slaves of the node are
//                  inside (blocks; the slave gives up its running slot).
//   ExitCritical:  no reply; lets the next waiting slave in.
//
// Communicators.
//   CommSplit: a collective on communicator `comm` (two phases like the
//              others): color and key (CommSplitArgs; kUndefinedColor for
//              MPI_UNDEFINED). Every member is answered when
//              the new communicators exist: flag = 1 with comm = the new
//              communicator's id, source = the member's rank in it, tag =
//              its size and the payload = its members' world ranks (int32
//              each, by rank); flag = 0 for MPI_UNDEFINED. MPI_Comm_dup,
//              MPI_Comm_create and MPI_Comm_split_type are splits too.
//              Across nodes the masters of `comm` allgather their members'
//              SplitEntry records and each builds the result alike.
//              With `id` (a receive id; posted, no reply: MPI_Comm_idup)
//              the member does not wait: the outcome completes receive
//              `id` instead (status source = rank, tag = size; payload =
//              the new id, then the members' world ranks).
//   CommFree:  no reply; the slave has freed communicator `comm`.
// A communicator that no split made (MPI_Comm_create_group,
// intercommunicators), whose members agree on it among themselves by
// point-to-point messages (src/slave/comm/comm_register.cpp), registers in
// three steps, each its own row and answered at once:
//   CommNewId: answers comm = a fresh id led by the sender.
//   CommChannel: answers tag = this node's channel for communicator `comm`
//              (the same for all its local members).
//   CommMembers: carries the members of communicator `comm` as uint64
//              (world rank << 32 | its node's channel) by rank and adds the
//              communicator, if this master does not have it yet.
//
// Memory (storage-backed allocations, src/slave/memory).
//   Release:  master -> slave only, a reply-queue message that is not a
//             reply: sent to a slave that waits for a reply (blocked or
//             runnable) when the node's memory budget needs its memory.
//             The slave writes back its dirty storage-backed pages, drops
//             them and answers with Released, then keeps waiting for its
//             reply; bytes = how often to report progress (below). At most
//             one is outstanding per slave. Where = kFile (ReleaseArgs):
//             the spill file named holds `count` pairs of uint64 (address,
//             bytes): blocks this slave lent that the master has just
//             copied and keeps until RestoreLent; their pages wholly inside
//             need not be written back.
//   Released: slave -> master, no reply; bytes = bytes written back.
//   ReleaseProgress: slave -> master, no reply, between Release and
//             Released: bytes = storage-backed bytes written back and
//             dropped so far (the slave drops its data piece by piece as it
//             is written, src/slave/memory/arena.h). The master counts only
//             the rest as resident, so the rank waiting for the room may
//             start while the write-back goes on.
//   ReadAhead: master -> slave only, like Release (--prefetch ahead): sent
//             to a released slave that the scheduler will resume next, once
//             the node's budget has room for its data (counted as resident
//             from then on). The slave reads back what it held at its last
//             switch-out, then keeps waiting for its reply. No answer.
//   RestoreLent: slave -> master, once per block of a Release's list, when
//             the slave runs again, before its program does
//             (RestoreLentArgs): the block's address, the bytes it did not
//             write back, and whether it maps the copy; reply at once naming
//             the master's copy (kMemoryFile or kFile, as WaitRecv's reply
//             would carry it, its `lead` making the block's pages start at
//             page offsets of the file). Without `map` the slave reads back
//             the pages it did not write and the master lets the copy go;
//             with it the slave maps the copy over them (private: touched
//             pages fault in from it, written ones become its own) and the
//             master keeps the copy, in that file, until LentSettled.
//   LentSettled: slave -> master, no reply, for each block RestoreLent
//             mapped, once nothing maps the copy any more (the program freed
//             the block, or a realloc or the next switch-out read it into
//             the slave's own pages), before the slave's next request:
//             file_id = the block's address, bytes = the bytes read from the
//             copy to settle it. The master lets the copy go. Sent while
//             the slave may wait for a reply (before Released): keeps the
//             reply's files.
//   PayloadRead: slave -> master, right after the slave copied a large
//             payload (kMemoryFile; Runtime::FetchPayload says how large)
//             out of the file its last reply named: the master lets go of that reply's
//             files now rather than at the slave's next request, however
//             long the slave computes before it (a sender's payload segment
//             is free again, or goes with a sender that has exited). No
//             answer; its whole effect is that of any request that does not
//             keep its reply's files.
//
// Dynamic processes (src/master/launch/spawn_ranks.cpp,
// src/slave/comm/dynamic.cpp).
//   Spawn:    slave -> master, the root of MPI_Comm_spawn(_multiple); the
//             payload lists the commands (SpawnPlan); peer = the root's
//             job rank. The master
//             starts the ranks on its node's reserved slots and replies
//             with tag = the first job rank, source = how many, or error =
//             MPI_ERR_SPAWN (nothing started).
//   PublishName, LookupName, UnpublishName: slave -> master, the service
//             name as payload, for Publish and Unpublish followed by a NUL
//             and the port (any string); Lookup's reply carries the port
//             as its payload (bytes = its length); error = MPI_ERR_NAME
//             when unknown or taken. Node 0's master keeps the job's names.
#define BDMPI_MSG_TYPES(X) \
  X(Init, 0x0101)          \
  X(Finalize, 0x0102)      \
  X(Abort, 0x0103)         \
  X(Event, 0x0104)         \
  X(Send, 0x0201)          \
  X(PostRecv, 0x0202)      \
  X(WaitRecv, 0x0203)      \
  X(TestRecv, 0x0204)      \
  X(Probe, 0x0205)         \
  X(Iprobe, 0x0206)        \
  X(WaitAny, 0x0207)       \
  X(TestAny, 0x0208)       \
  X(PollAny, 0x0209)       \
  X(TestAll, 0x020a)       \
  X(FreeRecv, 0x020b)      \
  X(Cancel, 0x020c)        \
  X(Mprobe, 0x020d)        \
  X(Improbe, 0x020e)       \
  X(Mrecv, 0x020f)         \
  X(WaitSsend, 0x0210)     \
  X(CopyLent, 0x0211)      \
  X(SyncSend, 0x0212)      \
  X(LentSend, 0x0213)      \
  X(PlaceOffer, 0x0214)    \
  X(Placed, 0x0215)        \
  X(CancelSend, 0x0216)    \
  X(DirectDone, 0x0217)    \
  X(DirectTaken, 0x0218)   \
  X(Barrier, 0x0301)       \
  X(Bcast, 0x0302)         \
  X(Reduce, 0x0303)        \
  X(Allreduce, 0x0304)     \
  X(EnterCritical, 0x0401) \
  X(ExitCritical, 0x0402)  \
  X(CommSplit, 0x0501)     \
  X(CommFree, 0x0502)      \
  X(CommNewId, 0x0503)     \
  X(CommChannel, 0x0504)   \
  X(CommMembers, 0x0505)   \
  X(Release, 0x0601)       \
  X(Released, 0x0602)      \
  X(ReadAhead, 0x0603)     \
  X(ReleaseProgress, 0x0604) \
  X(RestoreLent, 0x0605)   \
  X(PayloadRead, 0x0606)   \
  X(LentSettled, 0x0607)   \
  X(Spawn, 0x0701)         \
  X(PublishName, 0x0702)   \
  X(LookupName, 0x0703)    \
  X(UnpublishName, 0x0704) \
  X(RmaWaitIn, 0x0801)     \
  /* end of BDMPI_MSG_TYPES */

enum class MsgType : std::uint16_t {
#define BDMPI_MSG_ENUMERATOR(name, value) k##name = value,
  BDMPI_MSG_TYPES(BDMPI_MSG_ENUMERATOR)
#undef BDMPI_MSG_ENUMERATOR
};

inline constexpr MsgType kAllMsgTypes[] = {
#define BDMPI_MSG_LISTED(name, value) MsgType::k##name,
    BDMPI_MSG_TYPES(BDMPI_MSG_LISTED)
#undef BDMPI_MSG_LISTED
};

// The family of a type: its value's high byte.
constexpr int MsgFamily(MsgType type) { return static_cast<int>(type) >> 8; }

// A point-to-point request (the 0x02 family above): a receive, a wait, a
// probe, a send.
constexpr bool IsPointToPoint(MsgType type) { return MsgFamily(type) == 0x02; }

const char* MsgTypeName(MsgType type);

// Where the payload of a request or reply is. Inline payloads follow the
// request in the same queue message (no window acknowledgement needed).
// kMemoryFile: a file of the node's memory directory (tmpfs, named by
// file_id like a spill file), for payloads larger than the window while
// the node's memory budget has room.
// kLent: a block of a collective built from point-to-point messages that
// stays in the sender's memory (docs/data-path.md, "Lent blocks"): a
// LentSend names it (LentSendArgs), and so does the reply that hands it to
// its receiver (LentReplyArgs), which reads it with one process_vm_readv.
// kPlaceGrant: only in the reply to PlaceOffer (PlaceGrant).
// kPlaced: a receive's reply whose data the sender wrote in place
// (docs/data-path.md, "Placed messages").
enum class Where : std::uint8_t {
  kNone = 0, kWindow = 1, kFile = 2, kInline = 3, kMemoryFile = 4, kLent = 5, kPlaceGrant = 6,
  kPlaced = 7
};

struct RequestMsg {
  std::uint16_t version = kProtocolVersion;
  MsgType type = MsgType::kInit;
  std::int32_t slave = -1;     // sender's slave index on its node
  std::int32_t comm = 0;       // communicator id
  std::int32_t rank = 0;       // sender's rank in comm
  std::int32_t peer = 0;       // dest / source / root, as a rank of comm
  std::int32_t tag = 0;
  std::uint16_t datatype = 0;  // DatatypeId (reductions)
  std::uint16_t op = 0;        // OpId (reductions)
  Where where = Where::kNone;
  bool wants_reply = false;
  // A Send counted in the direct table's pending counts (PostRecv above).
  std::uint8_t counted = 0;
  // Of a request that wants a reply: 1 when the rank sent a message (by
  // any path, direct ones included) since its previous such request. A
  // test that finds nothing right after sends may keep the rank's turn
  // (master/sched/sending_turn.cpp).
  std::uint8_t sent = 0;
  std::int32_t code = 0;       // MPI_Abort's error code
  // The sender's secret (BDMPI_SLAVE_TOKEN, given at spawn; the master's
  // own for events): all slaves of a node share one request queue, so the
  // master identifies the sender by this, never by `slave` alone. It fills
  // padding: the message stays 64 bytes.
  std::uint32_t token = 0;
  std::uint64_t bytes = 0;     // payload size, or a receive's capacity
  std::uint64_t id = 0;        // receive id
  std::uint64_t file_id = 0;   // spill file holding the payload
};
// A few rows keep their own data in fields named for another: read and
// write those only through the views below (the master's message table
// says which row has which, src/master/message_table.cpp).

struct ReplyMsg {
  std::uint16_t version = kProtocolVersion;
  MsgType type = MsgType::kInit;  // the request this answers
  std::int32_t error = 0;         // MPI error class, 0 on success
  std::int32_t source = 0;        // status of a received/probed message
  std::int32_t tag = 0;
  std::int32_t flag = 0;          // Test / Iprobe: 1 when done
  Where where = Where::kNone;
  // kFile, kMemoryFile: bytes of the file before the payload (below
  // kLentCopyPage; RestoreLent).
  std::uint16_t lead = 0;
  std::int32_t comm = 0;          // CommSplit: the new communicator
  std::uint64_t bytes = 0;        // full size of the message or result
  std::uint64_t file_id = 0;
  // The spill file's inode: the slave checks that it opens that very file
  // (common/spill_dir.h), so a replaced file cannot feed it wrong bytes.
  std::uint64_t file_ino = 0;
};

// The views of the requests and replies whose own data sits in fields
// named for another: each converts from and into the message, so that no
// code reads such a field under another meaning.
//
// LentSend's request: the block, and the receive id that completes when
// it goes back.
struct LentSendArgs {
  std::uint64_t address = 0;  // in the sender's memory
  std::uint64_t bytes = 0;
  std::uint64_t id = 0;
  static LentSendArgs Of(const RequestMsg& request) {
    return {request.file_id, request.bytes, request.id};
  }
  void Into(RequestMsg& request) const {
    request.where = Where::kLent;
    request.file_id = address;
    request.bytes = bytes;
    request.id = id;
  }
};
// A receive's reply that names a lent block (Where::kLent).
struct LentReplyArgs {
  std::uint64_t address = 0;  // in the lender's memory
  std::uint64_t lender_pid = 0;
  static LentReplyArgs Of(const ReplyMsg& reply) { return {reply.file_id, reply.file_ino}; }
  void Into(ReplyMsg& reply) const {
    reply.where = Where::kLent;
    reply.file_id = address;
    reply.file_ino = lender_pid;
  }
};
// RestoreLent's request.
struct RestoreLentArgs {
  std::uint64_t address = 0;  // the block's, in the slave's memory
  std::uint64_t skipped = 0;  // bytes of its pages not written back
  bool map = false;           // the slave maps the copy (kept until LentSettled)
  static RestoreLentArgs Of(const RequestMsg& request) {
    return {request.file_id, request.bytes, request.id != 0};
  }
  void Into(RequestMsg& request) const {
    request.file_id = address;
    request.bytes = skipped;
    request.id = map ? 1 : 0;
  }
};
// Owed copies of lent blocks start in their file at the block's offset in
// a page of this size (ReplyMsg::lead), so that the sender can map them.
inline constexpr std::uint64_t kLentCopyPage = 4096;
// Release: how often to report progress, and the list of the blocks the
// master copied (a spill file of `count` (address, bytes) pairs) if any.
struct ReleaseArgs {
  std::uint64_t step = 0;
  std::uint64_t list_file_id = 0;
  std::uint64_t list_inode = 0;
  std::int32_t count = 0;
  static ReleaseArgs Of(const ReplyMsg& reply) {
    if (reply.where != Where::kFile) return {reply.bytes, 0, 0, 0};
    return {reply.bytes, reply.file_id, reply.file_ino, reply.flag};
  }
  void Into(ReplyMsg& reply) const {
    reply.bytes = step;
    if (count == 0) return;
    reply.where = Where::kFile;
    reply.file_id = list_file_id;
    reply.file_ino = list_inode;
    reply.flag = count;
  }
};
// CommSplit's reply (and the status of MPI_Comm_idup's completion): the
// caller's rank in the new communicator and its size; flag 0 when the
// caller's color was MPI_UNDEFINED.
struct CommSplitReply {
  bool made = false;
  std::int32_t id = 0;  // the new communicator (the blocking reply only)
  std::int32_t rank = 0;
  std::int32_t size = 0;
  static CommSplitReply Of(const ReplyMsg& reply) {
    return {reply.flag != 0, reply.comm, reply.source, reply.tag};
  }
  void Into(ReplyMsg& reply) const {
    reply.flag = made ? 1 : 0;
    reply.comm = id;
    reply.source = rank;
    reply.tag = size;
  }
};
// Send's and PostRecv's request: the partitioned request's ordinal among
// its side's partitioned inits of one envelope (src/slave/p2p/partitioned.cpp),
// 0 for every other message. A message matches only a receive of its
// ordinal, which is how MPI pairs partitioned sends and receives in the
// order of their init calls. It lives in the reductions' fields, which
// point-to-point leaves unused.
struct MatchOrdinal {
  std::uint32_t ordinal = 0;
  static MatchOrdinal Of(const RequestMsg& request) {
    return {static_cast<std::uint32_t>(request.datatype) |
            (static_cast<std::uint32_t>(request.op) << 16)};
  }
  void Into(RequestMsg& request) const {
    request.datatype = static_cast<std::uint16_t>(ordinal & 0xffffu);
    request.op = static_cast<std::uint16_t>(ordinal >> 16);
  }
};
// PostRecv's request: the buffer a sender may write into.
struct PostRecvArgs {
  std::uint64_t address = 0;  // 0: none
  static PostRecvArgs Of(const RequestMsg& request) { return {request.file_id}; }
  void Into(RequestMsg& request) const { request.file_id = address; }
};
// PlaceOffer's reply: granted (the receive's buffer and its process), or
// refused, and then whether to ask this receiver less often.
struct PlaceGrant {
  bool granted = false;
  bool retry_later = false;     // refused: no receive posted, or switched out
  std::uint64_t address = 0;    // granted: the receive buffer
  std::uint64_t receiver_pid = 0;
  static PlaceGrant Of(const ReplyMsg& reply) {
    return {reply.where == Where::kPlaceGrant, reply.flag == 1, reply.file_id, reply.file_ino};
  }
  void Into(ReplyMsg& reply) const {
    reply.where = granted ? Where::kPlaceGrant : Where::kNone;
    reply.flag = retry_later ? 1 : 0;
    reply.file_id = address;
    reply.file_ino = receiver_pid;
  }
};
// Placed's request: how the write went.
struct PlacedArgs {
  std::int32_t error = 0;  // 0, or the errno of the failed write
  static PlacedArgs Of(const RequestMsg& request) { return {request.code}; }
  void Into(RequestMsg& request) const { request.code = error; }
};

// RmaWaitIn's request: the one-sided call (rma::RmaWait,
// common/rma_node_file.h) in which the slave waits on the window's
// communicator `comm` from now on, the window rank it waits for (-1: the
// others) and what else names the call (a lock's type, an operation's
// kind).
struct RmaWaitArgs {
  std::int32_t comm = 0;
  std::int32_t wait = 0;
  std::int32_t rank = -1;
  std::int32_t detail = 0;
  static RmaWaitArgs Of(const RequestMsg& request) {
    return {request.comm, request.tag, request.peer, request.code};
  }
  void Into(RequestMsg& request) const {
    request.comm = comm;
    request.tag = wait;
    request.peer = rank;
    request.code = detail;
  }
  bool operator==(const RmaWaitArgs&) const = default;
};

// Sized so that the request queue (at most msg_max = 10 messages for
// ordinary users) and a go-queue per slave stay far below the default
// per-user POSIX mq budget (819200 bytes, `ulimit -q`).
inline constexpr long kRequestMsgSize = 1024;
inline constexpr long kReplyMsgSize = 56;
inline constexpr std::size_t kInlinePayloadMax = kRequestMsgSize - 64;
// Queue depths: the request queue's is capped at msg_max; a go-queue ever
// holds a reply and at most one deferred acknowledgement.
inline constexpr long kRequestQueueMessages = 64;
inline constexpr long kGoQueueMessages = 4;

static_assert(std::is_trivially_copyable_v<RequestMsg>);
static_assert(std::is_trivially_copyable_v<ReplyMsg>);
static_assert(sizeof(RequestMsg) <= 64);
static_assert(sizeof(ReplyMsg) <= kReplyMsgSize);

// Communicator ids are unique across the job: MPI_COMM_WORLD is 0 and every
// other communicator is named by its leader (the member with the lowest
// world rank) and the leader's count of communicator creations it has taken
// part in, which no other communicator shares. Count 0 is the leader's
// MPI_COMM_SELF. Returns -1 when the id does not fit in 31 bits.
constexpr std::int32_t CommId(int leader_world_rank, std::uint64_t creation,
                              int world_size) {
  std::uint64_t id = 1 + static_cast<std::uint64_t>(leader_world_rank) +
                     creation * static_cast<std::uint64_t>(world_size);
  return id > 0x7fffffffu ? -1 : static_cast<std::int32_t>(id);
}
inline constexpr std::int32_t kWorldCommId = 0;
// The predefined BDMPI communicators take creations 1 and 2 of their
// leaders, so every rank's own count of creations starts at 3:
// BDMPI_COMM_CWORLD is led by world rank 0, a node's BDMPI_COMM_NODE by
// the node's first rank.
inline constexpr std::uint32_t kCworldCreation = 1;
inline constexpr std::uint32_t kNodeCommCreation = 2;
// Job rank 0's creation 3 is the hidden communicator of every job rank,
// spawned ones included (the peer through which parents and children,
// ports and MPI_Comm_join make intercommunicators); creation 4 of the
// first rank of a spawn is the spawned ranks' MPI_COMM_WORLD. Ids are
// made with the universe size (common/rank_layout.h) in place of the
// world size, so that spawned ranks' ids are unique too.
inline constexpr std::uint32_t kUniverseCreation = 3;
inline constexpr std::uint32_t kSpawnWorldCreation = 4;
inline constexpr std::uint32_t kFirstCommCreation = 5;
constexpr std::int32_t UniverseCommId(int universe_size) {
  return CommId(0, kUniverseCreation, universe_size);
}
constexpr std::int32_t CworldCommId(int world_size) {
  return CommId(0, kCworldCreation, world_size);
}
constexpr std::int32_t NodeCommId(int node_first_world_rank, int world_size) {
  return CommId(node_first_world_rank, kNodeCommCreation, world_size);
}
// Every communicator has a hidden twin for the collectives the slaves build
// from point-to-point messages (src/slave/coll/coll_p2p.h): its id with the sign
// bit set. The master treats the twin as the same communicator (same
// members, same nodes) but matches its messages apart, so collective
// traffic never meets user messages, not even MPI_ANY_SOURCE/MPI_ANY_TAG.
inline constexpr std::uint32_t kCollectiveCommBit = 0x80000000u;
constexpr std::int32_t CollectiveCommId(std::int32_t id) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(id) | kCollectiveCommBit);
}
constexpr std::int32_t UserCommId(std::int32_t id) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(id) & ~kCollectiveCommBit);
}
inline constexpr std::int32_t kUndefinedColor = -1;

// CommSplit's request: the member's color (kUndefinedColor for
// MPI_UNDEFINED) and key.
struct CommSplitArgs {
  std::int32_t color = kUndefinedColor;
  std::int32_t key = 0;
  static CommSplitArgs Of(const RequestMsg& request) { return {request.tag, request.code}; }
  void Into(RequestMsg& request) const {
    request.tag = color;
    request.code = key;
  }
};

// What each member of a CommSplit contributes; the masters of the parent
// allgather these (parent ranks in node order) when it spans nodes.
struct SplitEntry {
  std::int32_t color = kUndefinedColor;
  std::int32_t key = 0;
  std::int32_t rank = 0;        // in the parent
  std::int32_t world_rank = 0;
  std::int32_t channel = -1;    // its master's tag channel for this color
  std::uint32_t creation = 0;   // the member's creation count (CommId)
};
static_assert(std::is_trivially_copyable_v<SplitEntry>);

// One request queue message carries one or more records, each a RequestMsg
// followed by its inline payload and padded to 8 bytes. A slave that may
// defer its posts (with -nr 1 nobody else runs until it blocks) sends a
// send and the receive that follows it in one message.
class RequestBatch {
 public:
  static std::size_t RecordSize(const RequestMsg& request) {
    std::size_t payload = request.where == Where::kInline ? request.bytes : 0;
    return (sizeof(RequestMsg) + payload + 7) / 8 * 8;
  }
  bool Fits(const RequestMsg& request) const {
    return size_ + RecordSize(request) <= sizeof bytes_;
  }
  // Requires Fits(request); copies `inline_payload` (request.bytes bytes)
  // when the request is kInline.
  void Append(const RequestMsg& request, const void* inline_payload);
  const std::byte* data() const { return bytes_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void Clear() { size_ = 0; }

 private:
  alignas(8) std::byte bytes_[kRequestMsgSize];
  std::size_t size_ = 0;
};

// Calls handle(const RequestMsg&, const std::byte* inline_payload) for each
// record of a received message; false if the message is malformed.
template <class Handler>
bool ForEachRequest(const std::byte* message, std::size_t size, Handler&& handle) {
  std::size_t offset = 0;
  while (offset + sizeof(RequestMsg) <= size) {
    RequestMsg request;
    __builtin_memcpy(&request, message + offset, sizeof request);
    std::size_t record = RequestBatch::RecordSize(request);
    if (offset + record > size) return false;
    handle(request, message + offset + sizeof(RequestMsg));
    offset += record;
  }
  return offset == size;
}

// Spill file ids: the high 24 bits name the creator (slave index, or
// kMasterFileOwner), the low 40 bits count that creator's files.
inline constexpr std::uint64_t kMasterFileOwner = 0xffffff;
constexpr std::uint64_t MakeFileId(std::uint64_t owner, std::uint64_t seq) {
  return (owner << 40) | (seq & ((std::uint64_t{1} << 40) - 1));
}
// The creator named by a file id: a slave may hand the master only its own.
constexpr std::uint64_t FileIdOwner(std::uint64_t file_id) { return file_id >> 40; }

}  // namespace bdmpi
