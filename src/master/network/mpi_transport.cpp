#include "master/network/mpi_transport.h"

#include <climits>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "collectives/operation.h"
#include "common/error.h"
#include "master/network/network_mpi.h"

namespace bdmpi {
namespace {

void Check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(kErrIntern, std::string(what) + ": " + text);
}

int IntCount(std::size_t bytes) {
  BDMPI_ENFORCE(bytes <= static_cast<std::size_t>(INT_MAX),
                "a collective's message exceeds 2 GiB");
  return static_cast<int>(bytes);
}

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm, std::shared_ptr<const NodeGroup> group,
                           StepSignature signature)
    : comm_(comm), group_(std::move(group)), signature_(signature) {
  BDMPI_ENFORCE(group_->nodes.size() == group_->channels.size() && group_->self >= 0 &&
                    group_->self < static_cast<int>(group_->nodes.size()),
                "malformed node group");
  signed_to_.resize(group_->nodes.size() * coll::kTagsPerOperation);
  signed_from_.resize(signed_to_.size());
}

int MpiTransport::MpiTag(int peer, int tag) const {
  BDMPI_ENFORCE(tag >= 0 && tag < kOpTagSpace, "operation tag out of range");
  return group_->channels[peer] * kOpTagSpace + tag;
}

bool MpiTransport::FirstLarge(std::vector<bool>& seen, int peer, int tag) {
  std::size_t index = static_cast<std::size_t>(peer * coll::kTagsPerOperation +
                                               tag % coll::kTagsPerOperation);
  if (seen[index]) return false;
  seen[index] = true;
  return true;
}

coll::RequestId MpiTransport::Isend(int peer, int tag, const std::byte* data,
                                    std::size_t bytes) {
  coll::RequestId id = ++next_id_;
  Pending& pending = pending_[id];
  pending.peer = peer;
  int dest = group_->nodes[peer];
  int mpi_tag = MpiTag(peer, tag);
  if (bytes <= kSmallStepMessage) {
    pending.framed = true;
    std::memcpy(pending.frame.data(), &signature_, sizeof(StepSignature));
    if (bytes > 0) std::memcpy(pending.frame.data() + sizeof(StepSignature), data, bytes);
    Check(MPI_Isend(pending.frame.data(), static_cast<int>(sizeof(StepSignature) + bytes),
                    MPI_BYTE, dest, mpi_tag, comm_, &pending.request),
          "MPI_Isend");
    return id;
  }
  // Ahead of the data with the same tag: MPI keeps their order.
  if (FirstLarge(signed_to_, peer, tag))
    Check(MPI_Isend(&signature_, sizeof(StepSignature), MPI_BYTE, dest, mpi_tag, comm_,
                    &pending.signature_request),
          "MPI_Isend");
  Check(MPI_Isend(data, IntCount(bytes), MPI_BYTE, dest, mpi_tag, comm_, &pending.request),
        "MPI_Isend");
  return id;
}

coll::RequestId MpiTransport::Irecv(int peer, int tag, std::byte* data,
                                    std::size_t bytes) {
  coll::RequestId id = ++next_id_;
  Pending& pending = pending_[id];
  pending.is_recv = true;
  pending.expected = bytes;
  pending.peer = peer;
  int source = group_->nodes[peer];
  // Messages to us carry our own channel.
  int mpi_tag = MpiTag(group_->self, tag);
  if (bytes <= kSmallStepMessage) {
    pending.framed = true;
    pending.data = data;
    Check(MPI_Irecv(pending.frame.data(), static_cast<int>(pending.frame.size()), MPI_BYTE,
                    source, mpi_tag, comm_, &pending.request),
          "MPI_Irecv");
    return id;
  }
  if (FirstLarge(signed_from_, peer, tag))
    Check(MPI_Irecv(pending.frame.data(), static_cast<int>(pending.frame.size()), MPI_BYTE,
                    source, mpi_tag, comm_, &pending.signature_request),
          "MPI_Irecv");
  Check(MPI_Irecv(data, IntCount(bytes), MPI_BYTE, source, mpi_tag, comm_, &pending.request),
        "MPI_Irecv");
  return id;
}

bool MpiTransport::TestReceive(MPI_Request& request, std::size_t capacity, int peer,
                               int* count) const {
  int done = 0;
  MPI_Status status;
  int rc = MPI_Test(&request, &done, &status);
  int error_class = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
  // More bytes than this master expects: its members and those of another
  // node gave different sizes (see NetworkTransport::ProgressCollectives).
  if (error_class == MPI_ERR_TRUNCATE)
    throw Error(kErrTruncate, "node " + std::to_string(group_->nodes[peer]) + " sent more than " +
                                  std::to_string(capacity) + " bytes");
  Check(rc, "MPI_Test");
  if (!done) return false;
  MPI_Get_count(&status, MPI_BYTE, count);
  return true;
}

void MpiTransport::CheckSignature(const Frame& frame, int bytes, int peer) const {
  int source = group_->nodes[peer];
  if (bytes < static_cast<int>(sizeof(StepSignature)))
    throw Error(kErrIntern, "node " + std::to_string(source) +
                                " sent a collective message without its signature");
  StepMismatch mismatch;
  std::memcpy(&mismatch.theirs, frame.data(), sizeof(StepSignature));
  if (mismatch.theirs == signature_) return;
  mismatch.peer_node = source;
  throw mismatch;
}

bool MpiTransport::Settle(std::chrono::steady_clock::time_point deadline) {
  std::vector<MPI_Request*> open;
  for (auto& [id, pending] : pending_) {
    for (MPI_Request* request : {&pending.signature_request, &pending.request}) {
      if (*request == MPI_REQUEST_NULL) continue;
      if (pending.is_recv) MPI_Cancel(request);
      open.push_back(request);
    }
  }
  // A receive matched before the cancel completes only when its data has
  // come (MPI_Test sets the request to null either way).
  return WaitUntil(open, deadline);
}

bool MpiTransport::Test(coll::RequestId id) {
  auto it = pending_.find(id);
  BDMPI_ENFORCE(it != pending_.end(), "testing an unknown transport request");
  Pending& pending = it->second;
  int count = 0;
  if (pending.signature_request != MPI_REQUEST_NULL) {
    if (!pending.is_recv) {
      int done = 0;
      Check(MPI_Test(&pending.signature_request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) return false;
    } else {
      if (!TestReceive(pending.signature_request, pending.frame.size(), pending.peer, &count))
        return false;
      CheckSignature(pending.frame, count, pending.peer);
      // The same call, root and size, yet a small message where a large
      // one was due: the ranks passed different datatypes.
      if (count != static_cast<int>(sizeof(StepSignature)))
        throw Error(kErrTruncate, "node " + std::to_string(group_->nodes[pending.peer]) +
                                      " sent " + std::to_string(static_cast<std::size_t>(count) - sizeof(StepSignature)) +
                                      " bytes where " + std::to_string(pending.expected) +
                                      " were expected");
    }
  }
  std::size_t capacity = pending.framed ? pending.frame.size() : pending.expected;
  if (!pending.is_recv) {
    int done = 0;
    Check(MPI_Test(&pending.request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) return false;
  } else {
    if (!TestReceive(pending.request, capacity, pending.peer, &count)) return false;
    std::size_t received = static_cast<std::size_t>(count);
    if (pending.framed) {
      CheckSignature(pending.frame, count, pending.peer);
      received -= sizeof(StepSignature);
      if (received == pending.expected && received > 0)
        std::memcpy(pending.data, pending.frame.data() + sizeof(StepSignature), received);
    }
    // Same call, root and total size, yet another message size: its ranks
    // and ours passed different datatypes (see NetworkTransport::ProgressCollectives).
    if (received != pending.expected)
      throw Error(kErrTruncate, "node " + std::to_string(group_->nodes[pending.peer]) +
                                    " sent " + std::to_string(received) + " bytes where " +
                                    std::to_string(pending.expected) + " were expected");
  }
  pending_.erase(it);
  ++completed_;
  return true;
}

}  // namespace bdmpi
