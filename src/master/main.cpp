// bdmprun: the master daemon, one per node, normally started by bdmpiexec.
// It is an Open MPI program so that the masters of a multi-node job form one
// MPI job; on one node it runs as an Open MPI singleton.
#include <mpi.h>
#include <signal.h>

#include <cstdio>
#include <exception>

#include "common/error.h"
#include "common/log.h"
#include "master/master.h"
#include "master/options.h"

int main(int argc, char** argv) {
  // Block the signals the event loop reads from a signalfd before Open MPI
  // starts its threads, so that they inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, sig);
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
  if (status != 0 && nnodes > 1) {
    // Every master has cleaned up (or is doing so after our notice); this
    // ends the ones that could not hear it.
    MPI_Abort(MPI_COMM_WORLD, status);
  }
  MPI_Finalize();
  return status;
}
