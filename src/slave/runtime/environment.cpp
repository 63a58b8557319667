#include "slave/runtime/environment.h"

#include <mpi.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/error.h"
#include "slave/comm/dynamic.h"
#include "slave/memory/arena.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/singleton.h"
#include "slave/runtime/threads.h"

namespace bdmpi {
namespace memory {
extern int malloc_hooks_linked;
}
namespace {

struct Lifecycle {
  bool initialized = false;
  bool finalized = false;
  // Sessions open (MPI_Session_init without its MPI_Session_finalize).
  int sessions = 0;
  int thread_level = MPI_THREAD_SINGLE;
  // The highest level provided to MPI_Init_thread or a session: which
  // threads may call (CallsFromAnyThread).
  int highest_level = MPI_THREAD_SINGLE;
  // MPI_Is_thread_main's thread: set at static initialisation (the main
  // thread) and again by MPI_Init or the first MPI_Session_init, in case
  // another thread called it.
  pthread_t main_thread = pthread_self();
};

Lifecycle& Life() {
  static Lifecycle state;
  return state;
}

// The highest level a rank provides: BDMPI_THREAD_LEVEL (single, funneled,
// serialized, multiple). The default is serialized: many programs ask for
// MULTIPLE without calling MPI from several threads (mpi4py does by
// default), and at MULTIPLE a rank with several threads (a BLAS pool is
// enough) is never written back (threads.h), which would end out-of-core
// runs; `--thread-level multiple` is the program's own choice.
int LevelCap() {
  static const int cap = [] {
    const char* text = std::getenv("BDMPI_THREAD_LEVEL");
    if (text == nullptr || *text == '\0') return static_cast<int>(MPI_THREAD_SERIALIZED);
    static constexpr struct {
      const char* name;
      int level;
    } kLevels[] = {{"single", MPI_THREAD_SINGLE},
                   {"funneled", MPI_THREAD_FUNNELED},
                   {"serialized", MPI_THREAD_SERIALIZED},
                   {"multiple", MPI_THREAD_MULTIPLE}};
    for (const auto& level : kLevels)
      if (std::strcmp(text, level.name) == 0) return level.level;
    throw Error(kErrArg, std::string("BDMPI_THREAD_LEVEL=") + text +
                             " is no thread level: use single, funneled, serialized or multiple");
  }();
  return cap;
}

// What a rank asking for `required` gets: that level, up to the cap. At
// MULTIPLE every call takes the rank's lock from then on.
int ProvidedLevel(int required) {
  int provided = required < LevelCap() ? required : LevelCap();
  if (provided < MPI_THREAD_SINGLE) provided = MPI_THREAD_SINGLE;
  if (provided == MPI_THREAD_MULTIPLE) threads::EnableLock();
  if (provided > Life().highest_level) Life().highest_level = provided;
  return provided;
}

// The first of MPI_Init and MPI_Session_init connects to the master, and
// so does a session started after the last finalize (MPI allows that; the
// world model alone cannot start again).
void ConnectUnlessConnected() {
  Lifecycle& state = Life();
  if (Runtime::Instance() != nullptr) return;
  state.main_thread = pthread_self();
  bool again = Runtime::WasStopped();
  if (!again) {
    // Keeps the malloc family in a static link (see malloc_hooks.cpp).
    if (memory::malloc_hooks_linked == 0) std::abort();
    RefuseOutsideRank();
    BecomeSingletonJobUnlessLaunched();
  }
  Runtime::Start();
  Runtime* runtime = Runtime::Instance();
  const auto& spawned = runtime->spawned();
  ResetComms(runtime->world_rank(), runtime->layout(),
             spawned ? spawned->world : std::vector<int>{});
  // A spawned rank meets its parents, who wait in MPI_Comm_spawn, once.
  if (!again) ConnectToParents();
}

// The last of MPI_Finalize and MPI_Session_finalize disconnects until the
// next MPI_Session_init, if any.
void DisconnectIfLast() {
  Lifecycle& state = Life();
  if (state.sessions > 0 || (state.initialized && !state.finalized)) return;
  // Programs free their arrays before finalizing: blocks kept for reuse
  // would count against the node's budget while the others finish.
  memory::DropRecycled();
  Runtime::Stop();
}

}  // namespace

void Initialize(int required, int* provided) {
  Lifecycle& state = Life();
  if (state.initialized)
    throw Error(kErrOther, "MPI_Init called twice");
  ConnectUnlessConnected();
  // A session that connected first at MULTIPLE keeps the lock on: its
  // threads may still call.
  state.thread_level = ProvidedLevel(required);
  if (provided != nullptr) *provided = state.thread_level;
  state.main_thread = pthread_self();
  state.initialized = true;
}

void Finalize() {
  Lifecycle& state = Life();
  if (!state.initialized || state.finalized || Runtime::Instance() == nullptr)
    throw Error(kErrOther, "MPI_Finalize without MPI_Init");
  state.finalized = true;
  DisconnectIfLast();
}

int ConnectSession(int required) {
  ConnectUnlessConnected();
  ++Life().sessions;
  return ProvidedLevel(required);
}

void DisconnectSession() {
  Lifecycle& state = Life();
  BDMPI_ENFORCE(state.sessions > 0, "closing a session that is not open");
  --state.sessions;
  DisconnectIfLast();
}

bool IsInitialized() { return Life().initialized; }
bool IsFinalized() { return Life().finalized; }
int ThreadLevel() { return Life().thread_level; }
bool CallsFromAnyThread() { return Life().highest_level >= MPI_THREAD_SERIALIZED; }
bool IsThreadMain() { return pthread_equal(pthread_self(), Life().main_thread) != 0; }

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
