// The MPI call a request stands for, for the messages users read.
#pragma once

#include "common/protocol.h"

namespace bdmpi {

// "MPI_Barrier" for kBarrier, ...; MsgTypeName for the rest.
const char* MpiCallName(MsgType type);

}  // namespace bdmpi
