// What a blocked rank waits in, as the user wrote it, for the deadlock
// report: "rank 0 in MPI_Recv(source 1, tag 7)". Each message type's
// describe function is named in its row of the message table; the
// point-to-point ones are the family's (p2p_describe.cpp). A rank that
// waits on a window's communicator said in which one-sided call
// (RmaWaitIn): that call is named, not the receive or barrier under it.
#include "common/rma_node_file.h"
#include "master/master.h"

namespace bdmpi {

std::string Master::DescribeBlockedCall(const Slave& slave) const {
  const RequestMsg& request = *slave.pending;
  if (slave.rma_wait.wait != 0 && slave.rma_wait.comm == request.comm)
    return rma::DescribeRmaWait(static_cast<rma::RmaWait>(slave.rma_wait.wait),
                                slave.rma_wait.rank, slave.rma_wait.detail);
  const MessageRow* row = FindMessageRow(request.type);
  if (row != nullptr && row->describe != nullptr) return row->describe(*this, slave, request);
  return MpiCallName(request.type);
}

void Master::HandleRmaWaitIn(Slave& slave, const RequestMsg& request) {
  slave.rma_wait = RmaWaitArgs::Of(request);
}

std::string Master::DescribeRooted(const Slave&, const RequestMsg& request) const {
  return MpiCallName(request.type) + ("(root " + std::to_string(request.peer) + ")");
}

}  // namespace bdmpi
