// The network thread's transport (master/network/network.h): forwards BDMPI
// messages to other nodes' masters, one stream per destination, large
// payloads in chunks between spill (or memory) files; receives theirs; and
// runs the inter-node steps of collectives as non-blocking MPI operations.
// It has two communicators of its own, `p2p` and `coll`. Used only by the
// network thread, which calls its Progress functions on every round; what
// arrives goes to the event loop through `push`.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "collectives/operation.h"
#include "collectives/select.h"
#include "common/spill_dir.h"
#include "common/unique_fd.h"
#include "master/network/mpi_transport.h"
#include "master/network/network.h"
#include "master/network/stale_steps.h"
#include "master/network/transfer_log.h"
#include "master/network/wire.h"

namespace bdmpi {

class NetworkTransport {
 public:
  struct Config {
    const SpillDir* spill_dir = nullptr;   // Network::Config's
    const SpillDir* memory_dir = nullptr;  // Network::Config's
    coll::Tuning tuning;
    std::size_t inline_max = 0;
    std::size_t chunk_size = 0;
  };
  struct Hooks {
    std::function<void(NetworkEvent)> push;  // to the event loop
    std::function<void(int node)> heard;     // a message came from `node`
  };
  // What FlushSteps found.
  enum class Flush { kWaiting, kMismatch, kFlushed };

  // Duplicates MPI_COMM_WORLD twice (collective over all masters).
  // `racks`: every node's rack as a small integer, alike on all masters
  // (NetworkControl's name exchange), by which collectives order chains.
  NetworkTransport(Config config, int node, int nnodes, std::vector<int> racks, Hooks hooks);
  // Cancels the receives of collective steps still under way (a job that
  // ends in a failure or a signal) and waits a moment for them and for
  // the sends: the process goes on making MPI progress until MPI_Abort,
  // and must not have a peer's data written into freed buffers nor its
  // single-copy reads of ours fail. What is still open stays allocated.
  ~NetworkTransport();
  NetworkTransport(const NetworkTransport&) = delete;
  NetworkTransport& operator=(const NetworkTransport&) = delete;

  // How many communicators spanning nodes a master can tell apart (its
  // channels, mpi_transport.h), from the masters' MPI_TAG_UB.
  int max_channels() const { return max_channels_; }
  TransferLog& transfers() { return transfers_; }

  void Queue(OutgoingMessage message);
  void StartStep(const CollectiveStep& step);
  bool ProgressSends();
  bool ProgressReceives();
  bool ProgressCollectives();
  bool InFlight() const;  // transfers or collective steps under way
  // Once every rank of the node has finalized: when nothing is left to
  // send and no step is active, sends this master's marker after its last
  // step message and looks for step messages of collectives no rank here
  // called (stale_steps.h). kFlushed: every other master's marker has
  // come, nothing stale among them; kMismatch: one was (its event is
  // pushed, and FlushSteps never flushes again).
  Flush FlushSteps();
  // The marker is sent (the thread then need not wake for the shutdown).
  bool steps_flushed() const { return steps_flushed_; }
  // For the deadlock watch (control's kState): the transfers and steps
  // finished so far, the data moving in active ones, and the active and
  // last finished steps.
  void AddActivity(ControlMsg& state) const;

 private:
  struct ChunkSlot {
    std::vector<std::byte> buffer;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  // Messages for one destination node, sent one after the other.
  struct SendStream {
    std::deque<OutgoingMessage> queue;
    bool active = false;
    std::vector<std::byte> head;
    MPI_Request head_request = MPI_REQUEST_NULL;
    UniqueFd fd;  // the payload's spill file while its chunks go out
    std::uint32_t next_chunk = 0;
    std::uint32_t chunks = 0;
    ChunkSlot slots[2];  // double buffering: read one chunk while one flies
    std::int64_t started_ns = 0;  // with transfers_ on
  };
  // The message being received from one source node.
  struct RecvStream {
    bool active = false;
    IncomingMessage message;
    std::uint32_t chunks_left = 0;
    UniqueFd fd;  // the spill file the chunks go to
    std::uint64_t offset = 0;
    std::int64_t started_ns = 0;  // with transfers_ on
  };
  struct ActiveStep {
    CollectiveStep step;
    std::vector<int> racks;  // of the group's masters
    std::unique_ptr<MpiTransport> transport;
    std::unique_ptr<coll::Operation> operation;  // uses transport: destroyed first
    std::string_view algorithm;  // static text (coll::LastAlgorithm)
    // Its peers called another collective: never progressed again, but
    // kept, since MPI may still write into its posted receives.
    bool mismatched = false;
  };

  bool ProgressSends(int dest);
  const SpillDir& IncomingDir(const IncomingMessage& message) const {
    return message.in_memory ? *config_.memory_dir : *config_.spill_dir;
  }
  // Two nodes' ranks called different collectives in one step.
  void PushStepMismatch(const StepConflict& conflict);

  Config config_;
  Hooks hooks_;
  int node_ = 0;
  int nnodes_ = 1;
  MPI_Comm p2p_ = MPI_COMM_NULL;
  MPI_Comm coll_ = MPI_COMM_NULL;
  std::vector<int> racks_;  // rack id of every node
  int max_channels_ = 1;
  // The marker's tag on coll_: the last channel's first tag, kept from
  // the communicators (max_channels_ excludes it).
  int flush_tag_ = 0;

  std::vector<SendStream> sends_;
  std::vector<RecvStream> receives_;
  std::vector<ActiveStep> steps_;
  std::vector<std::byte> receive_buffer_;
  std::uint64_t file_seq_ = 0;
  std::uint64_t progress_ = 0;  // p2p transfers and finished steps
  std::deque<StepRef> finished_steps_;  // the last few, newest last
  StaleStepCheck stale_steps_;          // looked at when shutting down
  bool stale_step_found_ = false;       // then: never enter the shutdown barrier
  bool steps_flushed_ = false;          // this master's shutdown marker is sent
  TransferLog transfers_;
};

}  // namespace bdmpi
