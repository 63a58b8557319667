/*
 * p2p_allpairs: every ordered pair of ranks (including a rank with itself)
 * exchanges one message of each threshold size, so every sender/receiver
 * combination of the runtime is used: both running, one swapped out, same
 * or different node.
 *
 * Round k pairs each rank with dst = rank+k and src = rank-k (mod size);
 * receives are posted before the blocking send, so the program never relies
 * on buffered sends. Each size uses its own tag.
 *
 * Options: --max-bytes N skips larger sizes (size^2 messages per size).
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int nsizes = threshold_sizes(argc, argv);

  for (int s = 0; s < nsizes; ++s) {
    const size_t bytes = kThresholdSizes[s];
    unsigned char *out = xmalloc(bytes), *in = xmalloc(bytes);
    for (int k = 0; k < size; ++k) {
      const int dst = (rank + k) % size, src = (rank + size - k) % size;
      fill_pattern(out, bytes, msg_seed(rank, dst, bytes));
      memset(in, 0, bytes);
      MPI_Request req;
      MPI_Status st;
      MPI_Irecv(in, (int)bytes, MPI_BYTE, src, s, MPI_COMM_WORLD, &req);
      MPI_Send(out, (int)bytes, MPI_BYTE, dst, s, MPI_COMM_WORLD);
      MPI_Wait(&req, &st);
      CHECK_STATUS(st, src, s, MPI_BYTE, bytes);
      CHECK_PATTERN(in, bytes, msg_seed(src, rank, bytes), "all-pairs message");
    }
    free(out);
    free(in);
  }
  MPI_Finalize();
  return 0;
}
