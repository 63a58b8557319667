/*
 * pingpong -- 8-byte round trip between ranks 0 and 1.
 *
 * Every other rank only takes part in the barriers and reductions of the
 * timing harness, so under BDMPI with -nr 1 it stays blocked in a collective
 * and each round trip costs two slave switches plus two messages.
 *
 * Output: BENCH pingpong 8 <seconds per round trip>
 */
#include "bench_util.h"

enum { kTag = 17 };

static void round_trip(void *ctx, long iter) {
  int rank = *(const int *)ctx;
  long long expect = 2 * (long long)iter, msg;
  if (rank == 0) {
    msg = expect;
    BENCH_MPI(MPI_Send(&msg, 1, MPI_LONG_LONG, 1, kTag, MPI_COMM_WORLD));
    BENCH_MPI(MPI_Recv(&msg, 1, MPI_LONG_LONG, 1, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    if (msg != expect + 1)
      bench_fail("pingpong reply %lld, expected %lld", msg, expect + 1);
  } else if (rank == 1) {
    msg = -1;
    BENCH_MPI(MPI_Recv(&msg, 1, MPI_LONG_LONG, 0, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    if (msg != expect)
      bench_fail("pingpong request %lld, expected %lld", msg, expect);
    ++msg;
    BENCH_MPI(MPI_Send(&msg, 1, MPI_LONG_LONG, 0, kTag, MPI_COMM_WORLD));
  }
}

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  if (bench_size() < 2) bench_fail("pingpong needs at least 2 ranks");
  int rank = bench_rank();
  bench_run("pingpong", 8, round_trip, &rank, 1000, 10000, 5);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
