// Nonblocking communicator duplication; see comm_idup.h.
#include "slave/comm/comm_idup.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/protocol.h"
#include "slave/coll/nbc.h"
#include "slave/comm/attributes.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/cross_job_coll.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// What the master's completion carries (master/comm/idup_split.cpp): rank and
// size in the status, the new id and the members' world ranks as payload.
CommInfo Duplicate(const CommInfo& parent, const ReplyMsg& reply) {
  std::vector<std::int32_t> words(reply.bytes / sizeof(std::int32_t));
  Runtime::Instance()->FetchPayload(reply, words.data(), words.size() * sizeof(std::int32_t));
  BDMPI_ENFORCE(reply.flag && !words.empty(), "MPI_Comm_idup: the master made no communicator");
  CommInfo made;
  if (parent.inter) {
    // The same groups on a new hidden communicator (as IntercommDup).
    made = parent;
    made.name.clear();
  } else {
    // The completion's status is CommSplitReply's rank and size.
    CommSplitReply split = CommSplitReply::Of(reply);
    made.rank = split.rank;
    made.size = split.size;
    made.errhandler = parent.errhandler;
    made.world_ranks.assign(words.begin() + 1, words.end());
  }
  made.id = words.front();
  made.topology = parent.topology;  // MPI-3.1 6.4.2, as MPI_Comm_dup
  return made;
}

// A collective request whose completion makes the communicator.
class IdupRequest : public CollectiveRequest {
 public:
  using CollectiveRequest::CollectiveRequest;

  // Refused while active, as Open MPI refuses it (MPI_ERR_REQUEST), since
  // the communicator it makes could then be neither completed nor freed.
  bool Free() override {
    if (active && !done)
      throw Error(kErrRequest,
                  "MPI_Request_free of an active MPI_Comm_idup request: the new communicator "
                  "exists only once the request completes; complete it (MPI_Wait, MPI_Test) "
                  "and free the communicator instead");
    return CollectiveRequest::Free();
  }
};

}  // namespace

MPI_Request CommIdup(MPI_Comm parent_handle, std::optional<InfoEntries> hints, MPI_Comm* newcomm) {
  RequireInitialized();
  if (CrossJob(parent_handle) != nullptr) return CrossIdup(parent_handle, newcomm);
  CommInfo parent = LookupComm(parent_handle);  // a copy: NewComm may move entries
  // Until the request completes the handle holds a copy of the parent.
  MPI_Comm made = NewComm(parent);
  *newcomm = made;
  CollectivePlan plan = [=]() {
    Runtime* runtime = Runtime::Instance();
    // A split with one color, ordered by the ranks on the parent's wire
    // communicator (an intercommunicator's hidden one): the same order.
    RequestMsg request;
    request.type = MsgType::kCommSplit;
    request.comm = parent.id;
    request.rank = parent.WireRank();
    CommSplitArgs{0, parent.WireRank()}.Into(request);
    request.id = runtime->NewRecvId();  // completed by the master instead of a reply
    runtime->Post(request);
    Schedule schedule(parent);
    schedule.Await(request.id, [=](const ReplyMsg& reply) {
      CommInfo& info = LookupComm(made);
      info = Duplicate(parent, reply);
      if (hints) info.hints = *hints;
      // The copy callbacks run now; a parent freed meanwhile has none left.
      if (FindComm(parent_handle) != nullptr) CopyAttrs(AttrKind::kComm, parent_handle, made);
    });
    return schedule;
  };
  return StartNonblocking(std::make_unique<IdupRequest>(parent_handle, std::move(plan)));
}

}  // namespace bdmpi
