// The masters' last check of collective steps at shutdown
// (master/network/stale_steps.h), on two real Open MPI processes (mpirun -np 2):
// a step message that node 1 sends late, after node 0 began its check,
// must still be found, however late it comes. MPI orders one sender's
// messages on one communicator only, so the check may not end before node
// 1's marker, which follows its step messages on the same communicator.
// (While the check took what happened to have arrived and the barrier on
// another communicator stood for the rest, node 0 missed it.)
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

#include "master/network/mpi_transport.h"
#include "master/network/stale_steps.h"

namespace {

constexpr int kStepTag = 4 * 17;  // the step's MPI tag (as Finished records it)
constexpr int kFlushTag = 1 << 20;

int Fail(const char* what) {
  std::fprintf(stderr, "stale_steps_test: FAIL: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int node = 0, nnodes = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &node);
  MPI_Comm_size(MPI_COMM_WORLD, &nnodes);
  if (nnodes != 2) return Fail("run with mpirun -np 2");
  MPI_Comm coll;
  MPI_Comm_dup(MPI_COMM_WORLD, &coll);
  bdmpi::StaleStepCheck check;
  // Both finished the step; node 1's ranks called it as a broadcast from
  // another root.
  bdmpi::StepSignature mine{1, 0, 8};
  bdmpi::StepSignature theirs{1, 1, 8};
  check.Finished(kStepTag, /*comm=*/3, /*seq=*/17, mine);
  if (node == 1) {
    // Late: node 0 is checking by now.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    unsigned char message[sizeof theirs + 8] = {};
    std::memcpy(message, &theirs, sizeof theirs);
    MPI_Send(message, sizeof message, MPI_BYTE, 0, kStepTag + 1, coll);
    check.Flush(coll, kFlushTag);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!check.Flushed() && std::chrono::steady_clock::now() < deadline) check.Drain(coll, node);
    if (!check.Flushed()) return Fail("node 0's marker did not come");
  } else {
    check.Flush(coll, kFlushTag);
    std::optional<bdmpi::StepConflict> conflict;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!check.Flushed() && std::chrono::steady_clock::now() < deadline) {
      if (std::optional<bdmpi::StepConflict> found = check.Drain(coll, node)) conflict = found;
    }
    if (!check.Flushed()) return Fail("node 1's marker did not come");
    if (!conflict) return Fail("node 1's late step message was not found");
    if (conflict->comm != 3 || conflict->seq != 17 || conflict->second_node != 1 ||
        !(conflict->first == mine) || !(conflict->second == theirs))
      return Fail("the conflict names the wrong step or calls");
    std::printf("stale_steps_test: node 1's late message found (root %d against %d)\n",
                conflict->second.root, conflict->first.root);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&coll);
  MPI_Finalize();
  return 0;
}
