#include "master/p2p/lent_block.h"

#include <cstring>
#include <string>

#include "common/error.h"
#include "common/process_memory.h"

namespace bdmpi {

void LentBlock::CopyTo(void* out) const {
  if (int error = ReadProcessMemory(pid, address, out, bytes); error != 0)
    throw Error(kErrIo, "could not copy the " + std::to_string(bytes) + "-byte block rank " +
                            std::to_string(lender_world_rank) +
                            " lent to a collective (process_vm_readv: " +
                            std::string(std::strerror(error)) + ")");
}

}  // namespace bdmpi
