// The slave's half of BDMPI's critical sections (include/bdmpi.h); the
// master's half is src/master/sched/critical.cpp.
#include <bdmpi.h>

#include "common/protocol.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/runtime.h"

extern "C" {

int BDMPI_Enter_critical(void) {
  return bdmpi::Guard("BDMPI_Enter_critical", MPI_COMM_WORLD, [] {
    bdmpi::RequireInitialized();
    bdmpi::RequestMsg request;
    request.type = bdmpi::MsgType::kEnterCritical;
    bdmpi::Runtime::Instance()->Call(request);
  });
}

int BDMPI_Exit_critical(void) {
  return bdmpi::Guard("BDMPI_Exit_critical", MPI_COMM_WORLD, [] {
    bdmpi::RequireInitialized();
    bdmpi::RequestMsg request;
    request.type = bdmpi::MsgType::kExitCritical;
    bdmpi::Runtime::Instance()->Post(request);
  });
}

}  // extern "C"
