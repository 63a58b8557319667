#include "master/network/stale_steps.h"

#include <cstring>
#include <string>
#include <vector>

#include "collectives/operation.h"
#include "common/error.h"
#include "common/log.h"
#include "master/network/mpi_transport.h"

namespace bdmpi {

void StaleStepCheck::Finished(int mpi_tag, int comm, std::uint64_t seq,
                              StepSignature signature) {
  steps_.push_back({mpi_tag, comm, seq, signature});
  if (steps_.size() > kKept) steps_.pop_front();
}

void StaleStepCheck::Flush(MPI_Comm coll, int flush_tag) {
  int nnodes = 1, self = 0;
  MPI_Comm_size(coll, &nnodes);
  MPI_Comm_rank(coll, &self);
  flush_tag_ = flush_tag;
  unflushed_ = nnodes - 1;
  flushed_from_.assign(static_cast<std::size_t>(nnodes), false);
  for (int node = 0; node < nnodes; ++node) {
    if (node == self) continue;
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(nullptr, 0, MPI_BYTE, node, flush_tag_, coll, &request) != MPI_SUCCESS)
      throw Error(kErrIntern, "MPI_Isend of the shutdown marker failed");
    MPI_Request_free(&request);  // empty: nothing to keep alive
  }
}

std::optional<StepConflict> StaleStepCheck::Drain(MPI_Comm coll, int node) {
  for (;;) {
    int flag = 0;
    MPI_Message message;
    MPI_Status status;
    if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, coll, &flag, &message, &status) != MPI_SUCCESS)
      throw Error(kErrIntern, "MPI_Improbe failed");
    if (!flag) return found_;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<std::byte> bytes(static_cast<std::size_t>(count));
    if (MPI_Mrecv(bytes.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      throw Error(kErrIntern, "MPI_Mrecv failed");
    if (status.MPI_TAG == flush_tag_) {
      auto from = static_cast<std::size_t>(status.MPI_SOURCE);
      if (from < flushed_from_.size() && !flushed_from_[from]) {
        flushed_from_[from] = true;
        --unflushed_;
      }
      continue;
    }
    BDMPI_DEBUG("coll", "a step message still waiting at shutdown: %d bytes from node %d, tag %d",
                count, status.MPI_SOURCE, status.MPI_TAG);
    // Only a step's first messages carry the signature alone or with
    // small data; a large message without one names nothing.
    if (found_ || count < static_cast<int>(sizeof(StepSignature)) ||
        count > static_cast<int>(sizeof(StepSignature) + kSmallStepMessage))
      continue;
    StepSignature theirs;
    std::memcpy(&theirs, bytes.data(), sizeof theirs);
    int mpi_tag = status.MPI_TAG - status.MPI_TAG % coll::kTagsPerOperation;
    for (auto step = steps_.rbegin(); step != steps_.rend(); ++step) {
      if (step->mpi_tag != mpi_tag) continue;
      if (!(step->signature == theirs))
        found_ = StepConflict{step->comm, step->seq, node, step->signature, status.MPI_SOURCE,
                              theirs};
      break;
    }
  }
}

}  // namespace bdmpi
