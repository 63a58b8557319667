/*
 * sendrecv: MPI_Sendrecv as a ring shift (send right, receive from left) at
 * every threshold size, as a shift by a varying distance, and with the rank
 * itself as both destination and source. Sendrecv must not deadlock even
 * when every rank sends a large message at once.
 *
 * Options: --max-bytes N skips larger sizes.
 */
#include "check.h"

static void shift(int rank, int dst, int src, size_t bytes, int tag) {
  unsigned char *out = xmalloc(bytes), *in = xmalloc(bytes);
  fill_pattern(out, bytes, msg_seed(rank, dst, bytes));
  memset(in, 0, bytes);
  MPI_Status st;
  MPI_Sendrecv(out, (int)bytes, MPI_BYTE, dst, tag, in, (int)bytes, MPI_BYTE,
               src, tag, MPI_COMM_WORLD, &st);
  CHECK_STATUS(st, src, tag, MPI_BYTE, bytes);
  CHECK_PATTERN(in, bytes, msg_seed(src, rank, bytes), "Sendrecv message");
  free(out);
  free(in);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int nsizes = threshold_sizes(argc, argv);

  for (int s = 0; s < nsizes; ++s) {
    const size_t bytes = kThresholdSizes[s];
    shift(rank, (rank + 1) % size, (rank + size - 1) % size, bytes, s);
    shift(rank, rank, rank, bytes, 100 + s);
  }
  /* Shift by every distance with a small message (all pairs, cheaply). */
  for (int d = 0; d < size; ++d) {
    shift(rank, (rank + d) % size, (rank + size - d) % size, 24, 200);
  }

  /* Send tag, receive tag and counts differ within one call (the tag is
   * the sender's rank), and the source is a wildcard. */
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[3] = {rank, rank * 2, rank * 3}, in[5] = {-1, -1, -1, -1, -1};
  MPI_Status st;
  MPI_Sendrecv(out, 3, MPI_INT, right, 10 + rank, in, 5, MPI_INT,
               MPI_ANY_SOURCE, 10 + left, MPI_COMM_WORLD, &st);
  CHECK_STATUS(st, left, 10 + left, MPI_INT, 3);
  CHECK(in[0] == left && in[1] == 2 * left && in[2] == 3 * left && in[3] == -1,
        "Sendrecv ints: %d %d %d %d, want %d %d %d -1", in[0], in[1], in[2],
        in[3], left, 2 * left, 3 * left);
  MPI_Finalize();
  return 0;
}
