/*
 * patience: the last rank computes (sleeps) for --seconds (default 2)
 * while every other rank waits for it: rank 0 in MPI_Recv, the others in
 * MPI_Barrier. Nobody is deadlocked, so the deadlock watch (one node or
 * several) must let the job finish. Then an 8 MiB MPI_Bcast from the last
 * rank, which crosses nodes through the masters' spill files.
 */
#include <unistd.h>

#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size(), last = size - 1;
  const unsigned seconds = (unsigned)arg_ll(argc, argv, "--seconds", 2);
  int value = -1;
  if (rank == last) {
    sleep(seconds);
    value = 42;
    if (last != 0) MPI_Send(&value, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Recv(&value, 1, MPI_INT, last, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  CHECK(rank != 0 || value == 42, "rank 0 received %d, want 42", value);
  MPI_Barrier(MPI_COMM_WORLD);

  const size_t bytes = 8 << 20;
  unsigned char *buf = xmalloc(bytes);
  if (rank == last) fill_pattern(buf, bytes, msg_seed(last, 0, bytes));
  MPI_Bcast(buf, (int)bytes, MPI_BYTE, last, MPI_COMM_WORLD);
  CHECK_PATTERN(buf, bytes, msg_seed(last, 0, bytes), "broadcast");
  free(buf);
  MPI_Finalize();
  return 0;
}
