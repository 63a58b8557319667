/*
 * barrier -- time per MPI_Barrier over all ranks.
 *
 * Under BDMPI with -nr 1 every barrier runs each slave once, so time per
 * barrier / ranks is the cost of one slave switch.
 *
 * Output: BENCH barrier <ranks> <seconds per barrier>
 */
#include <time.h>

#include "bench_util.h"

static void barrier(void *ctx, long iter) {
  (void)ctx;
  (void)iter;
  BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* A barrier that lets a rank out before the last one came in is broken.
 * The last rank comes in late on purpose; one node-wide clock (CLOCK_MONOTONIC)
 * orders every rank's entry and exit. */
static void check_barrier(int rank, int size) {
  for (int round = 0; round < 3; ++round) {
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == size - 1) {
      struct timespec late = {0, 5 * 1000 * 1000};
      nanosleep(&late, NULL);
    }
    double stamps[2];
    stamps[0] = bench_now();  /* entry */
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    stamps[1] = -bench_now(); /* exit, negated: max gives the first exit */
    double worst[2];
    BENCH_MPI(MPI_Allreduce(stamps, worst, 2, MPI_DOUBLE, MPI_MAX,
                            MPI_COMM_WORLD));
    if (-worst[1] < worst[0])
      bench_fail("barrier released a rank %.1f us before the last entered",
                 (worst[0] + worst[1]) * 1e6);
  }
}

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  int rank = bench_rank(), size = bench_size();
  check_barrier(rank, size);
  bench_run("barrier", size, barrier, NULL, 100, 2000, 5);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
