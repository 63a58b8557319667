#include "master/lent_block.h"

#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/error.h"

namespace bdmpi {

void LentBlock::CopyTo(void* out) const {
  std::uint64_t done = 0;
  while (done < bytes) {
    iovec local{static_cast<char*>(out) + done, bytes - done};
    iovec remote{reinterpret_cast<void*>(address + done), bytes - done};
    ssize_t copied = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (copied > 0) {
      done += static_cast<std::uint64_t>(copied);
    } else if (!(copied < 0 && errno == EINTR)) {
      int error = copied < 0 ? errno : EFAULT;
      throw Error(kErrIo, "could not copy the " + std::to_string(bytes) +
                              "-byte block rank " + std::to_string(lender_world_rank) +
                              " lent to a collective (process_vm_readv: " +
                              std::string(std::strerror(error)) + ")");
    }
  }
}

}  // namespace bdmpi
