#include "slave/runtime/runtime.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>

#include "common/error.h"
#include "common/file_io.h"
#include "common/job_names.h"
#include "common/log.h"
#include "common/rank_wiring.h"
#include "slave/memory/arena.h"
#include "slave/memory/heap.h"
#include "slave/memory/lent_copies.h"
#include "slave/p2p/direct_path.h"
#include "slave/p2p/lent_blocks.h"
#include "slave/rma/window.h"
#include "slave/runtime/environment.h"
#include "slave/runtime/threads.h"
#include "slave/tool/counters.h"
#include "slave/tool/events.h"

namespace bdmpi {
namespace {

std::unique_ptr<Runtime>& Slot() {
  static std::unique_ptr<Runtime> runtime;
  return runtime;
}

// The connection of a rank that has finalized, kept for a later session.
// Never destroyed: the process's exit closes its queues and mappings, and
// no destructor runs against a master that may be gone by then.
Runtime*& StoppedRuntime() {
  static Runtime* stopped = nullptr;
  return stopped;
}

int WireInt(Wire wire) { return static_cast<int>(wiring::RequireNumber(wire)); }

// An object's name from the environment, which must be one of the job's
// names of that kind (JobNames::IsTagged with `prefix`).
std::string TaggedWire(Wire wire, const std::string& prefix) {
  std::string name = wiring::Require(wire);
  if (!JobNames::IsTagged(name, prefix))
    throw Error(kErrOther, std::string(wiring::Name(wire)) + "=" + name +
                               " is not a name of this job's (" + prefix +
                               "<tag>); start the program with bdmpiexec");
  return name;
}

double Now() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace

Runtime* Runtime::Instance() { return Slot().get(); }

void Runtime::Start() {
  if (StoppedRuntime() != nullptr) {
    Slot().reset(StoppedRuntime());
    StoppedRuntime() = nullptr;
  } else {
    std::unique_ptr<Runtime> runtime(new Runtime());
    runtime->Connect();
    Slot() = std::move(runtime);
  }
  RequestMsg init;
  init.type = MsgType::kInit;
  Slot()->Call(init);
}

void Runtime::Stop() {
  Runtime* runtime = Instance();
  runtime->TellDeferredReceives();
  RequestMsg finalize;
  finalize.type = MsgType::kFinalize;
  runtime->Call(finalize);
  StoppedRuntime() = Slot().release();
}

bool Runtime::WasStopped() { return StoppedRuntime() != nullptr; }

void Runtime::Connect() {
  std::string job_id = wiring::Require(Wire::kJobId);
  node_ = WireInt(Wire::kNode);
  slave_ = WireInt(Wire::kSlave);
  world_rank_ = WireInt(Wire::kWorldRank);
  world_size_ = WireInt(Wire::kWorldSize);
  universe_size_ = static_cast<int>(wiring::Number(Wire::kUniverseSize, world_size_));
  if (const char* spawn = wiring::Find(Wire::kSpawn)) {
    // "<parent leader> <tag> <appnum> <first>:<count> ...": the world as
    // runs of consecutive job ranks (master/launch/spawn_ranks.cpp).
    Spawned info;
    int used = 0;
    bool ok = std::sscanf(spawn, "%d %d %d%n", &info.parent_leader, &info.tag, &info.appnum,
                          &used) == 3;
    for (const char* at = spawn + used; ok && *at != '\0';) {
      int first = 0, count = 0, run = 0;
      ok = std::sscanf(at, " %d:%d%n", &first, &count, &run) == 2 && count > 0;
      for (int r = 0; ok && r < count; ++r) info.world.push_back(first + r);
      at += run;
    }
    if (!ok || info.world.empty())
      throw Error(kErrIntern, std::string("malformed ") + kEnvSpawn + ": " + spawn);
    spawned_ = std::move(info);
  }
  node_size_ = WireInt(Wire::kNodeSize);
  nnodes_ = WireInt(Wire::kNodeCount);
  std::size_t window_size = wiring::RequireUnsigned(Wire::kWindowSize);
  spill_dir_ = SpillDir::OpenExisting(wiring::Require(Wire::kSpillDir),
                                      wiring::RequireUnsigned(Wire::kSpillDirInode));
  if (const char* memory_dir = wiring::Find(Wire::kMemoryDir)) {
    memory_dir_ =
        SpillDir::OpenExisting(memory_dir, wiring::RequireUnsigned(Wire::kMemoryDirInode));
    segments_.emplace(&memory_dir_, static_cast<std::uint64_t>(slave_));
  }
  token_ = static_cast<std::uint32_t>(wiring::RequireUnsigned(Wire::kSlaveToken));
  // Not for the programs this one may start: they are not this rank.
  unsetenv(kEnvSlaveToken);
  LetJobReadMemory();
  lending_ = LendingAllowed();
  const char* defer = wiring::Find(Wire::kDeferPosts);
  defer_posts_ = defer != nullptr && std::strcmp(defer, "1") == 0;
  std::string who = "rank " + std::to_string(world_rank_);
  InitLog(who.c_str());
  JobNames names(job_id, node_);
  request_queue_ =
      MessageQueue::Open(TaggedWire(Wire::kRequestQueue, names.RequestQueue("")), O_WRONLY);
  go_queue_ = MessageQueue::Open(TaggedWire(Wire::kGoQueue, names.GoQueue(slave_, "")), O_RDONLY);
  window_ = SharedMemory::Open(TaggedWire(Wire::kWindow, names.Window(slave_, "")), window_size);
  StartPlacing();
  // Direct messages need what placed ones need (writing into a sibling);
  // how a waiting rank polls is the master's rule (BDMPI_MAY_POLL).
  Direct().Start(slave_, node_size_, lending_, ParseDirectPoll(std::getenv(kEnvMayPoll)));
  Direct().BeforeSpin([this] { Flush(); });
}

void Runtime::CheckCallingThread() const {
  if (!CallsFromAnyThread() && !IsThreadMain())
    throw Error(kErrOther,
                "an MPI call from a thread other than the one that called MPI_Init_thread, "
                "which provided MPI_THREAD_SINGLE or MPI_THREAD_FUNNELED: ask for "
                "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE to call from any thread");
}

void Runtime::Enqueue(RequestMsg request) {
  // MPI_Abort may come from any thread (Append); everything else only from
  // MPI_Init's below MPI_THREAD_SERIALIZED.
  CheckCallingThread();
  // The master hears of receives in posting order, before anything else
  // this rank asks of it that concerns them (a probe must see what they
  // would take).
  if (!LeavesReceivesUntold(request)) TellDeferredReceives();
  // Before anything that may have the master copy a block at the same
  // address again.
  if (memory::LentCopiesToTell()) TellSettledLentCopies();
  Append(request);
}

void Runtime::TellSettledLentCopies() {
  // Called from Enqueue, maybe between StagePayload and the post of an
  // inline payload: that payload is the request's.
  const void* staged = staged_inline_;
  memory::SettledLentCopy settled;
  while (memory::TakeSettledLentCopy(settled)) {
    staged_inline_ = nullptr;
    Append(LentSettledMsg(settled.address, settled.read));
  }
  staged_inline_ = staged;
}

RequestMsg Runtime::LentSettledMsg(std::uint64_t address, std::uint64_t read) {
  RequestMsg settled;
  settled.type = MsgType::kLentSettled;
  settled.file_id = address;
  settled.bytes = read;
  settled.wants_reply = false;
  return settled;
}

bool Runtime::LeavesReceivesUntold(const RequestMsg& request) const {
  switch (request.type) {
    // Tests of receives told already, and notices: about other receives.
    case MsgType::kTestRecv:
    case MsgType::kTestAny:
    case MsgType::kPollAny:
    case MsgType::kTestAll:
    case MsgType::kDirectDone:
    case MsgType::kDirectTaken:
      break;
    // A receive on another communicator (a nonblocking collective's, say,
    // polled between the tests): it takes none of their messages. Unless
    // the rank then blocks for it: a synchronous send into one of them
    // would wait for the master to hear of it meanwhile.
    case MsgType::kPostRecv:
      if (request.wants_reply || Direct().DeferredOn(request.comm)) return false;
      break;
    // A message to another rank: the master matches it with that rank's
    // receives (one to itself needs this rank's told first).
    case MsgType::kSend:
    case MsgType::kSyncSend:
    case MsgType::kLentSend:
    case MsgType::kPlaceOffer:
    case MsgType::kPlaced:
      if (!sending_elsewhere_) return false;
      break;
    default:
      return false;
  }
  return Direct().DeferredMayStayUntold();
}

void Runtime::Append(RequestMsg request) {
  request.slave = slave_;
  request.token = token_;
  holding_ = false;
  if (!batch_.Fits(request)) Flush();
  batch_.Append(request, staged_inline_);
  staged_inline_ = nullptr;
}

void Runtime::TellDeferredReceives() {
  if (telling_ || !Direct().HasDeferred()) return;
  telling_ = true;
  // Called from Enqueue, maybe between StagePayload and the post of an
  // inline payload: that payload is the request's, not theirs.
  const void* staged = staged_inline_;
  staged_inline_ = nullptr;
  Direct().TellDeferred([this](const RequestMsg& post) {
    RequestMsg told = post;
    told.wants_reply = false;
    Enqueue(told);
  });
  staged_inline_ = staged;
  telling_ = false;
}

void Runtime::Flush() {
  if (batch_.empty()) return;
  request_queue_.Send(batch_.data(), batch_.size());
  batch_.Clear();
}

void Runtime::Post(RequestMsg request) {
  request.wants_reply = false;
  Enqueue(request);
  if (!defer_posts_ && !batching_) Flush();
}

void Runtime::Note(RequestMsg request) {
  request.wants_reply = false;
  Enqueue(request);
}

void Runtime::PostStaged(RequestMsg request) {
  if (request.where != Where::kWindow) {
    Post(request);
    return;
  }
  request.wants_reply = true;  // the acknowledgement frees the window
  Enqueue(request);
  Flush();
  ++pending_acks_;
}

namespace {

// The master's twin of a request that blocks until something happens
// elsewhere: one that answers at once, with flag = 0 when it has not
// happened yet; `type` itself when there is none.
MsgType PolledTwin(MsgType type) {
  switch (type) {
    case MsgType::kPostRecv:  // MPI_Recv: posted, then tested
    case MsgType::kWaitRecv:
    case MsgType::kWaitSsend:  // a synchronous send's id completes as a receive's
      return MsgType::kTestRecv;
    case MsgType::kProbe:
      return MsgType::kIprobe;
    case MsgType::kMprobe:
      return MsgType::kImprobe;
    default:
      return type;
  }
}

}  // namespace

bool Runtime::TestFindsNothing() const {
  return !holding_ && batch_.empty() &&
         (!Direct().HasDeferred() || Direct().DeferredMayStayUntold()) &&
         Direct().MasterHasNothingNew();
}

ReplyMsg Runtime::Call(RequestMsg request) {
  // With other threads that may call MPI, a wait at the master would keep
  // them out until it ends, and it may end only by what they do.
  if (MsgType twin = PolledTwin(request.type);
      twin != request.type && !threads::MayBlockAtMaster())
    return CallPolled(request, twin);
  return CallBlocking(request);
}

ReplyMsg Runtime::CallPolled(RequestMsg request, MsgType twin) {
  RequestMsg ask = request;
  ask.type = twin;
  if (request.type == MsgType::kPostRecv) {
    Post(request);  // registers the receive, as MPI_Irecv does
    ask = RequestMsg{};
    ask.type = twin;
    ask.id = request.id;
  }
  for (int round = 0;; ++round) {
    ReplyMsg reply = CallBlocking(ask);
    if (reply.flag != 0) {
      reply.type = request.type;
      return reply;
    }
    threads::Unlocked unlocked;
    threads::Backoff(round);
  }
}

namespace {

// The tool events of one blocking call (slave/tool/events.h): whether the
// master took the rank's running slot while it waited, from the count the
// master keeps in the rank's slot, and what it read back after.
class CallEvents {
 public:
  CallEvents()
      : switch_events_(tool::EventWanted(tool::Event::kSwitchedOut) ||
                       tool::EventWanted(tool::Event::kResumed)) {
    if (!switch_events_) return;
    switches_ = tool::Switches();
    asked_ = tool::EventClock();
  }

  // The master answered.
  void Answered() const {
    if (!switch_events_) return;
    std::uint64_t switches = tool::Switches();
    if (switches == switches_) return;
    std::uint64_t now = tool::EventClock();
    tool::RaiseEvent(tool::Event::kSwitchedOut, tool::SwitchedOutData{switches}, asked_);
    tool::RaiseEvent(tool::Event::kResumed, tool::ResumedData{now - asked_, switches}, now);
  }

 private:
  bool switch_events_;
  std::uint64_t switches_ = 0;
  std::uint64_t asked_ = 0;
};

// Raises the read-back event for what `read` read back eagerly.
template <typename Read>
void ReadBackWithEvent(Read read) {
  bool wanted = tool::EventWanted(tool::Event::kReadBack);
  std::uint64_t before = wanted ? tool::ReadBackBytes() : 0;
  read();
  if (!wanted) return;
  std::uint64_t bytes = tool::ReadBackBytes() - before;
  if (bytes > 0) tool::RaiseEvent(tool::Event::kReadBack, tool::ReadBackData{bytes});
}

}  // namespace

ReplyMsg Runtime::CallBlocking(RequestMsg request) {
  if (touched_to_note_) {
    touched_to_note_ = false;
    memory::NoteTouched();
  }
  memory::DropFileCopies();
  // The master may read this rank's storage count while it waits.
  memory::PurgeHeapIfGrown();
  request.wants_reply = true;
  request.sent = sent_since_call_ ? 1 : 0;
  sent_since_call_ = false;
  CallEvents events;
  Enqueue(request);
  Direct().AtMaster(true);
  Flush();
  // Replies come in request order: earlier acknowledgements first.
  DrainAcks();
  ReplyMsg reply = ReceiveReply();
  Direct().AtMaster(false);
  holding_ = reply.flag != 0 ||
             !(request.type == MsgType::kTestRecv || request.type == MsgType::kTestAny ||
               request.type == MsgType::kPollAny || request.type == MsgType::kTestAll);
  events.Answered();
  if (storage_released_) {
    // Switched out while waiting: read the data back before user code runs.
    storage_released_ = false;
    rma::TargetsHeld held;
    ReadBackWithEvent([&] {
      memory::PrefetchAll(static_cast<int>(request.type), IsPointToPoint(request.type));
    });
    touched_to_note_ = true;
    rma::WindowMemoryBack();
  }
  if (!copied_blocks_.empty()) RestoreCopiedBlocks();
  Direct().Accept();  // resident again
  BDMPI_ENFORCE(reply.type == request.type,
                std::string("reply to ") + MsgTypeName(reply.type) + " for a " +
                    MsgTypeName(request.type) + " request");
  return reply;
}

void Runtime::DrainAcks() {
  while (pending_acks_ > 0) {
    ReceiveReply();
    --pending_acks_;
  }
}

ReplyMsg Runtime::ReceiveReply() {
  for (;;) {
    ReplyMsg reply;
    std::size_t size = go_queue_.Receive(&reply, sizeof reply);
    BDMPI_ENFORCE(size == sizeof reply && reply.version == kProtocolVersion,
                  "malformed reply from the master");
    if (!ServeNotice(reply)) return reply;
  }
}

bool Runtime::ServeNotice(const ReplyMsg& message) {
  // The master's messages on the go-queue that answer no request, and what
  // the rank does on each: the slave's half of the memory rows of the
  // master's table.
  static constexpr struct {
    MsgType type;
    void (Runtime::*serve)(const ReplyMsg&);
  } kNotices[] = {
      {MsgType::kRelease, &Runtime::SwitchOut},
      {MsgType::kReadAhead, &Runtime::ReadAhead},
  };
  for (const auto& notice : kNotices) {
    if (notice.type != message.type) continue;
    (this->*notice.serve)(message);
    return true;
  }
  return false;
}

void Runtime::ReadAhead(const ReplyMsg&) {
  // Only data that was switched out comes back: anything else is live.
  if (!storage_released_) return;
  double start = Now();
  rma::TargetsHeld held;
  ReadBackWithEvent([] { memory::ReadAhead(); });
  rma::WindowMemoryBack();
  storage_released_ = false;
  BDMPI_DEBUG("disk", "read-ahead in %.3f s", Now() - start);
}

void Runtime::RestoreCopiedBlocks() {
  std::vector<memory::CopiedBlock> blocks = std::move(copied_blocks_);
  copied_blocks_.clear();
  for (const memory::CopiedBlock& block : blocks) {
    RequestMsg ask;
    ask.type = MsgType::kRestoreLent;
    // Mapped, so that only the pages the program touches are read: the
    // master keeps the copy until LentSettled.
    bool map = block.skipped_bytes > 0;
    RestoreLentArgs{block.address, block.skipped_bytes, map}.Into(ask);
    ReplyMsg copy = Call(ask);
    if (!map) continue;  // written back as usual
    BDMPI_ENFORCE(copy.where == Where::kMemoryFile || copy.where == Where::kFile,
                  "the copy of a lent block is not in a file");
    const SpillDir& dir = copy.where == Where::kMemoryFile ? memory_dir_ : spill_dir_;
    UniqueFd fd = dir.Open(copy.file_id, O_RDONLY, copy.file_ino);
    std::uint64_t offset = block.skipped - block.address + copy.lead;
    if (offset % kLentCopyPage == 0 &&
        memory::MapLentCopy(fd.get(), block.address, block.skipped, block.skipped_bytes, offset))
      continue;
    // The skipped pages are fresh memory: this read is their only copy.
    ReadExactlyAt(fd.get(), reinterpret_cast<void*>(block.skipped), block.skipped_bytes, offset,
                  dir.FilePath(copy.file_id).c_str());
    Post(LentSettledMsg(block.address, block.skipped_bytes));
  }
}

void Runtime::SwitchOut(const ReplyMsg& release) {
  WriteBackAndTell(release);
  // After the last allocation and free of the switch-out, whose faults in
  // the heap read its file ahead.
  memory::DropFileCache();
}

void Runtime::WriteBackAndTell(const ReplyMsg& release) {
  ReleaseArgs args = ReleaseArgs::Of(release);
  // The blocks of this Release's list; those of an earlier one (switched
  // out again after a read-ahead, not run since) stay as they were.
  std::vector<memory::CopiedBlock> copied;
  if (args.count > 0) {
    std::vector<std::uint64_t> pairs(2 * static_cast<std::size_t>(args.count));
    spill_dir_.ReadPrefix(args.list_file_id, args.list_inode, pairs.data(),
                          pairs.size() * sizeof pairs[0]);
    // Another rank may read this rank's window memory while it is
    // switched out: there every page must be in the file.
    bool skip = !rma::ProgramMemoryTargets();
    for (std::size_t i = 0; i < pairs.size(); i += 2)
      copied.push_back({.address = pairs[i], .bytes = skip ? pairs[i + 1] : 0});
  }
  struct KeepCopied {
    std::vector<memory::CopiedBlock>& from;
    std::vector<memory::CopiedBlock>& to;
    ~KeepCopied() { to.insert(to.end(), from.begin(), from.end()); }
  } keep{copied, copied_blocks_};
  if (threads::LockOn() && threads::OtherThreadsExist()) {
    // Threads outside MPI may be writing the storage-backed memory that a
    // write-back would copy and then drop: it stays resident (the master
    // then counts it as written back, docs/scheduling-and-memory.md,
    // "Threads").
    BDMPI_DEBUG("disk", "switch-out skipped: other threads may be writing");
    RequestMsg done;
    done.type = MsgType::kReleased;
    done.bytes = 0;
    done.wants_reply = false;
    Enqueue(done);
    Flush();
    return;
  }
  const std::uint64_t step = args.step;  // how often to report progress
  double start = Now();
  // The write-back takes clean file pages for the storage file's: the
  // copies mapped since the last switch-out are read in first (and named
  // to the master before Released).
  memory::SettleLentCopies();
  // No sender may write into memory on its way to disk.
  Direct().StopAccepting();
  // The master lets the rank that waits for this memory start as soon as
  // what is left to write fits: its reads overlap the rest of ours.
  auto progress = [](void* self, std::uint64_t dropped) {
    RequestMsg report;
    report.type = MsgType::kReleaseProgress;
    report.bytes = dropped;
    report.wants_reply = false;
    auto& runtime = *static_cast<Runtime*>(self);
    runtime.Enqueue(report);
    runtime.Flush();
  };
  memory::ReleaseStats stats;
  {
    rma::TargetsHeld held;
    stats = memory::ReleaseAll(step, progress, this, copied);
  }
  memory::ReleaseStats windows = rma::ReleaseWindowMemory();
  stats.written += windows.written;
  stats.dropped += windows.dropped;
  storage_released_ = true;
  tool::CountSwitchOut(stats.written);
  tool::RaiseEvent(tool::Event::kWrittenBack, tool::WrittenBackData{stats.written, stats.dropped});
  BDMPI_DEBUG("disk", "switch-out: wrote back %llu bytes, dropped %llu in %.3f s",
              static_cast<unsigned long long>(stats.written),
              static_cast<unsigned long long>(stats.dropped), Now() - start);
  RequestMsg done;
  done.type = MsgType::kReleased;
  done.bytes = stats.written;
  done.wants_reply = false;
  Enqueue(done);
  Flush();
}

void Runtime::Abort(int code) {
  RequestMsg abort;
  abort.type = MsgType::kAbort;
  abort.code = code;
  Append(abort);
  Flush();
  // The master kills every slave of the job; should it be gone, leave anyway.
  sleep(10);
  _exit(code != 0 ? code : 1);
}

SendSettings Runtime::send_settings() const {
  SendSettings settings;
  settings.window = window_.size();
  settings.memory_payloads = segments_.has_value();
  settings.lending = lending_;
  settings.placing = placing_;
  settings.place_min_bytes = place_min_bytes_;
  settings.direct = Direct().on();
  settings.direct_max_bytes = Direct().max_bytes();
  return settings;
}

bool Runtime::SendDirect(const void* data, std::uint64_t bytes, const RequestMsg& request,
                         int dest_slave) {
  std::uint64_t recv_id = 0;
  DirectSend sent = Direct().TrySend(data, bytes, request.comm, request.rank, request.tag,
                                     dest_slave, &recv_id);
  if (sent == DirectSend::kDoneTold) {
    // The receiver had told the master of that receive, and may wait for
    // it there: the master completes it.
    RequestMsg notice;
    notice.type = MsgType::kDirectDone;
    notice.peer = dest_slave;
    notice.id = recv_id;
    Post(notice);
  }
  if (sent == DirectSend::kNo) return false;
  tool::CountDirectSend(bytes);
  return true;
}

SendPath Runtime::SendMessage(const void* data, std::uint64_t bytes, RequestMsg& request,
                              SendKind kind, int dest_world_rank) {
  CheckCallingThread();  // before a payload is written anywhere
  struct ElsewhereScope {
    bool& flag;
    bool was;
    ~ElsewhereScope() { flag = was; }
  } elsewhere{sending_elsewhere_, sending_elsewhere_};
  // Once per message (a stream of small sends spends its time in steps
  // like this one).
  const int dest_slave = LocalSlave(dest_world_rank);
  sending_elsewhere_ = dest_slave != slave_;
  sent_since_call_ = true;
  SendFacts facts;
  facts.bytes = bytes;
  facts.kind = kind;
  facts.dest_on_node = dest_slave >= 0;
  PlaceBackoff* backoff = nullptr;
  // Only a message that may be placed has a back-off to look up (a map
  // lookup per message of a stream of small ones otherwise).
  if (kind == SendKind::kStandard && placing_ && bytes >= place_min_bytes_) {
    backoff = &place_backoff_[dest_world_rank];
    facts.place_backing_off = backoff->skip > 0;
  }
  SendChoice choice = ChooseSendPath(facts, send_settings());
  if (choice.path == SendPath::kDirect) {
    if (SendDirect(data, bytes, request, dest_slave)) return SendPath::kDirect;
    facts.direct_refused = true;
    choice = ChooseSendPath(facts, send_settings());
  }
  if (choice.skipped_placing) --backoff->skip;
  if (choice.path == SendPath::kPlaced) {
    if (Place(data, bytes, request, dest_world_rank)) return SendPath::kPlaced;
    facts.place_refused = true;
    choice = ChooseSendPath(facts, send_settings());
  }
  // Through the master from here: no later direct message of this rank to
  // that one may pass it (direct_path.h).
  if (kind == SendKind::kStandard || kind == SendKind::kMatchNotice)
    Direct().CountMasterSend(dest_slave, request);
  if (choice.path == SendPath::kLent) {
    if (Readable(data, bytes)) {
      Lend(data, bytes, request);
      Post(request);
      return SendPath::kLent;
    }
    // The copied way reports the bad buffer (MPI_ERR_BUFFER).
    facts.unreadable = true;
    choice = ChooseSendPath(facts, send_settings());
  }
  Stage(data, facts, choice, request);
  PostStaged(request);
  return request.where == Where::kFile ? SendPath::kSpill : choice.path;
}

void Runtime::StagePayload(const void* data, std::uint64_t bytes, RequestMsg& request) {
  CheckCallingThread();  // before a payload is written anywhere
  SendFacts facts;
  facts.bytes = bytes;
  facts.kind = SendKind::kRequestData;
  Stage(data, facts, ChooseSendPath(facts, send_settings()), request);
}

void Runtime::Stage(const void* data, SendFacts facts, SendChoice choice, RequestMsg& request) {
  request.bytes = facts.bytes;
  switch (choice.path) {
    case SendPath::kEmpty:
      request.where = Where::kNone;
      return;
    case SendPath::kInline:
      staged_inline_ = data;  // copied into the batch by the post that follows
      request.where = Where::kInline;
      return;
    case SendPath::kWindow:
      DrainAcks();  // the master has consumed the window's previous contents
      std::memcpy(window_.data(), data, facts.bytes);
      request.where = Where::kWindow;
      return;
    case SendPath::kSegment:
      if (std::uint64_t segment = segments_->Write(data, facts.bytes); segment != 0) {
        request.file_id = segment;
        request.where = Where::kMemoryFile;
        return;
      }
      facts.no_free_segment = true;
      choice = ChooseSendPath(facts, send_settings());
      BDMPI_ENFORCE(choice.path == SendPath::kSpill, "no path after a busy segment");
      [[fallthrough]];
    case SendPath::kSpill:
      request.file_id = MakeFileId(static_cast<std::uint64_t>(slave_), ++file_seq_);
      spill_dir_.Write(request.file_id, data, facts.bytes);
      request.where = Where::kFile;
      tool::RaiseEvent(tool::Event::kSpilled,
                       tool::SpilledData{facts.bytes, facts.kind == SendKind::kStandard ||
                                                          facts.kind == SendKind::kMatchNotice});
      return;
    case SendPath::kDirect:
    case SendPath::kPlaced:
    case SendPath::kLent:
      break;
  }
  BDMPI_ENFORCE(false, std::string("the ") + SendPathName(choice.path) + " path staged");
}

// A payload from this size up is let go of as soon as it is read
// (PayloadRead): its file (a sender's segment, a memory file) holds at
// least as many pages, which would stay taken while the rank computes
// until its next request, and a finished sender's segment with them. The
// request costs a few microseconds of the master's time, against the
// hundreds the copy of a MiB takes; below it the file waits for the next
// request.
constexpr std::uint64_t kEarlyLetGoBytes = std::uint64_t{1} << 20;

void Runtime::LetGoOfLargePayload(const ReplyMsg& reply) {
  if (reply.bytes < kEarlyLetGoBytes) return;
  RequestMsg read;
  read.type = MsgType::kPayloadRead;
  Post(read);
}

void Runtime::FetchPayload(const ReplyMsg& reply, void* data,
                           std::uint64_t capacity) {
  std::uint64_t bytes = reply.bytes < capacity ? reply.bytes : capacity;
  // The copy below overwrites all `bytes`: what of them is on disk need
  // not be read back first.
  if (reply.where == Where::kWindow || reply.where == Where::kFile ||
      reply.where == Where::kMemoryFile || reply.where == Where::kLent)
    memory::FreshPages(data, bytes);
  switch (reply.where) {
    case Where::kNone:
    case Where::kInline:  // replies carry data in the window or a file
      break;
    case Where::kWindow:
      std::memcpy(data, window_.data(), bytes);
      break;
    case Where::kFile:
      if (reply.lead != 0) return ReadAfterLead(spill_dir_, reply, data, bytes);
      spill_dir_.ReadPrefix(reply.file_id, reply.file_ino, data, bytes);
      break;
    case Where::kMemoryFile:
      if (reply.lead != 0) return ReadAfterLead(memory_dir_, reply, data, bytes);
      segment_reader_.Read(memory_dir_, reply.file_id, reply.file_ino, data, bytes);
      LetGoOfLargePayload(reply);
      break;
    case Where::kPlaced:  // the sender wrote it into `data` already
      break;
    case Where::kPlaceGrant:
      BDMPI_ENFORCE(false, "a receive's reply carrying a placement grant");
    case Where::kLent:
      ReadLentBlock(reply, data, bytes);
      break;
  }
}

void Runtime::ReadAfterLead(const SpillDir& dir, const ReplyMsg& reply, void* data,
                            std::uint64_t bytes) {
  // A lent block's copy kept for its sender (RestoreLent), read by its
  // receiver: never a payload segment.
  UniqueFd fd = dir.Open(reply.file_id, O_RDONLY, reply.file_ino);
  ReadExactlyAt(fd.get(), data, bytes, reply.lead, dir.FilePath(reply.file_id).c_str());
  if (reply.where == Where::kMemoryFile) LetGoOfLargePayload(reply);
}

void Runtime::Lend(const void* data, std::uint64_t bytes, RequestMsg& request) {
  request.type = MsgType::kLentSend;
  LentSendArgs{reinterpret_cast<std::uintptr_t>(data), bytes, NewRecvId()}.Into(request);
}

void Runtime::ReadLentBlock(const ReplyMsg& reply, void* data, std::uint64_t bytes) {
  LentReplyArgs lent = LentReplyArgs::Of(reply);
  if (ReadLent(static_cast<pid_t>(lent.lender_pid), lent.address, data, bytes)) return;
  BDMPI_DEBUG("p2p", "may not read rank memory (process_vm_readv refused): asking for a copy");
  RequestMsg copy;
  copy.type = MsgType::kCopyLent;
  ReplyMsg copied = Call(copy);
  BDMPI_ENFORCE(copied.where != Where::kLent, "the master lent a block again");
  FetchPayload(copied, data, bytes);
}

}  // namespace bdmpi
