/*
 * comm_free_pending: a communicator freed while a collective on it is still
 * in progress.
 *
 * MPI_Reduce returns on a non-root as soon as its part is buffered, so it
 * may free the communicator and even finalize before the root has joined.
 * The collective must still complete on the root with the right result
 * (MPI_Comm_free only marks the communicator for deallocation; pending
 * operations complete normally). Rounds alternate the root, so that with
 * -nr 1 the root is sometimes the last rank to run. MPICH's
 * coll/allgatherv4 found this: the master took the departed non-roots for
 * members that had never joined and ended the job.
 */
#include "check.h"

enum { kRounds = 4 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = world_size(), rank = world_rank();
  for (int round = 0; round < kRounds; ++round) {
    int root = (round % 2 == 0) ? size - 1 : 0;
    MPI_Comm comm;
    /* Reverse the ranks so that the root's comm rank differs from its world rank. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comm);
    int croot = size - 1 - root;
    long mine = rank + 1, sum = -1;
    MPI_Barrier(comm);
    MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, croot, comm);
    MPI_Bcast(&round, 1, MPI_INT, croot, comm); /* root sends: non-roots receive later */
    MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, croot, comm);
    MPI_Comm_free(&comm);
    if (rank == root) CHECK(sum == (long)size * (size + 1) / 2, "round %d: sum %ld", round, sum);
  }
  /* The last reduce on MPI_COMM_WORLD's duplicate too: non-roots finalize first. */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  long mine = rank, sum = -1;
  MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, size - 1, dup);
  MPI_Comm_free(&dup);
  if (rank == size - 1) CHECK(sum == (long)size * (size - 1) / 2, "final sum %ld", sum);
  MPI_Finalize();
  return 0;
}
