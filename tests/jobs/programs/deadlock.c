/*
 * deadlock: programs that can never finish, one per --mode, for tests that
 * expect the runtime to end the job at once with a message naming the
 * blocked ranks and their calls (tests/jobs/CMakeLists.txt,
 * ending_job_test). None of them is correct MPI, so they have no mpirun
 * test: Open MPI would hang or fail in its own way.
 *
 *   recv          every rank MPI_Recv's from its left neighbour, tag 7
 *   irecv         the same with MPI_Irecv + MPI_Wait
 *   waitall       MPI_Irecv from the left (tag 7) and the right (tag 8),
 *                 then MPI_Waitall
 *   waitany       MPI_Irecv from the left (tag 7) and the right (tag 8),
 *                 then MPI_Waitany
 *   ssend         every rank MPI_Ssend's to its right neighbour, tag 7,
 *                 and nobody receives
 *   barrier_exit  the last rank finalizes and exits; the others call
 *                 MPI_Barrier
 *   reduce_counts MPI_Allreduce with count 2 on the last rank, 1 elsewhere
 *   bcast_sizes   MPI_Bcast of 4 ints from rank 0, 8 ints elsewhere
 *   some_barrier  the first half of the ranks call MPI_Barrier, the others
 *                 MPI_Recv from their left neighbour (tag 9): a collective
 *                 called by some ranks only
 *   mixed_colls   rank 0 calls MPI_Bcast, the others MPI_Barrier
 *   bcast_roots   MPI_Bcast of 64 KiB with root 0 on the first half of the
 *                 ranks, root `last` on the others: over 2 or 3 nodes no
 *                 node receives from a node of the other view
 *   idup          every rank but the last MPI_Comm_idup's MPI_COMM_WORLD and
 *                 waits; the last receives from rank 0, tag 7
 */
#include "check.h"

static const char *mode_of(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], "--mode") == 0) return argv[i + 1];
  }
  return "";
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size(), last = size - 1;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  const char *mode = mode_of(argc, argv);
  int buf[8] = {0}, sum[8] = {0};
  MPI_Request reqs[2];
  int index = -1;

  if (strcmp(mode, "recv") == 0) {
    MPI_Recv(buf, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "irecv") == 0) {
    MPI_Irecv(buf, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "waitall") == 0) {
    MPI_Irecv(buf, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(buf + 1, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  } else if (strcmp(mode, "waitany") == 0) {
    MPI_Irecv(buf, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(buf + 1, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "ssend") == 0) {
    MPI_Ssend(buf, 1, MPI_INT, right, 7, MPI_COMM_WORLD);
  } else if (strcmp(mode, "barrier_exit") == 0) {
    if (rank != last) MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "reduce_counts") == 0) {
    MPI_Allreduce(buf, sum, rank == last ? 2 : 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(mode, "bcast_sizes") == 0) {
    MPI_Bcast(buf, rank == 0 ? 4 : 8, MPI_INT, 0, MPI_COMM_WORLD);
  } else if (strcmp(mode, "some_barrier") == 0) {
    if (rank < size / 2) MPI_Barrier(MPI_COMM_WORLD);
    else MPI_Recv(buf, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "mixed_colls") == 0) {
    if (rank == 0) MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "bcast_roots") == 0) {
    /* Above Open MPI's eager limit: the roots' sends wait for receives. */
    static int big[16384];
    MPI_Bcast(big, 16384, MPI_INT, rank < size / 2 ? 0 : last, MPI_COMM_WORLD);
  } else if (strcmp(mode, "idup") == 0) {
    MPI_Comm copy;
    if (rank == last) {
      MPI_Recv(buf, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Comm_idup(MPI_COMM_WORLD, &copy, &reqs[0]);
      MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    }
  } else {
    CHECK(0, "unknown --mode '%s'", mode);
  }
  /* Reached only if the runtime let the job go on: the test then fails on
   * the exit status. */
  fprintf(stderr, "rank %d: deadlock mode '%s' returned\n", rank, mode);
  MPI_Finalize();
  return 0;
}
