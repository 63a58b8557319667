/*
 * p2p_ring: every rank sends to its right neighbour and receives from its
 * left, once per threshold size (0 B .. 1 MiB), with blocking MPI_Send and
 * MPI_Recv. With one rank the neighbour is the rank itself.
 *
 * The receive from the left is posted (MPI_Irecv) before the blocking send,
 * so the program is correct MPI even where large sends wait for their
 * receiver (Open MPI's rendezvous); the matching MPI_Recv tests the blocking
 * path with a second message right after.
 *
 * Options: --max-bytes N skips larger sizes (to keep big runs cheap).
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const int nsizes = threshold_sizes(argc, argv);

  for (int s = 0; s < nsizes; ++s) {
    const size_t bytes = kThresholdSizes[s];
    unsigned char *out = xmalloc(bytes), *in1 = xmalloc(bytes),
                  *in2 = xmalloc(bytes);
    fill_pattern(out, bytes, msg_seed(rank, right, bytes));
    memset(in1, 0, bytes);
    memset(in2, 0, bytes);

    /* Message 1 (tag 2s): Irecv first, blocking Send, Wait. */
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(in1, (int)bytes, MPI_BYTE, left, 2 * s, MPI_COMM_WORLD, &req);
    MPI_Send(out, (int)bytes, MPI_BYTE, right, 2 * s, MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    CHECK_STATUS(st, left, 2 * s, MPI_BYTE, bytes);
    CHECK_PATTERN(in1, bytes, msg_seed(left, rank, bytes), "ring message 1");

    /* Message 2 (tag 2s+1): Isend, blocking Recv, Wait. */
    MPI_Isend(out, (int)bytes, MPI_BYTE, right, 2 * s + 1, MPI_COMM_WORLD,
              &req);
    MPI_Recv(in2, (int)bytes, MPI_BYTE, left, 2 * s + 1, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_STATUS(st, left, 2 * s + 1, MPI_BYTE, bytes);
    CHECK_PATTERN(in2, bytes, msg_seed(left, rank, bytes), "ring message 2");
    /* The send buffer must be untouched by sending it. */
    CHECK_PATTERN(out, bytes, msg_seed(rank, right, bytes), "send buffer");

    free(out);
    free(in1);
    free(in2);
  }
  MPI_Finalize();
  return 0;
}
