// The rank-order fold; see fold.h.
#include "slave/coll/fold.h"

#include <memory>
#include <string>
#include <utility>

#include "common/error.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

void Fold::Receive(const ReplyMsg& reply, int source) {
  incoming_.resize(bytes_);
  Runtime::Instance()->FetchPayload(reply, incoming_.data(), bytes_);
  if (reply.error != MPI_SUCCESS || reply.bytes != bytes_)
    throw Error(kErrTruncate, "rank " + std::to_string(source) + " contributes " +
                                  std::to_string(reply.bytes) + " bytes where this rank " +
                                  "expects " + std::to_string(bytes_) +
                                  " (every rank must give the same count and datatype)");
  FoldIncoming();
}

void Fold::FoldIncoming() {
  if (!empty_) ApplyOpWire(op_, datatype_, acc_.data(), incoming_.data(), count_);
  acc_.swap(incoming_);
  empty_ = false;
}

void FoldReceived(Schedule& schedule, int tag, const std::vector<int>& sources,
                  const CheckedOp& op, MPI_Datatype datatype, int count,
                  std::function<void(const std::vector<std::byte>&)> use) {
  auto fold = std::make_shared<Fold>(op, datatype, count);
  for (int r : sources)
    schedule.Recv(r, tag, fold->bytes(),
                  [fold, r](const ReplyMsg& reply) { fold->Receive(reply, r); });
  schedule.Then([fold, use] {
    if (!fold->empty()) use(fold->result());
  });
}

}  // namespace bdmpi
