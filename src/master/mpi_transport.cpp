#include "master/mpi_transport.h"

#include <climits>
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

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm, std::shared_ptr<const NodeGroup> group)
    : comm_(comm), group_(std::move(group)) {
  BDMPI_ENFORCE(group_->nodes.size() == group_->channels.size() && group_->self >= 0 &&
                    group_->self < static_cast<int>(group_->nodes.size()),
                "malformed node group");
}

int MpiTransport::MpiTag(int peer, int tag) const {
  BDMPI_ENFORCE(tag >= 0 && tag < kOpTagSpace, "operation tag out of range");
  return group_->channels[peer] * kOpTagSpace + tag;
}

coll::RequestId MpiTransport::Add(MPI_Request request, std::size_t bytes, bool is_recv) {
  coll::RequestId id = ++next_id_;
  pending_.emplace(id, Pending{request, bytes, is_recv});
  return id;
}

coll::RequestId MpiTransport::Isend(int peer, int tag, const std::byte* data,
                                    std::size_t bytes) {
  MPI_Request request;
  Check(MPI_Isend(data, Count(bytes), MPI_BYTE, group_->nodes[peer], MpiTag(peer, tag),
                  comm_, &request),
        "MPI_Isend");
  return Add(request, bytes, /*is_recv=*/false);
}

coll::RequestId MpiTransport::Irecv(int peer, int tag, std::byte* data,
                                    std::size_t bytes) {
  MPI_Request request;
  // Messages to us carry our own channel.
  Check(MPI_Irecv(data, Count(bytes), MPI_BYTE, group_->nodes[peer],
                  MpiTag(group_->self, tag), comm_, &request),
        "MPI_Irecv");
  return Add(request, bytes, /*is_recv=*/true);
}

bool MpiTransport::Test(coll::RequestId id) {
  auto it = pending_.find(id);
  BDMPI_ENFORCE(it != pending_.end(), "testing an unknown transport request");
  int done = 0;
  MPI_Status status;
  int rc = MPI_Test(&it->second.request, &done, &status);
  int error_class = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
  // More or fewer bytes than this master expects: its members and those of
  // another node gave different sizes (see Network::ProgressCollectives).
  if (error_class == MPI_ERR_TRUNCATE)
    throw Error(kErrTruncate, "node " + std::to_string(status.MPI_SOURCE) + " sent more than " +
                                  std::to_string(it->second.expected) + " bytes");
  Check(rc, "MPI_Test");
  if (!done) return false;
  if (it->second.is_recv) {
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (static_cast<std::size_t>(count) != it->second.expected)
      throw Error(kErrTruncate, "node " + std::to_string(status.MPI_SOURCE) + " sent " +
                                    std::to_string(count) + " bytes where " +
                                    std::to_string(it->second.expected) + " were expected");
  }
  pending_.erase(it);
  ++completed_;
  return true;
}

}  // namespace bdmpi
