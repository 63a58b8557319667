// What a blocked rank waits in, as the user wrote it, for the deadlock
// report: "rank 0 in MPI_Recv(source 1, tag 7)". Each message type's
// describe function is named in its row of the message table; the
// point-to-point ones are the family's (p2p_describe.cpp).
#include "master/master.h"

namespace bdmpi {

std::string Master::DescribeBlockedCall(const Slave& slave) const {
  const RequestMsg& request = *slave.pending;
  const MessageRow* row = FindMessageRow(request.type);
  if (row != nullptr && row->describe != nullptr) return row->describe(*this, slave, request);
  return MpiCallName(request.type);
}

std::string Master::DescribeRooted(const Slave&, const RequestMsg& request) const {
  return MpiCallName(request.type) + ("(root " + std::to_string(request.peer) + ")");
}

}  // namespace bdmpi
