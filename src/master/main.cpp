// bdmprun: the master daemon, one per node, normally started by bdmpiexec.
// It is an Open MPI program so that the masters of a multi-node job form one
// MPI job; a master that no MPI launcher started is alone on its node and
// does not initialise Open MPI at all.
#include <mpi.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

#include "common/error.h"
#include "common/launch_guard.h"
#include "common/log.h"
#include "master/master.h"
#include "master/options.h"
#include "common/test_hooks.h"

namespace {

// A barrier among the masters that gives up after `limit`.
void WaitForOtherMasters(std::chrono::steady_clock::duration limit) {
  // A master that is gone must not turn this into a fatal error.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &request) != MPI_SUCCESS) return;
  auto deadline = std::chrono::steady_clock::now() + limit;
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// libbdmpi in the master: LD_PRELOAD meant for the ranks got here, and
// MPI_Init below would be libbdmpi's, which, not finding a job, starts one
// (a singleton start) whose master gets the same preload, and so on. The
// master refuses at once instead, naming the library.
bool RefuseLibbdmpi() {
  std::string library = bdmpi::LoadedLibrary("libbdmpi.so");
  if (library.empty()) return false;
  const char* preload = std::getenv("LD_PRELOAD");
  std::fprintf(stderr,
               "bdmprun: %s is loaded into the master%s%s%s: the master must run Open MPI's "
               "MPI_Init, not libbdmpi's, and refuses to start. Give a preload for the ranks "
               "to bdmpiexec (-x LD_PRELOAD=... or LD_PRELOAD in its environment), which "
               "passes it to the ranks only; not to mpirun or srun themselves\n",
               library.c_str(), preload != nullptr ? " (LD_PRELOAD=" : "",
               preload != nullptr ? preload : "", preload != nullptr ? ")" : "");
  return true;
}

// Whether mpirun/orted or srun started this master: they set these for the
// processes of an MPI job. Otherwise (bdmpiexec's local launch) Open MPI's
// MPI_Init would make a singleton, one node, after forking an orted, which
// costs 1 s per job on an idle machine and several on a loaded one; a
// master alone needs nothing of Open MPI.
bool StartedByMpiLauncher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (RefuseLibbdmpi()) return 2;
  // Block the signals the event loop reads from a signalfd before Open MPI
  // starts its threads, so that they inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) sigaddset(&signals, sig);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  bdmpi::MasterOptions options;
  try {
    options = bdmpi::ParseMasterOptions(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }

  // The network thread makes the MPI calls; the main thread initialises,
  // finalises and aborts.
  const bool with_mpi = StartedByMpiLauncher();
  int node = 0;
  int nnodes = 1;
  if (with_mpi) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &node);
    MPI_Comm_size(MPI_COMM_WORLD, &nnodes);
  }
  std::string who = "master n" + std::to_string(node);
  bdmpi::InitLog(who.c_str());

  int status = 0;
  try {
    bdmpi::Master master(options, node, nnodes);
    status = master.Run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bdmprun: node %d: %s\n", node, error.what());
    status = 1;
  }
  // The master's objects and liveness file are gone by now.
  bdmpi::test_hooks::PauseBeforeExit(node);
  if (status != 0 && nnodes > 1) {
    // The other masters are cleaning up too (they got our notice, or the
    // signal mpirun/srun sent to all). MPI_Abort kills them at once, so wait
    // a moment for every master to get here, its queues and files removed;
    // then it only ends the ones that could not hear the notice (hung, or
    // gone already).
    WaitForOtherMasters(std::chrono::seconds(2));
    MPI_Abort(MPI_COMM_WORLD, status);
  }
  if (with_mpi) MPI_Finalize();
  return status;
}
