// What a rank blocked in point-to-point waits for, for the deadlock report:
// "rank 0 in MPI_Recv(source 1, tag 7)". The message table names these as
// the describe functions of the point-to-point rows.
#include "master/p2p/p2p.h"

#include "common/coll_engine.h"
#include "master/comm/comm_registry.h"
#include "master/message_table.h"

namespace bdmpi {
namespace {

std::string DescribeMatch(int source, int tag) {
  return "(source " + (source == kAnySource ? "MPI_ANY_SOURCE" : std::to_string(source)) +
         ", tag " + (tag == kAnyTag ? "MPI_ANY_TAG" : std::to_string(tag)) + ")";
}

}  // namespace

// A wait names a receive posted earlier (its source and tag are there) or
// a synchronous or buffered send waiting for its match.
std::string PointToPoint::DescribePosted(const Slave& slave, std::uint64_t id) const {
  const Mailbox& box = mailbox(slave);
  if (const AwaitedMatch* send = box.FindAwaited(id); send != nullptr && send->lent)
    return "(its block for rank " + std::to_string(send->dest) + ", tag " +
           std::to_string(send->tag) + ", not read yet)";
  if (const AwaitedMatch* send = box.FindAwaited(id))
    return "(its send to rank " + std::to_string(send->dest) + ", tag " +
           std::to_string(send->tag) + ", not received yet)";
  if (box.AwaitsUnposted(id)) return "(its MPI_Comm_idup, not complete yet)";
  const PostedRecv* recv = box.FindPosted(id);
  return recv == nullptr ? std::string("(a completed receive)")
                         : DescribeMatch(recv->source, recv->tag);
}

// MPI_Recv, MPI_Probe: the request names its source and tag. A receive
// of the node collectives' engine (slave/coll/node_coll.h) names the
// collective: from the root, its root; at rank 0, the part it waits for.
std::string PointToPoint::DescribeSourceTag(const Slave&, const RequestMsg& request) const {
  if (request.comm != UserCommId(request.comm) && request.type == MsgType::kPostRecv) {
    std::string call = NodeCollCallOfTag(request.tag);
    if (call == "MPI_Bcast") return call + "(root " + std::to_string(request.peer) + ")";
    if (!call.empty() && request.rank == 0)
      return call + "(waiting for rank " + std::to_string(request.peer) + ")";
    if (!call.empty()) return call;
  }
  return MpiCallName(request.type) + DescribeMatch(request.peer, request.tag);
}

std::string PointToPoint::DescribeWaitRecv(const Slave& slave, const RequestMsg& request) const {
  // MPI_Waitall waits for its requests one by one: the rank's other
  // pending receives are probably the rest of it.
  std::string text = MpiCallName(request.type) + DescribePosted(slave, request.id);
  std::size_t others = 0;
  for (const PostedRecv& recv : mailbox(slave).Posted()) {
    if (recv.id == request.id || recv.discard) continue;
    if (++others <= 3)
      text += (others == 1 ? " with other pending receives " : ", ") +
              DescribeMatch(recv.source, recv.tag);
  }
  if (others > 3) text += " and " + std::to_string(others - 3) + " more";
  return text;
}

std::string PointToPoint::DescribeWaitAny(const Slave& slave, const RequestMsg& request) const {
  const std::vector<std::uint64_t>& ids = peer(slave).wait_ids;
  std::string text = MpiCallName(request.type) + std::string(" on");
  for (std::size_t i = 0; i < ids.size(); ++i)
    text += (i == 0 ? " " : ", ") + DescribePosted(slave, ids[i]);
  return text;
}

// MPI_Ssend: waits for its message to be received.
std::string PointToPoint::DescribeAwaitedSend(const Slave& slave,
                                              const RequestMsg& request) const {
  const AwaitedMatch* send = mailbox(slave).FindAwaited(request.id);
  if (send == nullptr) return MpiCallName(request.type);
  return MpiCallName(request.type) + ("(dest " + std::to_string(send->dest) + ", tag " +
                                      std::to_string(send->tag) + ")");
}

// Every posted receive, not only the one waited for: MPI_Waitall waits
// for its requests one by one, and a receive posted early is usually
// waited for soon. An intercommunicator's sources are ranks of its remote
// group, which world_ranks does not give: not known.
void PointToPoint::AwaitedSources(const Slave& slave, std::vector<int>& world_ranks) const {
  world_ranks.clear();
  for (const PostedRecv& recv : mailbox(slave).Posted()) {
    if (recv.discard) continue;
    const MasterComm* comm = master_.FindComm(recv.comm);
    bool known = recv.source >= 0 && comm != nullptr &&
                 static_cast<std::size_t>(recv.source) < comm->world_ranks.size();
    world_ranks.push_back(known ? comm->world_ranks[static_cast<std::size_t>(recv.source)] : -1);
  }
}

}  // namespace bdmpi
