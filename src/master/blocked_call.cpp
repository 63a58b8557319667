// What a blocked rank waits in, as the user wrote it, for the deadlock
// report: "rank 0 in MPI_Recv(source 1, tag 7)". Each message type's
// describe function is named in its row of the message table.
#include "master/master.h"

namespace bdmpi {
namespace {

std::string DescribeMatch(int source, int tag) {
  return "(source " + (source == kAnySource ? "MPI_ANY_SOURCE" : std::to_string(source)) +
         ", tag " + (tag == kAnyTag ? "MPI_ANY_TAG" : std::to_string(tag)) + ")";
}

// A wait names a receive posted earlier (its source and tag are there) or
// a synchronous or buffered send waiting for its match.
std::string DescribePosted(const Slave& slave, std::uint64_t id) {
  if (const AwaitedMatch* send = slave.mailbox.FindAwaited(id); send != nullptr && send->lent)
    return "(its block for rank " + std::to_string(send->dest) + ", tag " +
           std::to_string(send->tag) + ", not read yet)";
  if (const AwaitedMatch* send = slave.mailbox.FindAwaited(id))
    return "(its send to rank " + std::to_string(send->dest) + ", tag " +
           std::to_string(send->tag) + ", not received yet)";
  if (slave.mailbox.AwaitsUnposted(id)) return "(its MPI_Comm_idup, not complete yet)";
  const PostedRecv* recv = slave.mailbox.FindPosted(id);
  return recv == nullptr ? std::string("(a completed receive)")
                         : DescribeMatch(recv->source, recv->tag);
}

}  // namespace

std::string Master::DescribeBlockedCall(const Slave& slave) const {
  const RequestMsg& request = *slave.pending;
  const MessageRow* row = FindMessageRow(request.type);
  if (row != nullptr && row->describe != nullptr) return row->describe(*this, slave, request);
  return MpiCallName(request.type);
}

// MPI_Recv, MPI_Probe: the request names its source and tag.
std::string Master::DescribeSourceTag(const Slave&, const RequestMsg& request) const {
  return MpiCallName(request.type) + DescribeMatch(request.peer, request.tag);
}

std::string Master::DescribeWaitRecv(const Slave& slave, const RequestMsg& request) const {
  // MPI_Waitall waits for its requests one by one: the rank's other
  // pending receives are probably the rest of it.
  std::string text = MpiCallName(request.type) + DescribePosted(slave, request.id);
  std::size_t others = 0;
  for (const PostedRecv& recv : slave.mailbox.Posted()) {
    if (recv.id == request.id || recv.discard) continue;
    if (++others <= 3)
      text += (others == 1 ? " with other pending receives " : ", ") +
              DescribeMatch(recv.source, recv.tag);
  }
  if (others > 3) text += " and " + std::to_string(others - 3) + " more";
  return text;
}

std::string Master::DescribeWaitAny(const Slave& slave, const RequestMsg& request) const {
  std::string text = MpiCallName(request.type) + std::string(" on");
  for (std::size_t i = 0; i < slave.wait_ids.size(); ++i)
    text += (i == 0 ? " " : ", ") + DescribePosted(slave, slave.wait_ids[i]);
  return text;
}

// MPI_Ssend: waits for its message to be received.
std::string Master::DescribeAwaitedSend(const Slave& slave, const RequestMsg& request) const {
  const AwaitedMatch* send = slave.mailbox.FindAwaited(request.id);
  if (send == nullptr) return MpiCallName(request.type);
  return MpiCallName(request.type) + ("(dest " + std::to_string(send->dest) + ", tag " +
                                      std::to_string(send->tag) + ")");
}

std::string Master::DescribeRooted(const Slave&, const RequestMsg& request) const {
  return MpiCallName(request.type) + ("(root " + std::to_string(request.peer) + ")");
}

}  // namespace bdmpi
