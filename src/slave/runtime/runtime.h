// The slave's connection to its master: identity, queues, window, and the
// three ways of talking to the master (post, post with deferred ack, call).
// One per process, created by MPI_Init. Nothing here locks: at
// MPI_THREAD_MULTIPLE the caller holds the rank's lock (threads.h), and
// a wait that other threads' calls must be able to end polls (CallPolled).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/message_queue.h"
#include "common/protocol.h"
#include "common/rank_layout.h"
#include "common/shared_memory.h"
#include "common/spill_dir.h"
#include "slave/memory/arena.h"
#include "slave/p2p/payload_segments.h"
#include "slave/p2p/send_path.h"

namespace bdmpi {

class Runtime {
 public:
  // The runtime, or nullptr outside MPI_Init ... MPI_Finalize.
  static Runtime* Instance();
  // Connects to the master named by the environment and waits until it
  // schedules this slave. Throws if not started by bdmprun. After a Stop,
  // takes up the connection Stop kept: the master takes the rank back.
  static void Start();
  // Tells the master that the rank has finalized (it runs unscheduled from
  // then on) and puts the connection aside for a later Start: MPI lets a
  // process start a session after its last one was finalized.
  static void Stop();
  // Whether a Stop put a connection aside.
  static bool WasStopped();

  // The rank's job rank (its MPI_COMM_WORLD rank unless it was spawned)
  // and the job's size at start (common/rank_layout.h).
  int world_rank() const { return world_rank_; }
  int world_size() const { return world_size_; }
  // MPI_UNIVERSE_SIZE: the multiplier of communicator ids (CommId).
  int universe_size() const { return universe_size_; }
  // Of a rank MPI_Comm_spawn started (BDMPI_SPAWN), else nullopt.
  struct Spawned {
    std::vector<int> world;  // its MPI_COMM_WORLD's job ranks, by rank
    int parent_leader = 0;  // job rank of the spawning call's root
    int tag = 0;            // of the intercommunicator to the parents
    int appnum = 0;         // MPI_APPNUM
  };
  const std::optional<Spawned>& spawned() const { return spawned_; }
  int node() const { return node_; }
  // Slaves on this node.
  int node_size() const { return node_size_; }
  // Where every rank of the job runs.
  RankLayout layout() const { return RankLayout(world_size_, nnodes_, universe_size_); }
  int nnodes() const { return nnodes_; }
  // This node's spill directory, where the master also finds the files a
  // rank made elsewhere (SpillDir::RecordJobFile) to remove them at the end.
  const SpillDir& spill_dir() const { return spill_dir_; }

  // A request that wants no reply.
  void Post(RequestMsg request);
  // A request that wants no reply and may wait in the batch until the next
  // request that is sent: news the master needs before this rank's next
  // question, not at once.
  void Note(RequestMsg request);
  // While one lives, posts wait in the batch as notes do: the messages of
  // MPI_Isend and its kin, many of which then share one queue message. The
  // batch goes out with the next request that wants a reply, when it is
  // full, and at every test or wait (SendBatch).
  class BatchedPosts {
   public:
    explicit BatchedPosts(Runtime& runtime) : runtime_(runtime), was_(runtime.batching_) {
      runtime.batching_ = true;
    }
    ~BatchedPosts() { runtime_.batching_ = was_; }
    BatchedPosts(const BatchedPosts&) = delete;
    BatchedPosts& operator=(const BatchedPosts&) = delete;

   private:
    Runtime& runtime_;
    bool was_;
  };
  // Sends what waits in the batch: a test or wait may be waiting for what
  // another rank does with it.
  void SendBatch() { Flush(); }
  // A request whose payload was staged and that wants no result: posted
  // without waiting. When the payload is in the window, the master's
  // acknowledgement is collected only when the window is needed again.
  void PostStaged(RequestMsg request);
  // Whether a test of receives the master completes (MPI_Test*,
  // MPI_Request_get_status) would find nothing there, and so need not ask:
  // the master has completed no receive of this rank, no rank of the node
  // wants a running slot (which the test would give up), the master knows
  // every receive the rank posted but those that may stay untold
  // (DirectPath::DeferredMayStayUntold) and has every request it made, and the
  // rank holds nothing of a reply that only its next request gives back
  // (a payload, a lent block).
  bool TestFindsNothing() const;
  // A request and its reply; the slave is descheduled until it arrives.
  // At MPI_THREAD_MULTIPLE with other threads, a request that waits for
  // something elsewhere (a receive, a probe) polls instead (CallPolled).
  ReplyMsg Call(RequestMsg request);
  // Sends MPI_Abort's request and never returns.
  [[noreturn]] void Abort(int code);

  // Sends a message (a point-to-point send, a collective's block) to world
  // rank `dest_world_rank`: the one choice of its path (ChooseSendPath,
  // slave/p2p/send_path.h), then that path, asking again when a path turns
  // out closed (a refused placement, an unreadable block, no free
  // segment). `request` is the Send (SyncSend) as it would be posted,
  // without payload; the lent path makes it a LentSend, the placed one
  // sends a PlaceOffer and a Placed instead. Returns the path taken:
  // kPlaced: the data is in the receive buffer already; kLent: posted, and
  // the caller waits for request.id before it lets the block change; any
  // other: staged and posted (PostStaged).
  SendPath SendMessage(const void* data, std::uint64_t bytes, RequestMsg& request, SendKind kind,
                       int dest_world_rank);
  // Puts a payload that is no message (a collective's contribution,
  // receive ids) where the master will find it, on the path ChooseSendPath
  // names for it (inline, window, segment, spill); the caller then posts
  // with PostStaged or Call.
  void StagePayload(const void* data, std::uint64_t bytes, RequestMsg& request);
  // Copies min(reply.bytes, capacity) bytes of a reply's payload to `data`.
  void FetchPayload(const ReplyMsg& reply, void* data, std::uint64_t capacity);
  // Whether world rank `world_rank` runs on this node.
  bool OnThisNode(int world_rank) const {
    return nnodes_ == 1 || layout().NodeOf(world_rank) == node_;
  }
  // The address a receive of `capacity` bytes into `buffer` offers senders
  // and the master to write into (PostRecvArgs of its PostRecv), 0
  // for none: only dense buffers (`dense`) larger than an inline payload.
  std::uint64_t PlaceableAddress(void* buffer, std::uint64_t capacity, bool dense) const;

  std::uint64_t NewRecvId() { return ++recv_seq_; }
  // The node slave index of world rank `world_rank`, -1 on another node.
  int LocalSlave(int world_rank) const {
    // One node: its slaves are the world's ranks in order, then the
    // reserved ones (a layout made per message costs a stream of sends).
    if (nnodes_ == 1 && world_rank < world_size_) return world_rank;
    if (nnodes_ > 1 && layout().NodeOf(world_rank) != node_) return -1;
    return layout().SlotOf(world_rank);
  }
  // Direct messages (p2p/direct_path.h): queues the PostRecv of every
  // receive the master has not heard of yet (sent with the next request).
  void TellDeferredReceives();
  // Names to the master the lent blocks' copies no longer mapped
  // (memory/lent_copies.h).
  void TellSettledLentCopies();
  // LentSettled for the block at `address`: `read` bytes read from its copy.
  static RequestMsg LentSettledMsg(std::uint64_t address, std::uint64_t read);

 private:
  Runtime() = default;
  void Connect();
  // Decides placing_ and place_min_bytes_ (runtime_placed.cpp).
  void StartPlacing();
  void DrainAcks();
  ReplyMsg CallBlocking(RequestMsg request);
  // Asks `twin`, the non-blocking form of `request` (TestRecv for a
  // receive's wait, Iprobe for Probe, ...), until it finds what `request`
  // waits for, letting go of the rank's lock between two asks; returns
  // that reply as `request`'s.
  ReplyMsg CallPolled(RequestMsg request, MsgType twin);
  // The next reply; serves the master's notices (ServeNotice) on the way.
  ReplyMsg ReceiveReply();
  // Serves `message` if it is a notice of the master's, not a reply
  // (Release, ReadAhead): true when it was.
  bool ServeNotice(const ReplyMsg& message);
  // Release: writes back and drops the storage-backed memory, tells the
  // master, with progress reports every `bytes` bytes of the Release.
  void SwitchOut(const ReplyMsg& release);
  // SwitchOut's write-back and its Released, without the last drop of the
  // storage file's cache.
  void WriteBackAndTell(const ReplyMsg& release);
  // Before the program runs again after a switch-out: the pages of lent
  // blocks the write-back skipped, read from the master's copies.
  void RestoreCopiedBlocks();
  // ReadAhead: reads back what SwitchOut dropped (the master has counted
  // it against the node's budget), so that the next reply finds it
  // resident.
  void ReadAhead(const ReplyMsg& read_ahead);
  // Throws MPI_ERR_OTHER unless called from MPI_Init's thread when it
  // provided less than MPI_THREAD_SERIALIZED.
  void CheckCallingThread() const;
  // What ChooseSendPath needs of this rank's settings.
  SendSettings send_settings() const;
  // Takes a staged path (empty, inline, window, segment, spill); a segment
  // that none is free for asks the chooser again (a spill file).
  void Stage(const void* data, SendFacts facts, SendChoice choice, RequestMsg& request);
  // The placed path (runtime_placed.cpp, master/p2p/placed.cpp): asks the
  // master for the posted receive this send matches and writes the data
  // straight into its buffer. False when the master refused or the write
  // failed: the message is then sent another way, which the master
  // expects.
  bool Place(const void* data, std::uint64_t bytes, const RequestMsg& request, int dest);
  // The direct path: written into a receive node slave `dest_slave` has
  // published, without the master (slave/p2p/direct_path.h); false when
  // none took it.
  bool SendDirect(const void* data, std::uint64_t bytes, const RequestMsg& request,
                  int dest_slave);
  // The lent path: makes the request a LentSend naming the block and a
  // receive id that completes when the block comes back.
  void Lend(const void* data, std::uint64_t bytes, RequestMsg& request);
  // Reads a lent block from its sender, or, when this rank may not, asks
  // the master for a copy (MsgType::kCopyLent).
  void ReadLentBlock(const ReplyMsg& reply, void* data, std::uint64_t bytes);
  // FetchPayload's read of a file whose payload starts `reply.lead` bytes in.
  void ReadAfterLead(const SpillDir& dir, const ReplyMsg& reply, void* data, std::uint64_t bytes);
  // After a large payload's read: tells the master its file may go now
  // (PayloadRead), not at the next request.
  void LetGoOfLargePayload(const ReplyMsg& reply);
  // Adds a request to the batch (sending the batch first if it is full),
  // from MPI_Init's thread only.
  void Enqueue(RequestMsg request);
  // Whether `request` may go to the master while receives it does not know
  // stay so (DirectPath::DeferredMayStayUntold): a test of others, a
  // notice, a send to another rank, a receive on another communicator.
  bool LeavesReceivesUntold(const RequestMsg& request) const;
  // As Enqueue, from any thread (MPI_Abort).
  void Append(RequestMsg request);
  void Flush();

  int world_rank_ = 0;
  int world_size_ = 1;
  int universe_size_ = 1;
  std::optional<Spawned> spawned_;
  int node_ = 0;
  int node_size_ = 1;
  int nnodes_ = 1;
  int slave_ = 0;
  std::uint32_t token_ = 0;  // proves to the master that we are slave_
  SpillDir spill_dir_;
  SpillDir memory_dir_;  // empty path: none
  std::optional<PayloadSegments> segments_;  // with a memory directory
  SegmentReader segment_reader_;
  MessageQueue request_queue_;
  MessageQueue go_queue_;
  SharedMemory window_;
  RequestBatch batch_;                     // requests not sent yet
  const void* staged_inline_ = nullptr;    // StagePayload's inline data
  bool defer_posts_ = false;
  bool batching_ = false;  // a BatchedPosts lives
  bool telling_ = false;  // in TellDeferredReceives
  // In SendMessage, to a rank other than this one: its requests concern
  // no receive of this rank (LeavesReceivesUntold).
  bool sending_elsewhere_ = false;
  // A message went out since the last request that wanted a reply
  // (RequestMsg::sent).
  bool sent_since_call_ = false;
  // The last reply may have handed out something the master lets go of
  // at this rank's next request, and none went out since (TestFindsNothing).
  bool holding_ = false;
  // Placed messages: whether this rank writes into and offers receive
  // buffers (off by BDMPI_PLACED_MESSAGES=off, or once the kernel refused
  // a write), and from what size.
  bool placing_ = false;
  std::uint64_t place_min_bytes_ = 0;
  // Per destination world rank: large sends still to go without asking,
  // and how many the next refusal skips (runtime_placed.cpp).
  struct PlaceBackoff {
    std::uint32_t skip = 0;
    std::uint32_t next = 0;
  };
  std::unordered_map<int, PlaceBackoff> place_backoff_;
  bool lending_ = false;  // LendingAllowed(), decided at the start
  bool storage_released_ = false;  // switched out since the last reply
  // Switched in since the last blocking call: what it touched is noted
  // at the next one (memory::NoteTouched), and the arena's lock is taken
  // for that only then.
  bool touched_to_note_ = false;
  // The lent blocks of the last Release's list: the master keeps their
  // copies until RestoreCopiedBlocks reads back the pages not written.
  std::vector<memory::CopiedBlock> copied_blocks_;
  int pending_acks_ = 0;
  std::uint64_t recv_seq_ = 0;
  std::uint64_t file_seq_ = 0;
};

}  // namespace bdmpi
