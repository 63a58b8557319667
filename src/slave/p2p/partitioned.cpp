// Partitioned point-to-point; see partitioned.h.
#include "slave/p2p/partitioned.h"

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/datatype/datatypes.h"
#include "slave/p2p/p2p_internal.h"
#include "slave/p2p/wire_data.h"
#include "slave/request/completion.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

constexpr int kTagBase = std::numeric_limits<int>::min();

class PartitionedRequest : public Request {
 public:
  using Request::Request;
  ~PartitionedRequest() override {
    if (owns_type) FreeType(&datatype);
  }

  bool is_recv = false;
  void* buffer = nullptr;  // const for a send
  int partitions = 0;
  int count = 0;  // elements in all partitions
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  bool owns_type = false;  // a duplicate of a derived type
  std::shared_ptr<const TypeInfo> layout;  // a receive's, for a type with gaps
  std::uint64_t capacity = 0;
  int peer = 0;
  int tag = 0;
  // Its place among this side's partitioned inits of its envelope: MPI
  // pairs the n-th send of an envelope with the n-th receive, whatever
  // order they are started or made ready in.
  std::uint32_t ordinal = 0;
  // A send's partitions marked ready since its MPI_Start.
  std::vector<bool> ready;
  int ready_count = 0;

  // A send completes when its partitions are ready, which only this rank's
  // MPI_Pready calls do.
  bool CompletesOutsideMaster() const override { return !is_recv; }
  bool Poll() override { return done; }
  void Await() override {
    if (!done)
      throw Error(kErrRequest,
                  "waiting for a partitioned send with " + std::to_string(partitions - ready_count) +
                      " of its " + std::to_string(partitions) +
                      " partitions not marked ready (MPI_Pready): it would never complete");
  }

  void Start() override {
    active = true;
    SetEmptyStatus(&status);
    if (!is_recv) {
      ready.assign(static_cast<std::size_t>(partitions), false);
      ready_count = 0;
      done = peer == MPI_PROC_NULL || partitions == 0;
      if (done && peer != MPI_PROC_NULL) Send();
      return;
    }
    if (peer == MPI_PROC_NULL) {
      done = true;
      SetStatus(&status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
      return;
    }
    done = false;
    const CommInfo& info = LookupComm(comm);
    Runtime* runtime = Runtime::Instance();
    id = runtime->NewRecvId();
    RequestMsg request = RecvRequest(MsgType::kPostRecv, info, peer, kTagBase + tag, capacity, id);
    request.comm = CollectiveCommId(info.id);
    MatchOrdinal{ordinal}.Into(request);
    runtime->Post(request);
  }

  void Absorb(const ReplyMsg& reply) override {
    const CommInfo* info = FindComm(comm);  // the program may have freed it
    FinishRecv(reply, buffer, count, layout.get(), capacity, &status, info);
    // The status shows the program's tag, not the wire's.
    if (status.MPI_TAG != MPI_ANY_TAG) status.MPI_TAG = tag;
    done = true;
  }

  void Cancel() override {
    throw Error(kErrRequest, "MPI_Cancel of a partitioned request: MPI does not allow it");
  }

  bool Free() override {
    if (is_recv) return Request::Free();
    return true;  // a send not sent yet holds nothing of the master's
  }

  void MarkReady(int partition) {
    if (is_recv) throw Error(kErrRequest, "MPI_Pready on a partitioned receive");
    if (!active) throw Error(kErrRequest, "MPI_Pready on an inactive request (call MPI_Start first)");
    if (partition < 0 || partition >= partitions)
      throw Error(kErrArg, "partition " + std::to_string(partition) + " is not in [0, " +
                               std::to_string(partitions) + ")");
    if (ready[static_cast<std::size_t>(partition)])
      throw Error(kErrArg, "partition " + std::to_string(partition) +
                               " is marked ready twice since MPI_Start");
    ready[static_cast<std::size_t>(partition)] = true;
    if (++ready_count == partitions && peer != MPI_PROC_NULL) Send();
  }

 private:
  void Send() {
    const CommInfo& info = LookupComm(comm);
    WireData wire = ToWire(buffer, count, datatype);
    Runtime* runtime = Runtime::Instance();
    RequestMsg request;
    request.type = MsgType::kSend;
    request.comm = CollectiveCommId(info.id);
    request.rank = info.WireRank();
    request.peer = info.WirePeer(peer);
    request.tag = kTagBase + tag;
    MatchOrdinal{ordinal}.Into(request);
    runtime->StagePayload(wire.data, wire.bytes, request);
    runtime->PostStaged(request);
    done = true;
  }
};

// The next ordinal of a partitioned init of (communicator, peer, tag) on
// one side. Never taken back: a freed request keeps its place, as its
// partner on the other side keeps its own.
std::uint32_t NextPartitionedOrdinal(bool is_recv, std::int32_t comm_id, int peer, int tag) {
  static std::map<std::tuple<bool, std::int32_t, int, int>, std::uint32_t> counts;
  return counts[{is_recv, comm_id, peer, tag}]++;
}

// The checks both sides share; returns the elements in all partitions.
int CheckPartitioned(int partitions, MPI_Count count, MPI_Datatype datatype, int tag,
                     MPI_Info info) {
  CheckInfoArgument(info);
  if (partitions < 0)
    throw Error(kErrArg, "negative number of partitions " + std::to_string(partitions));
  if (count < 0) throw Error(kErrCount, "negative count " + std::to_string(count));
  if (tag < 0 || tag == std::numeric_limits<int>::max())
    throw Error(kErrTag, "tag " + std::to_string(tag) +
                             (tag < 0 ? " is negative"
                                      : " is MPI_TAG_UB, which partitioned communication "
                                        "reserves (use a smaller tag)"));
  MPI_Count total = count * partitions;
  if ((partitions > 0 && total / partitions != count) || total > std::numeric_limits<int>::max())
    throw Error(kErrCount, std::to_string(partitions) + " partitions of " +
                               std::to_string(count) +
                               " elements exceed the 2^31-1 elements one message may have");
  CommType(static_cast<int>(total), datatype);
  return static_cast<int>(total);
}

std::unique_ptr<PartitionedRequest> Make(bool is_recv, const void* buffer, int partitions,
                                         MPI_Count count, MPI_Datatype datatype, int peer,
                                         int tag, MPI_Comm comm_handle, MPI_Info info) {
  RequireInitialized();
  const CommInfo& comm = LookupComm(comm_handle);
  int total = CheckPartitioned(partitions, count, datatype, tag, info);
  if (is_recv) {
    CheckSource(comm, peer);
    if (peer == MPI_ANY_SOURCE)
      throw Error(kErrRank, "MPI_Precv_init takes no MPI_ANY_SOURCE: name the sender");
  } else if (peer != MPI_PROC_NULL && (peer < 0 || peer >= comm.PeerGroupSize())) {
    throw Error(kErrRank, "destination rank " + std::to_string(peer) + " is not in [0, " +
                              std::to_string(comm.PeerGroupSize()) + ")");
  }
  auto request = std::make_unique<PartitionedRequest>(comm_handle);
  request->is_recv = is_recv;
  request->buffer = const_cast<void*>(buffer);
  request->partitions = partitions;
  request->count = total;
  request->capacity = WireBytes(total, datatype);
  CheckBuffer(buffer, request->capacity, datatype);
  if (is_recv) {
    request->layout = ScatteredLayout(datatype);
  } else if (LookupType(datatype).envelope.combiner != MPI_COMBINER_NAMED) {
    // The program may free a derived type while the request lives.
    request->owns_type = true;
  }
  request->datatype = request->owns_type ? DupType(datatype) : datatype;
  request->peer = peer;
  request->tag = tag;
  if (peer != MPI_PROC_NULL) request->ordinal = NextPartitionedOrdinal(is_recv, comm.id, peer, tag);
  request->persistent = true;
  request->active = false;
  request->done = true;
  return request;
}

PartitionedRequest& LookupPartitioned(MPI_Request handle) {
  auto* request = dynamic_cast<PartitionedRequest*>(&LookupRequest(handle));
  if (request == nullptr)
    throw Error(kErrRequest, "not a partitioned request (MPI_Psend_init, MPI_Precv_init)");
  return *request;
}

}  // namespace

MPI_Request PsendInit(const void* buffer, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Info info) {
  return NewRequest(Make(false, buffer, partitions, count, datatype, dest, tag, comm, info));
}

MPI_Request PrecvInit(void* buffer, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Info info) {
  return NewRequest(Make(true, buffer, partitions, count, datatype, source, tag, comm, info));
}

void Pready(int low, int high, MPI_Request handle) {
  RequireInitialized();
  PartitionedRequest& request = LookupPartitioned(handle);
  if (low > high)
    throw Error(kErrArg, "partition range [" + std::to_string(low) + ", " +
                             std::to_string(high) + "] is empty");
  for (int partition = low; partition <= high; ++partition) request.MarkReady(partition);
}

void PreadyList(int length, const int partitions[], MPI_Request handle) {
  RequireInitialized();
  PartitionedRequest& request = LookupPartitioned(handle);
  if (length < 0) throw Error(kErrArg, "negative length " + std::to_string(length));
  for (int i = 0; i < length; ++i) request.MarkReady(partitions[i]);
}

bool Parrived(MPI_Request handle, int partition) {
  RequireInitialized();
  PartitionedRequest& request = LookupPartitioned(handle);
  if (!request.is_recv) throw Error(kErrRequest, "MPI_Parrived on a partitioned send");
  if (partition < 0 || partition >= request.partitions)
    throw Error(kErrArg, "partition " + std::to_string(partition) + " is not in [0, " +
                             std::to_string(request.partitions) + ")");
  // An inactive request has nothing in flight: what it received is there.
  if (!request.active) return true;
  int flag = 0;
  RequestGetStatus(handle, &flag, MPI_STATUS_IGNORE);
  return flag != 0;
}

}  // namespace bdmpi
