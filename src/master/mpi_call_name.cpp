#include "master/mpi_call_name.h"

namespace bdmpi {

const char* MpiCallName(MsgType type) {
  switch (type) {
    case MsgType::kBarrier: return "MPI_Barrier";
    case MsgType::kBcast: return "MPI_Bcast";
    case MsgType::kReduce: return "MPI_Reduce";
    case MsgType::kAllreduce: return "MPI_Allreduce";
    case MsgType::kCommSplit: return "MPI_Comm_split/dup/create";
    case MsgType::kEnterCritical: return "BDMPI_Enter_critical";
    default: return MsgTypeName(type);
  }
}

}  // namespace bdmpi
