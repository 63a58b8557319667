#include "slave/p2p/lent_blocks.h"

#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/job_names.h"
#include "common/process_memory.h"
#include "slave/memory/arena.h"

namespace bdmpi {
namespace {

constexpr std::uint64_t kPage = 4096;

}  // namespace

void LetJobReadMemory() {
  // Without Yama the call fails (EINVAL) and nothing is needed.
  prctl(PR_SET_PTRACER, static_cast<unsigned long>(getppid()), 0, 0, 0);
}

bool LendingAllowed() {
  const char* single_copy = std::getenv(kEnvSingleCopy);
  if (single_copy != nullptr && std::strcmp(single_copy, "off") == 0) return false;
  // 2: only with CAP_SYS_PTRACE, 3: never.
  return YamaPtraceScope() < 2;
}

bool Readable(const void* data, std::uint64_t bytes) {
  // A live block of the storage-backed arena is readable by construction,
  // and checking costs nearly what the copy does (the kernel looks up and
  // pins every page).
  if (memory::InLiveBlock(data, bytes)) return true;
  // One byte of every page, as many pages per call as the kernel takes.
  constexpr std::size_t kBatch = 256;
  char scratch[kBatch];
  iovec local[kBatch];
  iovec remote[kBatch];
  auto first = reinterpret_cast<std::uintptr_t>(data);
  std::uintptr_t end = first + bytes;
  std::uintptr_t page = first;
  while (page < end) {
    std::size_t n = 0;
    for (; n < kBatch && page < end; ++n) {
      local[n] = iovec{&scratch[n], 1};
      remote[n] = iovec{reinterpret_cast<void*>(page), 1};
      page = (page & ~(kPage - 1)) + kPage;
    }
    ssize_t read = process_vm_readv(getpid(), local, n, remote, n, 0);
    if (read != static_cast<ssize_t>(n)) return false;
  }
  return true;
}

bool ReadLent(pid_t pid, std::uint64_t address, void* out, std::uint64_t bytes) {
  static const bool refuse = [] {
    const char* value = std::getenv("BDMPI_TEST_REFUSE_LENT_READS");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  if (refuse) return false;
  int error = ReadProcessMemory(pid, address, out, bytes);
  // ESRCH: the sender died; the master, asked for a copy, ends the job
  // naming it.
  if (error == EPERM || error == EACCES || error == ESRCH) return false;
  // EFAULT: the sender's memory changed under a lent block, a bug.
  if (error != 0)
    ThrowSystemError("reading a block lent by process " + std::to_string(pid), error);
  return true;
}

}  // namespace bdmpi
