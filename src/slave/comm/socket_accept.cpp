// accept() and accept4() for a rank: a blocking accept on a listening
// socket waits with poll, making an empty probe at the rank's master
// between the looks, so that the rank gives its running slot to the
// node's other ranks while nobody connects. Without it, a rank that
// accepts before the rank that will connect has run (mpi4py's testJoin:
// MPI_Comm_join over a socket the program makes) holds the only slot of
// its node (-nr 1, and -nr auto with two nodes on two cores) and the
// other never runs: the job hangs, and the deadlock watch, which sees only
// ranks blocked in MPI, cannot tell. Defined in libbdmpi (shared or
// static), these interpose libc's for the program and its libraries, as
// the malloc family does (memory/malloc_hooks.cpp); the runtime's own
// accepts (cross_job*.cpp) poll first, so they pass straight through.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>

#include "slave/comm/cross_job_mesh.h"
#include "slave/runtime/environment.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/threads.h"

namespace bdmpi {
namespace {

// Whether the calling thread may make the empty probe: between MPI_Init
// and MPI_Finalize (not in a rank's descendant, whose runtime never
// starts); at MPI_THREAD_MULTIPLE from any thread (the probe takes the
// rank's lock); else from the main thread, when only it calls MPI
// (FUNNELED and below) or it is the only thread (SERIALIZED, the level
// mpi4py gets by default: another thread could be in an MPI call, which
// the probe must not meet).
bool AcceptMayYield() {
  if (Runtime::Instance() == nullptr) return false;
  if (threads::LockOn()) return true;
  if (!IsThreadMain()) return false;
  return ThreadLevel() <= MPI_THREAD_FUNNELED || !threads::OtherThreadsExist();
}

// Whether an accept on `fd` would block in the kernel for as long as it
// takes: a blocking socket without a receive timeout (SO_RCVTIMEO bounds
// accept's wait, which the program then expects to end).
bool AcceptBlocksIndefinitely(int fd, int flags) {
  if ((flags & SOCK_NONBLOCK) != 0) return false;
  int status = fcntl(fd, F_GETFL);
  if (status < 0 || (status & O_NONBLOCK) != 0) return false;
  timeval limit{};
  socklen_t size = sizeof limit;
  if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, &size) != 0) return false;
  return limit.tv_sec == 0 && limit.tv_usec == 0;
}

// Waits until `fd` has a connection (or an error, which the real accept
// then reports), yielding the running slot between looks. Returns false
// with errno EINTR when a signal came: accept returns that too, and a
// program (Python) runs its handlers then.
bool AwaitConnection(int fd) {
  // The first look costs nothing when a connection waits; later ones
  // hold the slot at most a few milliseconds while no other rank wants
  // it, and a rank alone waits without spinning a core.
  int timeout_ms = 0;
  for (;;) {
    pollfd entry{fd, POLLIN, 0};
    int ready = poll(&entry, 1, timeout_ms);
    if (ready > 0) return true;
    if (ready < 0) return errno != EINTR;
    YieldRunningSlot();
    timeout_ms = timeout_ms == 0 ? 1 : std::min(timeout_ms * 2, 16);
  }
}

using AcceptFn = int (*)(int, sockaddr*, socklen_t*, int);

int AcceptThroughLibc(int fd, sockaddr* address, socklen_t* length, int flags) {
  static AcceptFn libc = reinterpret_cast<AcceptFn>(dlsym(RTLD_NEXT, "accept4"));
  if (libc == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (AcceptMayYield() && AcceptBlocksIndefinitely(fd, flags) && !AwaitConnection(fd))
    return -1;
  return libc(fd, address, length, flags);
}

}  // namespace
}  // namespace bdmpi

extern "C" {

__attribute__((visibility("default"))) int accept4(int fd, sockaddr* address,
                                                   socklen_t* length, int flags) {
  return bdmpi::AcceptThroughLibc(fd, address, length, flags);
}

__attribute__((visibility("default"))) int accept(int fd, sockaddr* address,
                                                  socklen_t* length) {
  return bdmpi::AcceptThroughLibc(fd, address, length, 0);
}

}  // extern "C"
