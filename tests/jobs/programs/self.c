/*
 * self: messages a rank sends to itself, at every threshold size.
 *
 *  1. Irecv first, then blocking Send, then Wait.
 *  2. Isend first, then blocking Recv, then Wait.
 *  3. Blocking Send first, then blocking Recv. Correct MPI only while the
 *     send is buffered, so by default only for sizes below Open MPI's
 *     self-transport eager limit (1 KiB); with --buffered-sends (for
 *     runtimes that, like BDMPI, buffer every send) for all sizes.
 */
#include "check.h"

enum { kEagerEverywhere = 512 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank();
  const int all_buffered = arg_flag(argc, argv, "--buffered-sends");

  for (int s = 0; s < kNumThresholdSizes; ++s) {
    const size_t bytes = kThresholdSizes[s];
    const uint64_t seed = msg_seed(rank, rank, bytes);
    unsigned char *out = xmalloc(bytes), *in = xmalloc(bytes);
    fill_pattern(out, bytes, seed);
    MPI_Request req;
    MPI_Status st;

    memset(in, 0, bytes);
    MPI_Irecv(in, (int)bytes, MPI_BYTE, rank, 10, MPI_COMM_WORLD, &req);
    MPI_Send(out, (int)bytes, MPI_BYTE, rank, 10, MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    CHECK_STATUS(st, rank, 10, MPI_BYTE, bytes);
    CHECK_PATTERN(in, bytes, seed, "Irecv-first self message");

    memset(in, 0, bytes);
    MPI_Isend(out, (int)bytes, MPI_BYTE, rank, 11, MPI_COMM_WORLD, &req);
    MPI_Recv(in, (int)bytes, MPI_BYTE, rank, 11, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_STATUS(st, rank, 11, MPI_BYTE, bytes);
    CHECK_PATTERN(in, bytes, seed, "Isend-first self message");

    if (all_buffered || bytes <= kEagerEverywhere) {
      memset(in, 0, bytes);
      MPI_Send(out, (int)bytes, MPI_BYTE, rank, 12, MPI_COMM_WORLD);
      MPI_Recv(in, (int)bytes, MPI_BYTE, rank, 12, MPI_COMM_WORLD, &st);
      CHECK_STATUS(st, rank, 12, MPI_BYTE, bytes);
      CHECK_PATTERN(in, bytes, seed, "Send-first self message");
    }
    free(out);
    free(in);
  }
  MPI_Finalize();
  return 0;
}
