/*
 * finish_early: ranks that finish while another goes on. Every rank sums
 * 1 MiB vectors with MPI_Allreduce and passes 512 KiB + 8 messages round
 * a ring, several in flight (under BDMPI: payload segments, mapped by the
 * master for the reductions, warm afterwards), checking both bit for bit.
 * Then every rank but 0 tells rank 0, in a message of 1 MiB + 8, and
 * calls MPI_Finalize; rank 0 prints "lingering" and stays --linger S
 * seconds (default 0) outside MPI before it finalizes: time for a test to
 * look at what the finished ranks left while the job still runs
 * (tests/jobs/segments_retired.sh).
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
  /* The last word is large: under BDMPI rank 0 reads it from the
   * sender's payload segment (probed first, so that no receive was posted
   * for the sender to write into), and must let go of it once read
   * (PayloadRead), not at its next request after it lingered. */
  const size_t done_bytes = (1 << 20) + 8;
  unsigned char *done = xmalloc(done_bytes);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      MPI_Probe(r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(done, (int)done_bytes, MPI_BYTE, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (size_t i = 0; i < done_bytes; ++i)
        CHECK(done[i] == pattern_byte((uint64_t)(1000 + r), i), "rank %d's last word: byte %zu wrong",
              r, i);
    }
    printf("lingering\n");
    fflush(stdout);
    usleep((useconds_t)(linger * 1e6));
  } else {
    for (size_t i = 0; i < done_bytes; ++i) done[i] = pattern_byte((uint64_t)(1000 + rank), i);
    MPI_Send(done, (int)done_bytes, MPI_BYTE, 0, 99, MPI_COMM_WORLD);
  }
  free(done);
  for (int k = 0; k < kInFlight; ++k) {
    free(out[k]);
    free(in[k]);
  }
  free(mine);
  free(sum);
  MPI_Finalize();
  return 0;
}
