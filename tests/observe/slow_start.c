/* Rank 0 computes for a while (SLOW_START_MS, default 2000) before a ring
 * of messages, a broadcast and an allreduce: meanwhile every other rank is
 * blocked in MPI_Recv, which the live status (SIGUSR1, --progress) and the
 * report must show. Self-checking: the ring's token and the reductions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void Sleep(long ms) {
  struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&pause, NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* ms = getenv("SLOW_START_MS");
  int tag = 7;
  /* 64 KiB + 1 in the middle of the ring: the spill-file path too. */
  enum { kBig = 70000 };
  static char big[kBig];
  int token = 0;
  if (rank == 0) {
    Sleep(ms != NULL ? atol(ms) : 2000);
    token = 1;
    MPI_Send(&token, 1, MPI_INT, 1 % size, tag, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, size - 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (token != size) {
      fprintf(stderr, "rank 0: token %d, expected %d\n", token, size);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  } else {
    MPI_Recv(&token, 1, MPI_INT, rank - 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ++token;
    MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, tag, MPI_COMM_WORLD);
  }
  memset(big, rank, sizeof big);
  MPI_Sendrecv_replace(big, kBig, MPI_CHAR, (rank + 1) % size, 1, (rank + size - 1) % size, 1,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (big[0] != (char)((rank + size - 1) % size)) MPI_Abort(MPI_COMM_WORLD, 2);
  int value = rank == 0 ? 42 : 0;
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (value != 42 || sum != size * (size - 1) / 2) {
    fprintf(stderr, "rank %d: bcast %d, allreduce %d\n", rank, value, sum);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("slow_start: %d ranks OK\n", size);
  MPI_Finalize();
  return 0;
}
