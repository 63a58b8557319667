#include "master/network/network_transport.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "collectives/collectives.h"
#include "common/error.h"
#include "common/file_io.h"
#include "master/message_table.h"
#include "master/network/network_mpi.h"
#include "master/observe/job_recorder.h"

namespace bdmpi {
namespace {

constexpr int kTagP2P = 1;
// Spill files this thread creates (the event loop and slaves have theirs).
constexpr std::uint64_t kNetworkFileOwner = 0xfffffe;

// The first operation tag of step `seq` of a communicator.
int StepTag(std::uint64_t seq) {
  static_assert(4096 * coll::kTagsPerOperation <= kOpTagSpace);
  return static_cast<int>(seq % 4096) * coll::kTagsPerOperation;
}

}  // namespace

NetworkTransport::NetworkTransport(Config config, int node, int nnodes, std::vector<int> racks,
                                   Hooks hooks)
    : config_(std::move(config)),
      hooks_(std::move(hooks)),
      node_(node),
      nnodes_(nnodes),
      racks_(std::move(racks)) {
  // Separate communicators keep the kinds of traffic from matching each
  // other's receives (the control and the record exchange have theirs).
  CheckMpi(MPI_Comm_dup(MPI_COMM_WORLD, &p2p_), "MPI_Comm_dup");
  CheckMpi(MPI_Comm_dup(MPI_COMM_WORLD, &coll_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(p2p_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(coll_, MPI_ERRORS_RETURN);
  sends_ = std::vector<SendStream>(nnodes_);
  receives_ = std::vector<RecvStream>(nnodes_);
  receive_buffer_.resize(std::max(config_.chunk_size,
                                  sizeof(WireHeader) + config_.inline_max));
  int* tag_ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(coll_, MPI_TAG_UB, &tag_ub, &flag);
  max_channels_ = flag ? static_cast<int>((static_cast<long long>(*tag_ub) + 1) / kOpTagSpace) : 1;
  // MPI_COMM_WORLD's channel, BDMPI_COMM_CWORLD's and the marker's.
  BDMPI_ENFORCE(max_channels_ >= 3, "MPI_TAG_UB below three channels of operation tags");
  --max_channels_;
  flush_tag_ = max_channels_ * kOpTagSpace;
}

NetworkTransport::~NetworkTransport() {
  // A peer that is ending too may never send the rest of a matched
  // message, nor receive ours: wait a moment for all, not for each. What
  // MPI may still read or write after that stays allocated (the master
  // ends soon after): freed, a peer's single-copy read of a send buffer
  // would fail (`readv: Bad address`) or a late receive write into
  // memory reused since.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  for (ActiveStep& step : steps_) {
    if (step.transport->Settle(deadline)) continue;
    (void)step.operation.release();  // its buffers
    (void)step.transport.release();  // its frames
  }
  for (SendStream& stream : sends_) {
    std::vector<MPI_Request*> open = {&stream.head_request};
    for (ChunkSlot& slot : stream.slots) open.push_back(&slot.request);
    if (WaitUntil(open, deadline)) continue;
    (void)new std::vector<std::byte>(std::move(stream.head));
    for (ChunkSlot& slot : stream.slots) (void)new std::vector<std::byte>(std::move(slot.buffer));
  }
}

void NetworkTransport::Queue(OutgoingMessage message) {
  int dest = message.dest_node;
  sends_[dest].queue.push_back(std::move(message));
}

bool NetworkTransport::ProgressSends() {
  bool busy = false;
  for (int dest = 0; dest < nnodes_; ++dest) busy |= ProgressSends(dest);
  return busy;
}

bool NetworkTransport::InFlight() const {
  if (!steps_.empty()) return true;
  for (const SendStream& stream : sends_) {
    if (stream.active) return true;
  }
  for (const RecvStream& stream : receives_) {
    if (stream.active) return true;
  }
  return false;
}

NetworkTransport::Flush NetworkTransport::FlushSteps() {
  // A bcast's root rank may finalize before its step has sent the data.
  bool idle = steps_.empty() &&
              std::all_of(sends_.begin(), sends_.end(), [](const SendStream& s) {
                return !s.active && s.queue.empty();
              });
  // With every rank finalized and every step done, a step message still
  // waiting here was sent by a master whose ranks called another
  // collective or root; once every other master's marker has come, none
  // can still be on its way (stale_steps.h).
  if (!idle || stale_step_found_) return Flush::kWaiting;
  if (!steps_flushed_) {
    stale_steps_.Flush(coll_, flush_tag_);
    steps_flushed_ = true;
  }
  if (std::optional<StepConflict> conflict = stale_steps_.Drain(coll_, node_)) {
    stale_step_found_ = true;
    PushStepMismatch(*conflict);
    return Flush::kMismatch;
  }
  return stale_steps_.Flushed() ? Flush::kFlushed : Flush::kWaiting;
}

void NetworkTransport::AddActivity(ControlMsg& state) const {
  // A collective step that still moves data is progress, however slowly.
  state.progress = progress_;
  for (const ActiveStep& step : steps_) state.progress += step.transport->completed();
  auto add_step = [&state](StepRef ref) {
    if (state.nsteps == kMaxStepRefs) {
      state.steps_overflow = 1;
      return;
    }
    state.steps[state.nsteps++] = ref;
  };
  for (const ActiveStep& step : steps_) {
    StepRef ref;
    ref.comm = step.step.comm;
    ref.seq = step.step.seq;
    ref.group_size = static_cast<int>(step.step.group->nodes.size());
    ref.active = 1;
    ref.signature = step.step.signature;
    add_step(ref);
  }
  for (const StepRef& ref : finished_steps_) add_step(ref);
}

void NetworkTransport::PushStepMismatch(const StepConflict& conflict) {
  hooks_.push(StepMismatchEvent(conflict));
}

bool NetworkTransport::ProgressSends(int dest) {
  SendStream& stream = sends_[dest];
  bool busy = false;
  if (!stream.active) {
    if (stream.queue.empty()) return false;
    OutgoingMessage& message = stream.queue.front();
    Payload& payload = message.payload;
    bool inline_payload = !payload.on_disk() && payload.bytes() <= config_.inline_max;
    message.header.bytes = payload.bytes();
    message.header.chunks =
        inline_payload ? 0
                       : static_cast<std::uint32_t>((payload.bytes() + config_.chunk_size - 1) /
                                                    config_.chunk_size);
    stream.head.resize(sizeof(WireHeader) + (inline_payload ? payload.bytes() : 0));
    std::memcpy(stream.head.data(), &message.header, sizeof(WireHeader));
    if (inline_payload && payload.bytes() > 0)
      std::memcpy(stream.head.data() + sizeof(WireHeader), payload.memory().data(),
                  payload.bytes());
    CheckMpi(MPI_Isend(stream.head.data(), static_cast<int>(stream.head.size()), MPI_BYTE,
                       dest, kTagP2P, p2p_, &stream.head_request),
             "MPI_Isend");
    stream.chunks = message.header.chunks;
    stream.next_chunk = 0;
    if (transfers_.on()) stream.started_ns = MonotonicNs();
    if (stream.chunks > 0) {
      // A memory or a spill file.
      stream.fd = payload.Open(O_RDONLY);
    }
    stream.active = true;
    busy = true;
  }
  OutgoingMessage& message = stream.queue.front();
  for (ChunkSlot& slot : stream.slots) {
    if (!TestRequest(slot.request)) continue;
    if (stream.next_chunk >= stream.chunks) continue;
    std::uint64_t offset = std::uint64_t{stream.next_chunk} * config_.chunk_size;
    std::size_t length = static_cast<std::size_t>(
        std::min<std::uint64_t>(config_.chunk_size, message.payload.bytes() - offset));
    slot.buffer.resize(length);
    ReadExactlyAt(stream.fd.get(), slot.buffer.data(), length, offset,
                  message.payload.file()->path());
    CheckMpi(MPI_Isend(slot.buffer.data(), static_cast<int>(length), MPI_BYTE, dest, kTagP2P,
                       p2p_, &slot.request),
             "MPI_Isend");
    ++stream.next_chunk;
    busy = true;
  }
  bool all_sent = TestRequest(stream.head_request) && stream.next_chunk >= stream.chunks &&
                  std::all_of(std::begin(stream.slots), std::end(stream.slots),
                              [](ChunkSlot& slot) { return TestRequest(slot.request); });
  if (all_sent) {
    if (transfers_.on())
      transfers_.Sent(dest, message.payload.bytes(), stream.chunks, stream.started_ns,
                      MonotonicNs());
    stream.fd.reset();
    stream.queue.pop_front();  // releases the payload (and its spill file)
    stream.active = false;
    busy = true;
  }
  if (busy) ++progress_;
  return busy;
}

bool NetworkTransport::ProgressReceives() {
  bool busy = false;
  for (;;) {
    int flag = 0;
    MPI_Message handle;
    MPI_Status status;
    CheckMpi(MPI_Improbe(MPI_ANY_SOURCE, kTagP2P, p2p_, &flag, &handle, &status),
             "MPI_Improbe");
    if (!flag) return busy;
    busy = true;
    ++progress_;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (static_cast<std::size_t>(count) > receive_buffer_.size()) receive_buffer_.resize(count);
    CheckMpi(MPI_Mrecv(receive_buffer_.data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE),
             "MPI_Mrecv");
    hooks_.heard(status.MPI_SOURCE);
    RecvStream& stream = receives_[status.MPI_SOURCE];
    if (!stream.active) {
      BDMPI_ENFORCE(static_cast<std::size_t>(count) >= sizeof(WireHeader), "short wire header");
      stream.message = IncomingMessage();
      std::memcpy(&stream.message.header, receive_buffer_.data(), sizeof(WireHeader));
      const WireHeader& header = stream.message.header;
      if (header.chunks == 0) {
        if (transfers_.on()) {
          std::int64_t now = MonotonicNs();
          transfers_.Received(status.MPI_SOURCE, header.bytes, 0, now, now);
        }
        stream.message.memory.assign(receive_buffer_.data() + sizeof(WireHeader),
                                     receive_buffer_.data() + count);
        NetworkEvent event;
        event.message = std::move(stream.message);
        hooks_.push(std::move(event));
        continue;
      }
      stream.message.on_disk = true;
      stream.message.in_memory = config_.memory_dir != nullptr;
      stream.message.file_id = MakeFileId(kNetworkFileOwner, ++file_seq_);
      stream.fd = IncomingDir(stream.message).Create(stream.message.file_id, O_WRONLY,
                                                      &stream.message.file_inode);
      stream.chunks_left = header.chunks;
      stream.offset = 0;
      stream.active = true;
      if (transfers_.on()) stream.started_ns = MonotonicNs();
      continue;
    }
    if (PwriteFull(stream.fd.get(), receive_buffer_.data(), static_cast<std::size_t>(count),
                   stream.offset) < 0) {
      ThrowWriteError("write", IncomingDir(stream.message).FilePath(stream.message.file_id),
                      errno);
    }
    stream.offset += static_cast<std::uint64_t>(count);
    if (--stream.chunks_left == 0) {
      if (transfers_.on())
        transfers_.Received(status.MPI_SOURCE, stream.message.header.bytes,
                            stream.message.header.chunks, stream.started_ns, MonotonicNs());
      stream.fd.reset();
      stream.active = false;
      NetworkEvent event;
      event.message = std::move(stream.message);
      hooks_.push(std::move(event));
    }
  }
}

void NetworkTransport::StartStep(const CollectiveStep& step) {
  // Steps of one communicator follow one another; a few may overlap (a root
  // goes on to its next collective), so each gets its own tag range. The
  // transport keeps communicators apart (mpi_transport.h).
  int tag = StepTag(step.seq);
  std::span<std::byte> data(step.data, step.data == nullptr ? 0 : step.bytes);
  ActiveStep active{step, {}, std::make_unique<MpiTransport>(coll_, step.group, step.signature), nullptr, {}};
  for (int node : step.group->nodes) active.racks.push_back(racks_[node]);
  std::span<const int> racks(active.racks);
  coll::Transport& transport = *active.transport;
  const MessageRow* row = FindMessageRow(step.type);
  if (row == nullptr || row->start_step == nullptr)
    throw Error(kErrIntern, std::string("no inter-node step for ") + MsgTypeName(step.type));
  active.operation = row->start_step({transport, tag, data, step, racks, config_.tuning});
  active.algorithm = coll::LastAlgorithm();
  steps_.push_back(std::move(active));
}

bool NetworkTransport::ProgressCollectives() {
  bool busy = false;
  for (auto it = steps_.begin(); it != steps_.end();) {
    bool done = false;
    try {
      if (!it->mismatched) done = it->operation->Progress();
    } catch (const StepMismatch& mismatch) {
      PushStepMismatch({it->step.comm, it->step.seq, node_, it->step.signature,
                        mismatch.peer_node, mismatch.theirs});
      it->mismatched = true;
    } catch (const Error& error) {
      if (error.error_class() != kErrTruncate) throw;
      throw Error(kErrOther, std::string(MpiCallName(it->step.type)) +
                                 " with different sizes on different nodes: " + error.what() +
                                 " (every rank must give the same count and datatype)");
    }
    if (!done) {
      ++it;
      continue;
    }
    NetworkEvent event;
    event.kind = NetworkEvent::Kind::kCollectiveDone;
    event.comm = it->step.comm;
    event.seq = it->step.seq;
    event.algorithm = it->algorithm;
    hooks_.push(std::move(event));
    StepRef finished;
    finished.comm = it->step.comm;
    finished.seq = it->step.seq;
    finished.group_size = static_cast<int>(it->step.group->nodes.size());
    finished.signature = it->step.signature;
    const NodeGroup& group = *it->step.group;
    stale_steps_.Finished(group.channels[group.self] * kOpTagSpace + StepTag(it->step.seq),
                          it->step.comm, it->step.seq, it->step.signature);
    finished_steps_.push_back(finished);
    if (finished_steps_.size() > kMaxStepRefs / 2) finished_steps_.pop_front();
    // Its requests stay counted: the node's figure only grows, so a step
    // that ends is never taken for nothing having changed.
    progress_ += it->transport->completed() + 1;
    it = steps_.erase(it);
    busy = true;
  }
  return busy;
}

}  // namespace bdmpi
