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
  }
  ~FileMapping() { munmap(data_, bytes_); }
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  char* data() const { return data_; }
  std::uint64_t bytes() const { return bytes_; }
  rma::ControlBlock* control() const { return reinterpret_cast<rma::ControlBlock*>(data_); }

 private:
  char* data_ = nullptr;
  std::uint64_t bytes_ = 0;
};

class Held {
 public:
  explicit Held(rma::ControlBlock* control) : control_(control) { rma::LockControl(control_); }
  ~Held() { pthread_mutex_unlock(&control_->mutex); }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;

 private:
  rma::ControlBlock* control_;
};

// The target's bytes: runs in the mapping, or in the target's process.
struct Place {
  std::vector<iovec> runs;
  pid_t pid = 0;  // 0: in the mapping
};

void Move(const Place& place, std::byte* local, bool to_target) {
  int err = MoveRuns(place.pid, place.runs.data(), place.runs.size(), local, to_target);
  if (err != 0)
    throw Error(err == EFAULT ? kErrRmaRange : kErrOther,
                std::string(to_target ? "writing" : "reading") +
                    " the target's memory failed (on its master): " + std::strerror(err));
}

// What a batch's records produce, in order.
struct Outcome {
  RemoteReply reply;
  std::vector<std::byte> fetched;
  std::vector<int> granted;
};

// Applies one record (not a lock). Errors of the operation are thrown.
void Apply(FileMapping& file, const RemoteOp& op, const TargetRun* runs, const std::byte* data,
           Outcome* out) {
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
      place.runs.push_back(iovec{file.data() + at, runs[i].length});
    } else {
      place.runs.push_back(iovec{reinterpret_cast<void*>(at), runs[i].length});
    }
  }
  if (total != op.bytes) throw Error(kErrIntern, "a one-sided operation's runs miscounted");
  if (!op.in_file) place.pid = op.pid;
  // As on the target's node: accumulates are atomic under the mutex, and
  // program memory is written back by its rank under it.
  bool accumulate = op.kind == RemoteKind::kAccumulate || op.kind == RemoteKind::kCompareAndSwap;
  std::optional<Held> held;
  if (accumulate || place.pid != 0 || op.dynamic) held.emplace(control);
  if (op.dynamic && op.bytes > 0 && !rma::InAttachedRegion(file.data(), op.slot, lo, hi))
    throw Error(kErrRmaRange, "address " + std::to_string(lo) + " (+" + std::to_string(hi - lo) +
                                  " bytes) is in no region rank " + std::to_string(op.target) +
                                  " attached to the dynamic window");
  std::vector<std::byte>& fetched = out->fetched;
  std::size_t at = fetched.size();
  switch (op.kind) {
    case RemoteKind::kPut:
      if (op.data_bytes != op.bytes) throw Error(kErrIntern, "a put's data miscounted");
      Move(place, const_cast<std::byte*>(data), true);
      return;
    case RemoteKind::kGet:
      fetched.resize(at + op.bytes);
      Move(place, fetched.data() + at, false);
      return;
    case RemoteKind::kAccumulate: {
      auto id = static_cast<OpId>(op.op);
      auto type = static_cast<DatatypeId>(op.datatype);
      const DatatypeInfo* info = FindPredefinedDatatype(type);
      if (info == nullptr || info->size == 0 || !ReductionDefined(id, type))
        throw Error(kErrIntern, "an accumulate of an undefined operation reached the master");
      std::vector<std::byte> current(op.bytes);
      Move(place, current.data(), false);
      if (op.fetch) fetched.insert(fetched.end(), current.begin(), current.end());
      if (id != OpId::kNoOp) {
        if (op.data_bytes != op.bytes) throw Error(kErrIntern, "an accumulate's data miscounted");
        Reduce(id, type, data, current.data(), op.bytes / info->size);
        Move(place, current.data(), true);
      }
      return;
    }
    case RemoteKind::kCompareAndSwap: {
      if (op.data_bytes != 2 * op.bytes) throw Error(kErrIntern, "a compare-and-swap miscounted");
      fetched.resize(at + op.bytes);
      Move(place, fetched.data() + at, false);
      if (std::memcmp(fetched.data() + at, data, op.bytes) == 0)
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

}  // namespace

std::vector<std::byte> ApplyRemoteOp(const SpillDir& spill_dir, const std::byte* packet,
                                     std::size_t bytes) {
  Outcome out;
  // Every record of a batch names the same window's file and target.
  std::optional<FileMapping> file;
  std::size_t at = 0;
  while (at < bytes) {
    RemoteOp op;
    std::vector<TargetRun> runs;
    const std::byte* data = nullptr;
    try {
      if (bytes - at < sizeof op) throw Error(kErrIntern, "a one-sided operation too short");
      std::memcpy(&op, packet + at, sizeof op);
      std::size_t left = bytes - at - sizeof op;
      if (op.runs > left / sizeof(TargetRun) ||
          op.data_bytes > left - op.runs * sizeof(TargetRun))
        throw Error(kErrIntern, "a malformed one-sided operation");
      runs.resize(op.runs);
      if (op.runs > 0)
        std::memcpy(runs.data(), packet + at + sizeof op, op.runs * sizeof(TargetRun));
      data = packet + at + sizeof op + op.runs * sizeof(TargetRun);
      at += sizeof op + op.runs * sizeof(TargetRun) + op.data_bytes;
    } catch (const Error& error) {
      Fail(&out, error);
      break;
    }
    // After an error only the unlock is applied: the origin's epoch ends.
    if (out.reply.error != 0 && op.kind != RemoteKind::kUnlock) continue;
    try {
      if (!file) {
        file.emplace(spill_dir, op);
        if (op.slot < 0 || op.slot >= file->control()->local_ranks)
          throw Error(kErrIntern, "a one-sided operation names no rank of its window's file");
      }
      if (op.kind == RemoteKind::kLock) {
        Held held(file->control());
        if (!rma::TakeOrQueue(file->data(), op.slot, op.rank, op.exclusive != 0)) {
          // The origin waits for the grant, then sends the rest again.
          out.reply.lock_queued = 1;
          break;
        }
        continue;
      }
      Apply(*file, op, runs.data(), data, &out);
    } catch (const Error& error) {
      // The origin raises it, as it would an error on its own node.
      Fail(&out, error);
      if (!file) break;
    }
  }
  out.reply.fetched = out.fetched.size();
  out.reply.granted = out.granted.size();
  std::vector<std::byte> answer(sizeof out.reply + out.fetched.size() +
                                out.granted.size() * sizeof(int));
  std::memcpy(answer.data(), &out.reply, sizeof out.reply);
  if (!out.fetched.empty())
    std::memcpy(answer.data() + sizeof out.reply, out.fetched.data(), out.fetched.size());
  if (!out.granted.empty())
    std::memcpy(answer.data() + sizeof out.reply + out.fetched.size(), out.granted.data(),
                out.granted.size() * sizeof(int));
  return answer;
}

}  // namespace bdmpi
