#include "slave/runtime/environment.h"

#include <mpi.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>

#include "common/error.h"
#include "slave/memory/arena.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/singleton.h"

namespace bdmpi {
namespace memory {
extern int malloc_hooks_linked;
}
namespace {

struct Lifecycle {
  bool initialized = false;
  bool finalized = false;
  int thread_level = MPI_THREAD_SINGLE;
  // MPI_Is_thread_main's thread: set at static initialisation (the main
  // thread) and again by MPI_Init, in case another thread called it.
  pthread_t main_thread = pthread_self();
};

Lifecycle& State() {
  static Lifecycle state;
  return state;
}

}  // namespace

void Initialize(int required, int* provided) {
  Lifecycle& state = State();
  if (state.initialized)
    throw Error(kErrOther, "MPI_Init called twice");
  // Ranks take turns through the master, so a rank's threads must funnel
  // their MPI calls through the main thread.
  state.thread_level = required < MPI_THREAD_FUNNELED ? required : MPI_THREAD_FUNNELED;
  if (provided != nullptr) *provided = state.thread_level;
  state.main_thread = pthread_self();
  // Keeps the malloc family in a static link (see malloc_hooks.cpp).
  if (memory::malloc_hooks_linked == 0) std::abort();
  RefuseOutsideRank();
  BecomeSingletonJobUnlessLaunched();
  Runtime::Start();
  ResetComms(Runtime::Instance()->world_rank(), Runtime::Instance()->layout());
  state.initialized = true;
}

void Finalize() {
  if (Runtime::Instance() == nullptr)
    throw Error(kErrOther, "MPI_Finalize without MPI_Init");
  // Programs free their arrays before MPI_Finalize: blocks kept for reuse
  // would count against the node's budget while the others finish.
  memory::DropRecycled();
  Runtime::Stop();
  State().finalized = true;
}

bool IsInitialized() { return State().initialized; }
bool IsFinalized() { return State().finalized; }
int ThreadLevel() { return State().thread_level; }
bool IsThreadMain() { return pthread_equal(pthread_self(), State().main_thread) != 0; }

void AbortJob(int code) {
  Runtime* runtime = Runtime::Instance();
  if (runtime != nullptr) runtime->Abort(code);
  _exit(code != 0 ? code : 1);
}

double Wtime() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

double Wtick() {
  timespec resolution{};
  clock_getres(CLOCK_MONOTONIC, &resolution);
  return static_cast<double>(resolution.tv_sec) +
         1e-9 * static_cast<double>(resolution.tv_nsec);
}

}  // namespace bdmpi
