// Applying one-sided operations of other nodes' origins; see rma_forward.h.
#include "master/rma/rma_forward.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "common/datatype.h"
#include "common/error.h"
#include "common/process_memory.h"
#include "common/handles.h"
#include "common/reduce.h"
#include "common/rma_node_file.h"

namespace bdmpi {
namespace {

using rma::RemoteKind;
using rma::RemoteOp;
using rma::RemoteReply;
using rma::TargetRun;

// The window's file of this node, mapped for one operation.
class FileMapping {
 public:
  FileMapping(const SpillDir& dir, const RemoteOp& op) {
    UniqueFd fd = dir.Open(op.file_id, O_RDWR, op.file_inode);
    struct stat st {};
    if (fstat(fd.get(), &st) != 0) ThrowSystemError("fstat of a window's file", errno);
    if (static_cast<std::uint64_t>(st.st_size) < op.file_bytes ||
        op.file_bytes < sizeof(rma::ControlBlock))
      throw Error(kErrIntern, "a window's file is shorter than its origin says");
    void* p = mmap(nullptr, op.file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (p == MAP_FAILED) ThrowSystemError("mmap of a window's file", errno);
    data_ = static_cast<char*>(p);
    bytes_ = op.file_bytes;
    fd_ = std::move(fd);
  }
  ~FileMapping() { munmap(data_, bytes_); }
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  char* data() const { return data_; }
  std::uint64_t bytes() const { return bytes_; }
  int fd() const { return fd_.get(); }
  rma::ControlBlock* control() const { return reinterpret_cast<rma::ControlBlock*>(data_); }

 private:
  char* data_ = nullptr;
  std::uint64_t bytes_ = 0;
  UniqueFd fd_;
};

// The windows' files this master mapped, kept between batches: mapping
// one costs an open, a mmap, a close and a munmap, each a system call
// that a loaded node makes slow. A window's file is unlinked at
// MPI_Win_free; its mapping here only keeps its few pages (a control
// block: the window memory in the file, MPI_Win_allocate's, is reached
// with pread/pwrite, below) until it is pushed out by kKeptMappings newer
// ones or the master ends.
constexpr std::size_t kKeptMappings = 16;

FileMapping& MappingFor(const SpillDir& dir, const RemoteOp& op) {
  struct Kept {
    std::uint64_t file_id, file_inode, file_bytes;
    std::unique_ptr<FileMapping> mapping;
  };
  static std::deque<Kept> kept;  // the most recently used first
  for (auto it = kept.begin(); it != kept.end(); ++it) {
    if (it->file_id == op.file_id && it->file_inode == op.file_inode &&
        it->file_bytes == op.file_bytes) {
      if (it != kept.begin()) {
        Kept found = std::move(*it);
        kept.erase(it);
        kept.push_front(std::move(found));
      }
      return *kept.front().mapping;
    }
  }
  auto mapping = std::make_unique<FileMapping>(dir, op);
  kept.push_front(Kept{op.file_id, op.file_inode, op.file_bytes, std::move(mapping)});
  if (kept.size() > kKeptMappings) kept.pop_back();
  return *kept.front().mapping;
}

// A buffer kept between batches, its pages resident: fresh memory costs a
// page fault per page, which on a virtual machine costs more than the copy.
// A 1 MiB accumulate spent most of its 18-22 ms there (glibc gave a
// freed 1 MiB buffer back at once, so every batch faulted in the pages of
// its packet's copy and of the target bytes' copy again). Up to
// kKeptScratch bytes stay between batches.
constexpr std::size_t kKeptScratch = std::size_t{16} << 20;

class Scratch {
 public:
  std::byte* Get(std::size_t bytes) {
    if (bytes > size_) {
      data_.reset();
      data_.reset(new std::byte[bytes]);
      size_ = bytes;
      // Its pages at once, in one call rather than a fault each.
      madvise(data_.get(), bytes, MADV_POPULATE_WRITE);
    }
    return data_.get();
  }
  void Trim() {
    if (size_ <= kKeptScratch) return;
    data_.reset();
    size_ = 0;
  }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t size_ = 0;
};

Scratch& TargetCopy() {
  static Scratch scratch;
  return scratch;
}

class Held {
 public:
  explicit Held(rma::ControlBlock* control) : control_(control) { rma::LockControl(control_); }
  ~Held() { pthread_mutex_unlock(&control_->mutex); }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;

 private:
  rma::ControlBlock* control_;
};

// The target's bytes: runs in the window's file, or in the target's
// process. The file's are moved with pread/pwrite, not through the
// mapping: pages this master mapped would stay in memory when their rank
// writes its window memory back and drops it at a switch-out.
struct Place {
  std::vector<iovec> runs;      // in the target's process
  std::vector<TargetRun> file;  // or at these offsets in the file
  int fd = -1;
  pid_t pid = 0;
};

void Move(const Place& place, std::byte* local, bool to_target) {
  int err = place.fd >= 0 ? rma::MoveFileRuns(place.fd, 0, place.file.data(), place.file.size(),
                                              local, to_target)
                          : MoveRuns(place.pid, place.runs.data(), place.runs.size(), local,
                                     to_target);
  if (err != 0)
    throw Error(err == EFAULT ? kErrRmaRange : kErrOther,
                std::string(to_target ? "writing" : "reading") +
                    " the target's memory failed (on its master): " + std::strerror(err));
}

// A batch's record, checked and located in its packet.
struct Record {
  RemoteOp op;
  std::vector<TargetRun> runs;
  const std::byte* data = nullptr;
  std::uint64_t fetched = 0;  // bytes it answers
};

// What a batch's records produce, in order.
struct Outcome {
  RemoteReply reply;
  std::byte* fetched = nullptr;  // where the next fetched bytes go
  std::vector<int> granted;
};

// Applies one record (not a lock). Errors of the operation are thrown.
void Apply(FileMapping& file, const Record& record, Outcome* out) {
  const RemoteOp& op = record.op;
  const TargetRun* runs = record.runs.data();
  const std::byte* data = record.data;
  rma::ControlBlock* control = file.control();
  if (op.kind == RemoteKind::kUnlock) {
    Held held(control);
    out->granted = rma::ReleaseAndGrant(file.data(), op.slot, op.exclusive != 0);
    return;
  }

  Place place;
  std::uint64_t lo = UINT64_MAX;
  std::uint64_t hi = 0;
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < op.runs; ++i) {
    std::uint64_t at = op.base + runs[i].offset;
    lo = std::min(lo, at);
    hi = std::max(hi, at + runs[i].length);
    total += runs[i].length;
    if (op.in_file) {
      if (at < sizeof(rma::ControlBlock) || at + runs[i].length > file.bytes() ||
          at + runs[i].length < at)
        throw Error(kErrRmaRange, "a one-sided operation outside its window's file");
      place.file.push_back(TargetRun{at, runs[i].length});
    } else {
      place.runs.push_back(iovec{reinterpret_cast<void*>(at), runs[i].length});
    }
  }
  if (total != op.bytes) throw Error(kErrIntern, "a one-sided operation's runs miscounted");
  if (op.in_file)
    place.fd = file.fd();
  else
    place.pid = op.pid;
  // As on the target's node: accumulates are atomic under the mutex, and
  // program memory is written back by its rank under it.
  bool accumulate = op.kind == RemoteKind::kAccumulate || op.kind == RemoteKind::kCompareAndSwap;
  std::optional<Held> held;
  if (accumulate || place.pid != 0 || op.dynamic) held.emplace(control);
  if (op.dynamic && op.bytes > 0 && !rma::InAttachedRegion(file.data(), op.slot, lo, hi))
    throw Error(kErrRmaRange, "address " + std::to_string(lo) + " (+" + std::to_string(hi - lo) +
                                  " bytes) is in no region rank " + std::to_string(op.target) +
                                  " attached to the dynamic window");
  // Fetched bytes go straight into the answer.
  std::byte* fetched = out->fetched;
  out->fetched += record.fetched;
  switch (op.kind) {
    case RemoteKind::kPut:
      if (op.data_bytes != op.bytes) throw Error(kErrIntern, "a put's data miscounted");
      Move(place, const_cast<std::byte*>(data), true);
      return;
    case RemoteKind::kGet:
      Move(place, fetched, false);
      return;
    case RemoteKind::kAccumulate: {
      auto id = static_cast<OpId>(op.op);
      auto type = static_cast<DatatypeId>(op.datatype);
      const DatatypeInfo* info = FindPredefinedDatatype(type);
      if (info == nullptr || info->size == 0 || !ReductionDefined(id, type))
        throw Error(kErrIntern, "an accumulate of an undefined operation reached the master");
      std::byte* current = TargetCopy().Get(op.bytes);
      Move(place, current, false);
      if (op.fetch) std::memcpy(fetched, current, op.bytes);
      if (id != OpId::kNoOp) {
        if (op.data_bytes != op.bytes) throw Error(kErrIntern, "an accumulate's data miscounted");
        Reduce(id, type, data, current, op.bytes / info->size);
        Move(place, current, true);
      }
      return;
    }
    case RemoteKind::kCompareAndSwap: {
      if (op.data_bytes != 2 * op.bytes) throw Error(kErrIntern, "a compare-and-swap miscounted");
      Move(place, fetched, false);
      if (std::memcmp(fetched, data, op.bytes) == 0)
        Move(place, const_cast<std::byte*>(data + op.bytes), true);
      return;
    }
    default:
      throw Error(kErrIntern, "an unknown one-sided operation reached the master");
  }
}

void Fail(Outcome* out, const Error& error) {
  if (out->reply.error != 0) return;
  out->reply.error = error.error_class();
  std::strncpy(out->reply.text, error.what(), sizeof out->reply.text - 1);
}

// The records of a batch; throws for a malformed one.
std::vector<Record> Parse(const std::byte* packet, std::size_t bytes) {
  std::vector<Record> records;
  std::size_t at = 0;
  while (at < bytes) {
    Record record;
    RemoteOp& op = record.op;
    if (bytes - at < sizeof op) throw Error(kErrIntern, "a one-sided operation too short");
    std::memcpy(&op, packet + at, sizeof op);
    std::size_t left = bytes - at - sizeof op;
    if (op.runs > left / sizeof(TargetRun) || op.data_bytes > left - op.runs * sizeof(TargetRun))
      throw Error(kErrIntern, "a malformed one-sided operation");
    record.runs.resize(op.runs);
    if (op.runs > 0)
      std::memcpy(record.runs.data(), packet + at + sizeof op, op.runs * sizeof(TargetRun));
    record.data = packet + at + sizeof op + op.runs * sizeof(TargetRun);
    at += sizeof op + op.runs * sizeof(TargetRun) + op.data_bytes;
    bool fetches = op.kind == RemoteKind::kGet || op.kind == RemoteKind::kCompareAndSwap ||
                   (op.kind == RemoteKind::kAccumulate && op.fetch != 0);
    if (fetches) record.fetched = op.bytes;
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace

std::byte* PacketBuffer(std::size_t bytes) {
  static Scratch scratch;
  scratch.Trim();
  return scratch.Get(bytes);
}

void ApplyRemoteOp(const SpillDir& spill_dir, const std::byte* packet, std::size_t bytes,
                   const AnswerBuffer& answer_buffer) {
  Outcome out;
  std::vector<Record> records;
  std::uint64_t fetch_total = 0;
  FileMapping* file = nullptr;
  std::size_t room_for_granted = 0;
  try {
    records = Parse(packet, bytes);
    for (const Record& record : records) fetch_total += record.fetched;
    // Every record of a batch names the same window's file and target.
    if (!records.empty()) {
      file = &MappingFor(spill_dir, records.front().op);
      if (records.front().op.slot < 0 ||
          records.front().op.slot >= file->control()->local_ranks)
        throw Error(kErrIntern, "a one-sided operation names no rank of its window's file");
      if (records.back().op.kind == RemoteKind::kUnlock)
        room_for_granted = static_cast<std::size_t>(file->control()->window_size);
    }
  } catch (const Error& error) {
    Fail(&out, error);
    records.clear();
    fetch_total = 0;
  }
  std::byte* answer =
      answer_buffer(sizeof out.reply + fetch_total + room_for_granted * sizeof(int));
  out.fetched = answer + sizeof out.reply;
  for (const Record& record : records) {
    // After an error only the unlock is applied: the origin's epoch ends.
    if (out.reply.error != 0 && record.op.kind != RemoteKind::kUnlock) continue;
    try {
      if (record.op.kind == RemoteKind::kLock) {
        Held held(file->control());
        if (!rma::TakeOrQueue(file->data(), record.op.slot, record.op.rank,
                              record.op.exclusive != 0)) {
          // The origin waits for the grant, then sends the rest again.
          out.reply.lock_queued = 1;
          break;
        }
        continue;
      }
      Apply(*file, record, &out);
    } catch (const Error& error) {
      // The origin raises it, as it would an error on its own node.
      Fail(&out, error);
    }
  }
  TargetCopy().Trim();
  out.reply.fetched = fetch_total;
  out.reply.granted = out.granted.size();
  if (out.granted.size() > room_for_granted) throw Error(kErrIntern, "an unlock granted too many");
  std::memcpy(answer, &out.reply, sizeof out.reply);
  if (!out.granted.empty())
    std::memcpy(answer + sizeof out.reply + fetch_total, out.granted.data(),
                out.granted.size() * sizeof(int));
}

}  // namespace bdmpi
