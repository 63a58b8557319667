/*
 * finish_early: ranks that finish while another goes on. Every rank sums
 * 1 MiB vectors with MPI_Allreduce and passes 512 KiB + 8 messages round
 * a ring, several in flight (under BDMPI: payload segments, mapped by the
 * master for the reductions, warm afterwards), checking both bit for bit.
 * Then every rank but 0 tells rank 0 and calls MPI_Finalize; rank 0 prints
 * "lingering" and stays --linger S seconds (default 0) outside MPI before
 * it finalizes: time for a test to look at what the finished ranks left
 * while the job still runs (tests/jobs/segments_retired.sh).
 *
 * Usage: finish_early [--linger S]
 */
#include <unistd.h>
#include "check.h"

enum { kRounds = 3, kInFlight = 4 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  double linger = 0;
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], "--linger") == 0 && i + 1 < argc) linger = atof(argv[++i]);

  const size_t doubles = (1 << 20) / sizeof(double);
  double *mine = xmalloc(doubles * sizeof(double)), *sum = xmalloc(doubles * sizeof(double));
  const size_t bytes = (512 << 10) + 8;
  unsigned char *out[kInFlight], *in[kInFlight];
  for (int k = 0; k < kInFlight; ++k) {
    out[k] = xmalloc(bytes);
    in[k] = xmalloc(bytes);
  }
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int round = 0; round < kRounds; ++round) {
    for (size_t i = 0; i < doubles; ++i) mine[i] = (double)(rank + round) + (double)(i % 7);
    MPI_Allreduce(mine, sum, (int)doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (size_t i = 0; i < doubles; ++i) {
      double want = (double)size * (double)(i % 7) + (double)size * round +
                    (double)size * (size - 1) / 2;
      CHECK(sum[i] == want, "Allreduce (round %d): element %zu is %g, want %g", round, i,
            sum[i], want);
    }
    MPI_Request requests[2 * kInFlight];
    for (int k = 0; k < kInFlight; ++k) {
      for (size_t i = 0; i < bytes; ++i) out[k][i] = pattern_byte((uint64_t)(rank * 100 + round * 10 + k), i);
      MPI_Irecv(in[k], (int)bytes, MPI_BYTE, prev, k, MPI_COMM_WORLD, &requests[2 * k]);
      MPI_Isend(out[k], (int)bytes, MPI_BYTE, next, k, MPI_COMM_WORLD, &requests[2 * k + 1]);
    }
    MPI_Waitall(2 * kInFlight, requests, MPI_STATUSES_IGNORE);
    for (int k = 0; k < kInFlight; ++k)
      for (size_t i = 0; i < bytes; ++i)
        CHECK(in[k][i] == pattern_byte((uint64_t)(prev * 100 + round * 10 + k), i),
              "ring message %d (round %d): byte %zu wrong", k, round, i);
  }
  if (rank == 0) {
    for (int r = 1; r < size; ++r)
      MPI_Recv(NULL, 0, MPI_BYTE, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("lingering\n");
    fflush(stdout);
    usleep((useconds_t)(linger * 1e6));
  } else {
    // Synchronous, so that rank 0's receive goes through the master: a
    // rank that read a message from another's payload segment gives it
    // back with its next request to the master, and a receive that
    // completes in the rank (a small standard send) would leave rank 1's
    // segment held while rank 0 lingers outside MPI.
    MPI_Ssend(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD);
  }
  for (int k = 0; k < kInFlight; ++k) {
    free(out[k]);
    free(in[k]);
  }
  free(mine);
  free(sum);
  MPI_Finalize();
  return 0;
}
