/*
 * p2p_huge: one 64 MiB message (16 Mi ints) from rank 0 to the last rank
 * and a different one back, both pattern-filled and verified byte by byte.
 * With one rank, rank 0 sends to itself (receive posted first).
 *
 * Exercises the large-message path end to end: spill files far larger than
 * any memory threshold, written by one slave and read by another.
 */
#include "check.h"

enum { kInts = 16 << 20 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size(), last = size - 1;
  const size_t bytes = (size_t)kInts * sizeof(int);
  const uint64_t there = msg_seed(0, last, bytes),
                 back = msg_seed(last, 0, bytes);
  MPI_Status st;

  if (rank == 0 || rank == last) {
    int *buf = xmalloc(bytes);
    if (rank == 0) {
      fill_pattern(buf, bytes, there);
      MPI_Request req = MPI_REQUEST_NULL;
      if (size == 1) {
        /* To itself: the receive must be posted before the send. */
        int *in = xmalloc(bytes);
        MPI_Irecv(in, kInts, MPI_INT, 0, 1, MPI_COMM_WORLD, &req);
        MPI_Send(buf, kInts, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        CHECK_STATUS(st, 0, 1, MPI_INT, kInts);
        CHECK_PATTERN(in, bytes, there, "64 MiB message to self");
        free(in);
      } else {
        MPI_Send(buf, kInts, MPI_INT, last, 1, MPI_COMM_WORLD);
        memset(buf, 0, bytes);
        MPI_Recv(buf, kInts, MPI_INT, last, 2, MPI_COMM_WORLD, &st);
        CHECK_STATUS(st, last, 2, MPI_INT, kInts);
        CHECK_PATTERN(buf, bytes, back, "64 MiB reply");
      }
    } else {
      MPI_Recv(buf, kInts, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
      CHECK_STATUS(st, 0, 1, MPI_INT, kInts);
      int nbytes = -1;
      MPI_Get_count(&st, MPI_BYTE, &nbytes);
      CHECK(nbytes == (int)bytes, "count in bytes %d, want %zu", nbytes, bytes);
      CHECK_PATTERN(buf, bytes, there, "64 MiB message");
      fill_pattern(buf, bytes, back);
      MPI_Send(buf, kInts, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    free(buf);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
