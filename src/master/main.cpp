// bdmprun: the master daemon, one per node, normally started by bdmpiexec.
// It is an Open MPI program so that the masters of a multi-node job form one
// MPI job; on one node it runs as an Open MPI singleton.
#include <mpi.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>

#include "common/error.h"
#include "common/log.h"
#include "master/master.h"
#include "master/options.h"
#include "master/test_pause.h"

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

}  // namespace

int main(int argc, char** argv) {
  // Block the signals the event loop reads from a signalfd before Open MPI
  // starts its threads, so that they inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&signals, sig);
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
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int node = 0;
  int nnodes = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &node);
  MPI_Comm_size(MPI_COMM_WORLD, &nnodes);
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
  bdmpi::TestPause(bdmpi::kTestPauseBeforeExit, node);
  if (status != 0 && nnodes > 1) {
    // The other masters are cleaning up too (they got our notice, or the
    // signal mpirun/srun sent to all). MPI_Abort kills them at once, so wait
    // a moment for every master to get here, its queues and files removed;
    // then it only ends the ones that could not hear the notice (hung, or
    // gone already).
    WaitForOtherMasters(std::chrono::seconds(2));
    MPI_Abort(MPI_COMM_WORLD, status);
  }
  MPI_Finalize();
  return status;
}
