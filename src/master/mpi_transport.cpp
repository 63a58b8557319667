#include "master/mpi_transport.h"

#include <climits>
#include <cstring>
#include <utility>
#include <string>

#include "common/error.h"

namespace bdmpi {
namespace {

void Check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(kErrIntern, std::string(what) + ": " + text);
}

int Count(std::size_t bytes) {
  BDMPI_ENFORCE(bytes <= static_cast<std::size_t>(INT_MAX),
                "a collective's message exceeds 2 GiB");
  return static_cast<int>(bytes);
}

// The signature followed by `bytes` of data, addressed from MPI_BOTTOM:
// one message without copying either. The caller frees it (MPI lets it go
// while the operation that uses it is pending).
MPI_Datatype FramedType(StepSignature* signature, std::byte* data, std::size_t bytes) {
  int lengths[2] = {static_cast<int>(sizeof(StepSignature)), Count(bytes)};
  MPI_Aint displacements[2];
  Check(MPI_Get_address(signature, &displacements[0]), "MPI_Get_address");
  int blocks = 1;
  if (bytes > 0) {
    Check(MPI_Get_address(data, &displacements[1]), "MPI_Get_address");
    blocks = 2;
  }
  MPI_Datatype type;
  Check(MPI_Type_create_hindexed(blocks, lengths, displacements, MPI_BYTE, &type),
        "MPI_Type_create_hindexed");
  Check(MPI_Type_commit(&type), "MPI_Type_commit");
  return type;
}

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm, std::shared_ptr<const NodeGroup> group,
                           StepSignature signature)
    : comm_(comm), group_(std::move(group)), signature_(signature) {
  BDMPI_ENFORCE(group_->nodes.size() == group_->channels.size() && group_->self >= 0 &&
                    group_->self < static_cast<int>(group_->nodes.size()),
                "malformed node group");
}

int MpiTransport::MpiTag(int peer, int tag) const {
  BDMPI_ENFORCE(tag >= 0 && tag < kOpTagSpace, "operation tag out of range");
  return group_->channels[peer] * kOpTagSpace + tag;
}

coll::RequestId MpiTransport::Isend(int peer, int tag, const std::byte* data,
                                    std::size_t bytes) {
  coll::RequestId id = ++next_id_;
  Pending& pending = pending_[id];
  pending.signature = signature_;  // lives (unordered_map node) until the send completes
  if (bytes <= kSmallStepMessage) {
    std::memcpy(pending.small.data(), &signature_, sizeof(StepSignature));
    if (bytes > 0) std::memcpy(pending.small.data() + sizeof(StepSignature), data, bytes);
    Check(MPI_Isend(pending.small.data(), static_cast<int>(sizeof(StepSignature) + bytes),
                    MPI_BYTE, group_->nodes[peer], MpiTag(peer, tag), comm_, &pending.request),
          "MPI_Isend");
    return id;
  }
  MPI_Datatype type = FramedType(&pending.signature, const_cast<std::byte*>(data), bytes);
  int rc = MPI_Isend(MPI_BOTTOM, 1, type, group_->nodes[peer], MpiTag(peer, tag), comm_,
                     &pending.request);
  MPI_Type_free(&type);
  Check(rc, "MPI_Isend");
  return id;
}

coll::RequestId MpiTransport::Irecv(int peer, int tag, std::byte* data,
                                    std::size_t bytes) {
  Count(bytes);
  coll::RequestId id = ++next_id_;
  Pending& pending = pending_[id];
  pending.is_recv = true;
  pending.expected = bytes;
  pending.peer = peer;
  pending.data = data;
  // Messages to us carry our own channel.
  pending.mpi_tag = MpiTag(group_->self, tag);
  return id;
}

bool MpiTransport::Match(Pending& pending) {
  int flag = 0;
  MPI_Message message;
  MPI_Status status;
  Check(MPI_Improbe(group_->nodes[pending.peer], pending.mpi_tag, comm_, &flag, &message,
                    &status),
        "MPI_Improbe");
  if (!flag) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  if (static_cast<std::size_t>(count) == sizeof(StepSignature) + pending.expected &&
      pending.expected <= kSmallStepMessage) {
    Check(MPI_Imrecv(pending.small.data(), count, MPI_BYTE, &message, &pending.request),
          "MPI_Imrecv");
    pending.in_small = true;
    return true;
  }
  if (static_cast<std::size_t>(count) == sizeof(StepSignature) + pending.expected) {
    MPI_Datatype type = FramedType(&pending.signature, pending.data, pending.expected);
    int rc = MPI_Imrecv(MPI_BOTTOM, 1, type, &message, &pending.request);
    MPI_Type_free(&type);
    Check(rc, "MPI_Imrecv");
    return true;
  }
  // Another size: read it whole, to compare its signature before blaming the size.
  pending.odd_size.resize(static_cast<std::size_t>(count));
  Check(MPI_Imrecv(pending.odd_size.data(), count, MPI_BYTE, &message, &pending.request),
        "MPI_Imrecv");
  pending.odd = true;
  return true;
}

void MpiTransport::CheckReceived(const Pending& pending, int source) const {
  StepSignature theirs = pending.signature;
  std::size_t sent = pending.expected;
  if (pending.odd) {
    if (pending.odd_size.size() < sizeof(StepSignature))
      throw Error(kErrIntern, "node " + std::to_string(source) +
                                  " sent a collective message without its signature");
    std::memcpy(&theirs, pending.odd_size.data(), sizeof(StepSignature));
    sent = pending.odd_size.size() - sizeof(StepSignature);
  }
  if (!(theirs == signature_)) {
    StepMismatch mismatch;
    mismatch.peer_node = source;
    mismatch.theirs = theirs;
    throw mismatch;
  }
  // Same call, root and total size, yet another message size: its ranks
  // and ours passed different datatypes (see Network::ProgressCollectives).
  if (sent != pending.expected)
    throw Error(kErrTruncate, "node " + std::to_string(source) + " sent " + std::to_string(sent) +
                                  " bytes where " + std::to_string(pending.expected) +
                                  " were expected");
}

bool MpiTransport::Test(coll::RequestId id) {
  auto it = pending_.find(id);
  BDMPI_ENFORCE(it != pending_.end(), "testing an unknown transport request");
  Pending& pending = it->second;
  if (pending.is_recv && pending.request == MPI_REQUEST_NULL && !Match(pending)) return false;
  int done = 0;
  MPI_Status status;
  Check(MPI_Test(&pending.request, &done, &status), "MPI_Test");
  if (!done) return false;
  if (pending.is_recv && pending.in_small) {
    std::memcpy(&pending.signature, pending.small.data(), sizeof(StepSignature));
    if (pending.expected > 0)
      std::memcpy(pending.data, pending.small.data() + sizeof(StepSignature), pending.expected);
  }
  if (pending.is_recv) CheckReceived(pending, group_->nodes[pending.peer]);
  pending_.erase(it);
  ++completed_;
  return true;
}

}  // namespace bdmpi
