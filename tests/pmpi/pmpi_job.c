/*
 * pmpi_job: a job with a known number of profiled calls, for pmpi_counter.
 * Each rank sends two messages of 10 ints to the next rank and receives
 * two from the previous one, takes part in one MPI_Bcast of 64 ints and in
 * three MPI_Allreduce of one double. It also makes calls that libbdmpi
 * serves with others internally (MPI_Sendrecv, MPI_Attr_get, MPI_Reduce,
 * MPI_Barrier), which the profiler must not count.
 *
 * On 4 ranks the totals pmpi_counter prints are therefore
 *   MPI_Send 8 calls 320 bytes, MPI_Recv 8 calls 320 bytes,
 *   MPI_Bcast 4 calls 1024 bytes, MPI_Allreduce 12 calls 96 bytes,
 *   MPI_Comm_get_attr 0 calls 0 bytes
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  int out[10], in[10];
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 10; ++i) out[i] = rank * 100 + round * 10 + i;
    if (rank % 2 == 0) {
      MPI_Send(out, 10, MPI_INT, next, round, MPI_COMM_WORLD);
      MPI_Recv(in, 10, MPI_INT, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 10, MPI_INT, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, 10, MPI_INT, next, round, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 10; ++i) {
      CHECK(in[i] == prev * 100 + round * 10 + i, "ring message %d word %d",
            round, i);
    }
  }

  int block[64];
  for (int i = 0; i < 64; ++i) block[i] = rank == 0 ? i * 7 : -1;
  MPI_Bcast(block, 64, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < 64; ++i) CHECK(block[i] == i * 7, "bcast word %d", i);

  for (int round = 1; round <= 3; ++round) {
    double mine = rank * round, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == round * size * (size - 1) / 2.0, "allreduce round %d", round);
  }

  /* Calls the profiler does not wrap, which must not reach its wrappers. */
  int token = rank, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, next, 9, &got, 1, MPI_INT, prev, 9,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(got == prev, "sendrecv got %d", got);
  int *tag_ub = NULL, flag = 0;
  MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB");
  int total = 0;
  MPI_Reduce(&token, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Finalize();
  return 0;
}
