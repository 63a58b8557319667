// RMA communication calls; see operations.h.
#include "slave/rma/operations.h"

#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/process_memory.h"
#include "common/handles.h"
#include "common/reduce.h"
#include "slave/datatype/datatypes.h"
#include "slave/rma/remote.h"

namespace bdmpi::rma {
namespace {

// The bytes of `count` elements of a type at some address, in type-map
// order: the runs an element is made of, for each element.
std::vector<iovec> RunsAt(std::uint64_t address, int count, const TypeInfo& type) {
  std::vector<iovec> runs;
  // Contiguous elements are one run (the loop below would merge them one
  // element at a time: 0.6 ms for 1 MiB of doubles).
  if (type.Dense()) {
    runs.push_back(iovec{reinterpret_cast<void*>(address),
                         static_cast<std::size_t>(count) * type.size});
    return runs;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    ForEachRun(type.runs, i * type.extent, [&](std::int64_t offset, std::uint64_t length) {
      std::uint64_t at = address + static_cast<std::uint64_t>(offset);
      if (!runs.empty() && reinterpret_cast<std::uint64_t>(runs.back().iov_base) +
                                   runs.back().iov_len == at) {
        runs.back().iov_len += length;
      } else {
        runs.push_back(iovec{reinterpret_cast<void*>(at), length});
      }
      return true;
    });
  }
  return runs;
}

// Where an operation's target bytes are: in this process (the node's file
// or this rank's own memory), in another process (pid), or in the node's
// file reached through its descriptor (fd: the runs are addresses in the
// mapping, at their offsets in the file).
struct Target {
  std::vector<iovec> runs;
  pid_t pid = 0;  // 0: the runs are addresses of this process
  int fd = -1;    // >= 0: reach them in this file instead
  const char* mapping = nullptr;
  std::uint64_t bytes = 0;
};

// [lo, hi) relative to the target address: what `count` elements touch.
void Extent(const TypeInfo& type, int count, std::int64_t* lo, std::int64_t* hi) {
  if (count == 0 || type.size == 0) {
    *lo = *hi = 0;
    return;
  }
  std::int64_t last = static_cast<std::int64_t>(count - 1) * type.extent;
  *lo = type.true_lb + std::min<std::int64_t>(0, last);
  *hi = type.true_lb + static_cast<std::int64_t>(type.true_extent) + std::max<std::int64_t>(0, last);
}

std::string Describe(int target, std::int64_t lo, std::int64_t hi, std::uint64_t size) {
  return "bytes [" + std::to_string(lo) + ", " + std::to_string(hi) + ") of rank " +
         std::to_string(target) + "'s window of " + std::to_string(size) + " bytes";
}

Target Resolve(Window& win, int target, MPI_Aint disp, int count, const TypeInfo& type) {
  const Peer& peer = win.peers[static_cast<std::size_t>(target)];
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  Extent(type, count, &lo, &hi);
  Target where;
  where.bytes = static_cast<std::uint64_t>(count) * type.size;
  std::uint64_t address = 0;
  if (win.flavor == Flavor::kDynamic) {
    // The displacement is an address in the target: it must lie in a
    // region the target attached.
    address = static_cast<std::uint64_t>(disp);
    if (where.bytes > 0) {
      ControlLock lock(win.control);
      const TargetState& state = StateOf(win, peer.slot);
      const Region* regions = RegionsOf(win, peer.slot);
      bool inside = false;
      for (int i = 0; i < state.attached && !inside; ++i) {
        const Region& r = regions[i];
        inside = static_cast<std::int64_t>(address) + lo >= static_cast<std::int64_t>(r.base) &&
                 static_cast<std::int64_t>(address) + hi <=
                     static_cast<std::int64_t>(r.base + r.size);
      }
      if (!inside)
        throw Error(MPI_ERR_RMA_RANGE, "address " + std::to_string(address) + " (+" +
                                           std::to_string(hi) + " bytes) is in no region rank " +
                                           std::to_string(target) +
                                           " attached to the dynamic window");
    }
    if (target != win.rank) where.pid = peer.pid;
  } else {
    std::int64_t offset = static_cast<std::int64_t>(disp) * peer.disp_unit;
    if (where.bytes > 0 &&
        (offset + lo < 0 || offset + hi > static_cast<std::int64_t>(peer.size)))
      throw Error(MPI_ERR_RMA_RANGE,
                  "the operation touches " + Describe(target, offset + lo, offset + hi, peer.size));
    if (peer.offset >= 0) {
      address = reinterpret_cast<std::uint64_t>(win.mapping + peer.offset + offset);
      if (win.flavor == Flavor::kAllocate && target != win.rank && where.bytes > 0) {
        // A switched-out target's memory is reached in the file, so that
        // no mapping of this rank keeps its pages in memory; a resident
        // one's through the mapping, whose pages this rank drops at its
        // own switch-out (window.h, ReleaseWindowMemory). Either way the
        // page cache is the one copy: a race with the target's switch-out
        // or switch-in changes the path, not the bytes.
        if (std::atomic_ref<std::uint32_t>(StateOf(win, peer.slot).released)
                .load(std::memory_order_acquire) != 0) {
          where.fd = win.file.get();
          where.mapping = win.mapping;
        } else {
          win.mapped[static_cast<std::size_t>(peer.slot)] = true;
        }
      }
    } else {
      address = peer.base + static_cast<std::uint64_t>(offset);
      if (target != win.rank) where.pid = peer.pid;
    }
  }
  if (where.bytes > 0) where.runs = RunsAt(address, count, type);
  return where;
}

// An operation on a target of another node: checked here as Resolve
// checks it (but a dynamic window's regions, which the target's master
// checks), its runs relative to the op's base.
RemoteOp ResolveRemote(Window& win, RemoteKind kind, int target, MPI_Aint disp, int count,
                       const TypeInfo& type, std::vector<TargetRun>* runs) {
  const Peer& peer = win.peers[static_cast<std::size_t>(target)];
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  Extent(type, count, &lo, &hi);
  RemoteOp op = RemoteOpFor(win, kind, target);
  op.bytes = static_cast<std::uint64_t>(count) * type.size;
  if (win.flavor == Flavor::kDynamic) {
    op.dynamic = 1;
    op.base = static_cast<std::uint64_t>(disp);
  } else {
    std::int64_t offset = static_cast<std::int64_t>(disp) * peer.disp_unit;
    if (op.bytes > 0 && (offset + lo < 0 || offset + hi > static_cast<std::int64_t>(peer.size)))
      throw Error(MPI_ERR_RMA_RANGE,
                  "the operation touches " + Describe(target, offset + lo, offset + hi, peer.size));
    if (peer.offset >= 0) {
      op.in_file = 1;
      op.base = static_cast<std::uint64_t>(peer.offset + offset);
    } else {
      op.base = peer.base + static_cast<std::uint64_t>(offset);
    }
  }
  if (op.bytes > 0) {
    for (const iovec& run : RunsAt(0, count, type))
      runs->push_back(TargetRun{reinterpret_cast<std::uint64_t>(run.iov_base), run.iov_len});
  }
  return op;
}

[[noreturn]] void TransferFailed(const char* what, int err) {
  throw Error(err == EFAULT ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER,
              std::string(what) + " the target's memory failed: " + std::strerror(err) +
                  (err == EPERM ? " (the kernel forbids reading other processes: Yama's "
                                  "ptrace_scope above 1; use MPI_Win_allocate or "
                                  "MPI_Win_allocate_shared)"
                                : ""));
}

// Moves where.bytes between `local` and the target's runs: into the target
// when `to_target`, else out of it.
void Transfer(const Target& where, std::byte* local, bool to_target) {
  int err = 0;
  if (where.fd >= 0) {
    std::vector<TargetRun> runs;
    runs.reserve(where.runs.size());
    for (const iovec& run : where.runs)
      runs.push_back(TargetRun{static_cast<std::uint64_t>(
                                   static_cast<const char*>(run.iov_base) - where.mapping),
                               run.iov_len});
    err = MoveFileRuns(where.fd, 0, runs.data(), runs.size(), local, to_target);
  } else {
    err = MoveRuns(where.pid, where.runs.data(), where.runs.size(), local, to_target);
  }
  if (err != 0) TransferFailed(to_target ? "writing" : "reading", err);
}

// Copies the target's bytes into `out` (where.bytes of them).
void ReadTarget(const Target& where, std::byte* out) { Transfer(where, out, false); }

void WriteTarget(const Target& where, const std::byte* in) {
  Transfer(where, const_cast<std::byte*>(in), true);
}

void CheckTarget(const Window& win, int target) {
  if (target < 0 || target >= win.size)
    throw Error(MPI_ERR_RANK, "target rank " + std::to_string(target) + " is not in the window (" +
                                  std::to_string(win.size) + " ranks)");
}

// The same number of bytes on both sides; types whose signatures differ
// otherwise are the program's error, as in a message.
void CheckSizes(std::uint64_t origin, std::uint64_t target, const char* what) {
  if (origin != target)
    throw Error(MPI_ERR_TYPE, std::string(what) + ": the origin gives " + std::to_string(origin) +
                                  " bytes, the target's datatype takes " +
                                  std::to_string(target));
}

OpId PredefinedOp(MPI_Op op) {
  if (!HandleIs(op, HandleKind::kOp) || HandleIndex(op) <= 0 ||
      HandleIndex(op) >= static_cast<int>(OpId::kPredefinedEnd))
    throw Error(MPI_ERR_OP, "one-sided accumulates take predefined operations and "
                            "MPI_REPLACE / MPI_NO_OP only");
  return static_cast<OpId>(HandleIndex(op));
}

// The predefined type an accumulate works on: a type made of one
// predefined type only (MPI-3.1 11.3.4).
DatatypeId AccumulateBase(const TypeInfo& type, const char* side) {
  if (type.mixed || type.base == DatatypeId::kNull)
    throw Error(MPI_ERR_TYPE, std::string("the ") + side +
                                  " datatype of an accumulate must be made of one predefined "
                                  "type");
  return type.base;
}

// Holds the control block's lock for an operation that needs it: every
// accumulate (atomicity), and every access to another process's program
// memory (against its switch-out, window.h).
std::optional<ControlLock> LockFor(Window& win, const Target& where, bool accumulate) {
  if (accumulate || where.pid != 0) return std::optional<ControlLock>(std::in_place, win.control);
  return std::nullopt;
}

// Where a fetching operation on another node's target puts its answer,
// when its batch completes: the type is kept (the program may free it
// meanwhile) unless the buffer takes the bytes as they come.
RemoteFetch FetchInto(void* buffer, int count, const TypeInfo& type, std::uint64_t bytes) {
  RemoteFetch fetch;
  fetch.buffer = buffer;
  fetch.count = count;
  if (!type.Dense()) fetch.type = std::make_shared<const TypeInfo>(type);
  fetch.bytes = bytes;
  return fetch;
}

// A buffer for packed elements, left uninitialised (it is written whole
// before it is read).
std::unique_ptr<std::byte[]> Staging(std::uint64_t bytes) {
  return std::unique_ptr<std::byte[]>(new std::byte[bytes]);
}

}  // namespace

void CheckEpoch(const Window& win, int target) {
  if (win.fence_epoch || win.lock_all || win.locks.count(target) != 0) return;
  if (win.started &&
      std::find(win.access_group.begin(), win.access_group.end(), target) != win.access_group.end())
    return;
  throw Error(MPI_ERR_RMA_SYNC,
              "no access epoch to rank " + std::to_string(target) +
                  " is open: call MPI_Win_fence, MPI_Win_start, MPI_Win_lock or "
                  "MPI_Win_lock_all first");
}

namespace {

// What MPI_Put and MPI_Get check before they move data: the types, the
// target, its epoch and the sizes. Sets `otype` and returns where the
// data goes; nullopt when nothing moves here (MPI_PROC_NULL, no bytes, or
// a target of another node: then *remote holds the operation).
std::optional<Target> Prepare(Window& win, int origin_count, MPI_Datatype origin_type,
                              int target, MPI_Aint disp, int target_count,
                              MPI_Datatype target_type, const char* call, RemoteKind kind,
                              const TypeInfo** otype, std::optional<RemoteOp>* remote,
                              std::vector<TargetRun>* runs) {
  *otype = &CommType(origin_count, origin_type);
  const TypeInfo& ttype = CommType(target_count, target_type);
  if (target == MPI_PROC_NULL) return std::nullopt;
  CheckTarget(win, target);
  CheckEpoch(win, target);
  CheckSizes(origin_count * (*otype)->size, target_count * ttype.size, call);
  if (OnOtherNode(win, target)) {
    RemoteOp op = ResolveRemote(win, kind, target, disp, target_count, ttype, runs);
    if (op.bytes > 0) *remote = op;
    return std::nullopt;
  }
  Target where = Resolve(win, target, disp, target_count, ttype);
  if (where.bytes == 0) return std::nullopt;
  return where;
}

}  // namespace

void Put(Window& win, const void* origin, int origin_count, MPI_Datatype origin_type, int target,
         MPI_Aint disp, int target_count, MPI_Datatype target_type) {
  const TypeInfo* otype_found = nullptr;
  std::optional<RemoteOp> remote;
  std::vector<TargetRun> runs;
  std::optional<Target> found =
      Prepare(win, origin_count, origin_type, target, disp, target_count, target_type, "MPI_Put",
              RemoteKind::kPut, &otype_found, &remote, &runs);
  if (!found && !remote) return;
  const TypeInfo& otype = *otype_found;
  std::uint64_t bytes = found ? found->bytes : remote->bytes;
  // A dense origin is its own wire form: no staging copy.
  std::unique_ptr<std::byte[]> staged;
  const std::byte* data = static_cast<const std::byte*>(origin);
  if (!otype.Dense()) {
    staged = Staging(bytes);
    PackElements(origin, origin_count, otype, staged.get());
    data = staged.get();
  }
  if (remote) {
    remote->data_bytes = bytes;
    Enqueue(win, *remote, runs, data, RemoteFetch{});
    return;
  }
  const Target& where = *found;
  auto lock = LockFor(win, where, false);
  WriteTarget(where, data);
}

void Get(Window& win, void* origin, int origin_count, MPI_Datatype origin_type, int target,
         MPI_Aint disp, int target_count, MPI_Datatype target_type) {
  const TypeInfo* otype_found = nullptr;
  std::optional<RemoteOp> remote;
  std::vector<TargetRun> runs;
  std::optional<Target> found =
      Prepare(win, origin_count, origin_type, target, disp, target_count, target_type, "MPI_Get",
              RemoteKind::kGet, &otype_found, &remote, &runs);
  if (!found && !remote) return;
  const TypeInfo& otype = *otype_found;
  if (remote) {
    Enqueue(win, *remote, runs, nullptr, FetchInto(origin, origin_count, otype, remote->bytes));
    return;
  }
  const Target& where = *found;
  if (otype.Dense()) {
    auto lock = LockFor(win, where, false);
    ReadTarget(where, static_cast<std::byte*>(origin));
    return;
  }
  std::unique_ptr<std::byte[]> data = Staging(where.bytes);
  {
    auto lock = LockFor(win, where, false);
    ReadTarget(where, data.get());
  }
  UnpackElements(data.get(), where.bytes, origin, origin_count, otype);
}

void GetAccumulate(Window& win, const void* origin, int origin_count, MPI_Datatype origin_type,
                   void* result, int result_count, MPI_Datatype result_type, int target,
                   MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Op op) {
  OpId id = PredefinedOp(op);
  const TypeInfo& ttype = CommType(target_count, target_type);
  const TypeInfo* otype = nullptr;
  if (id != OpId::kNoOp) otype = &CommType(origin_count, origin_type);
  const TypeInfo* rtype = result != nullptr ? &CommType(result_count, result_type) : nullptr;
  if (target == MPI_PROC_NULL) return;
  CheckTarget(win, target);
  CheckEpoch(win, target);
  DatatypeId base = AccumulateBase(ttype, "target");
  const char* call = result != nullptr ? "MPI_Get_accumulate" : "MPI_Accumulate";
  if (otype != nullptr) {
    if (AccumulateBase(*otype, "origin") != base)
      throw Error(MPI_ERR_TYPE, std::string(call) +
                                    ": the origin's and the target's datatypes are made of "
                                    "different predefined types");
    CheckSizes(origin_count * otype->size, target_count * ttype.size, call);
  }
  if (rtype != nullptr) {
    if (AccumulateBase(*rtype, "result") != base)
      throw Error(MPI_ERR_TYPE, std::string(call) +
                                    ": the result's and the target's datatypes are made of "
                                    "different predefined types");
    CheckSizes(result_count * rtype->size, target_count * ttype.size, call);
  }
  // MPI_CHAR is no integer to MPI_Reduce, but Open MPI's and MPICH's
  // accumulates take it as one (MPICH's fetch_and_op_char tests it).
  if (base == DatatypeId::kChar) base = DatatypeId::kSignedChar;
  // No element, no reduction: Open MPI and MPICH take any predefined
  // operation then (mpi4py fetches nothing with MPI_SUM on MPI_BYTE).
  if (target_count != 0 && !ReductionDefined(id, base))
    throw Error(MPI_ERR_OP, std::string(call) + ": the operation is not defined on " +
                                FindPredefinedDatatype(base)->name);
  if (OnOtherNode(win, target)) {
    std::vector<TargetRun> runs;
    RemoteOp remote =
        ResolveRemote(win, RemoteKind::kAccumulate, target, disp, target_count, ttype, &runs);
    if (remote.bytes == 0) return;
    remote.datatype = static_cast<std::uint16_t>(base);
    remote.op = static_cast<std::uint16_t>(id);
    remote.fetch = rtype != nullptr ? 1 : 0;
    std::unique_ptr<std::byte[]> staged;
    const std::byte* in = static_cast<const std::byte*>(origin);
    if (otype != nullptr && !otype->Dense()) {
      staged = Staging(remote.bytes);
      PackElements(origin, origin_count, *otype, staged.get());
      in = staged.get();
    }
    remote.data_bytes = id != OpId::kNoOp ? remote.bytes : 0;
    Enqueue(win, remote, runs, in,
            rtype != nullptr ? FetchInto(result, result_count, *rtype, remote.bytes)
                             : RemoteFetch{});
    return;
  }
  Target where = Resolve(win, target, disp, target_count, ttype);
  if (where.bytes == 0) return;
  std::unique_ptr<std::byte[]> staged_in;
  const std::byte* in = static_cast<const std::byte*>(origin);
  if (otype != nullptr && !otype->Dense()) {
    staged_in = Staging(where.bytes);
    PackElements(origin, origin_count, *otype, staged_in.get());
    in = staged_in.get();
  }
  std::size_t elements = where.bytes / FindPredefinedDatatype(base)->size;
  auto lock = LockFor(win, where, true);
  // Target bytes in one run of this process (the node's file, or this
  // rank's own memory): combined in place.
  if (where.pid == 0 && where.fd < 0 && where.runs.size() == 1) {
    auto* target_bytes = static_cast<std::byte*>(where.runs[0].iov_base);
    if (rtype != nullptr) UnpackElements(target_bytes, where.bytes, result, result_count, *rtype);
    if (id != OpId::kNoOp) Reduce(id, base, in, target_bytes, elements);
    return;
  }
  std::unique_ptr<std::byte[]> current = Staging(where.bytes);
  ReadTarget(where, current.get());
  if (rtype != nullptr) UnpackElements(current.get(), where.bytes, result, result_count, *rtype);
  if (id != OpId::kNoOp) {
    Reduce(id, base, in, current.get(), elements);
    WriteTarget(where, current.get());
  }
}

void CompareAndSwap(Window& win, const void* origin, const void* compare, void* result,
                    MPI_Datatype type, int target, MPI_Aint disp) {
  const TypeInfo& info = CommType(1, type);
  if (!info.predefined)
    throw Error(MPI_ERR_TYPE, "MPI_Compare_and_swap takes a predefined datatype");
  if (target == MPI_PROC_NULL) return;
  CheckTarget(win, target);
  CheckEpoch(win, target);
  if (OnOtherNode(win, target)) {
    std::vector<TargetRun> runs;
    RemoteOp op = ResolveRemote(win, RemoteKind::kCompareAndSwap, target, disp, 1, info, &runs);
    std::vector<std::byte> data(2 * op.bytes);
    PackElements(compare, 1, info, data.data());
    PackElements(origin, 1, info, data.data() + op.bytes);
    op.data_bytes = data.size();
    Enqueue(win, op, runs, data.data(), FetchInto(result, 1, info, op.bytes));
    return;
  }
  Target where = Resolve(win, target, disp, 1, info);
  std::vector<std::byte> current(where.bytes);
  std::vector<std::byte> expected(where.bytes);
  std::vector<std::byte> value(where.bytes);
  PackElements(compare, 1, info, expected.data());
  PackElements(origin, 1, info, value.data());
  {
    auto lock = LockFor(win, where, true);
    ReadTarget(where, current.data());
    if (std::memcmp(current.data(), expected.data(), where.bytes) == 0)
      WriteTarget(where, value.data());
  }
  UnpackElements(current.data(), where.bytes, result, 1, info);
}

}  // namespace bdmpi::rma
