/*
 * pingpong -- round trip between ranks 0 and 1: 8 bytes, or each of the
 * sizes given (multiples of 8, k/m suffixes, comma-separated).
 *
 * Every other rank only takes part in the barriers and reductions of the
 * timing harness, so under BDMPI with -nr 1 it stays blocked in a collective
 * and each round trip costs two slave switches plus two messages.
 *
 * Usage:  pingpong [BYTES[,BYTES...]]
 * Output: BENCH pingpong <bytes> <seconds per round trip>
 */
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { kTag = 17 };

struct large {
  int rank;
  long elements;
  double *buf;
};

/* The same exchange with a buffer of doubles, checked at sampled elements
 * (bench_stamp/bench_check): each side stamps what it sends. */
static void large_round_trip(void *ctx, long iter) {
  struct large *l = ctx;
  double out = (double)(2 * iter + 1) * BENCH_SEQ, back = out + BENCH_SEQ;
  int peer = 1 - l->rank;
  if (l->rank > 1) return;
  if (l->rank == 0) {
    bench_stamp(l->buf, l->elements, out);
    BENCH_MPI(MPI_Send(l->buf, (int)l->elements, MPI_DOUBLE, peer, kTag, MPI_COMM_WORLD));
    bench_poison(l->buf, l->elements);
    BENCH_MPI(MPI_Recv(l->buf, (int)l->elements, MPI_DOUBLE, peer, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    bench_check(l->buf, l->elements, back, 1.0, "pingpong reply");
  } else {
    bench_poison(l->buf, l->elements);
    BENCH_MPI(MPI_Recv(l->buf, (int)l->elements, MPI_DOUBLE, peer, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    bench_check(l->buf, l->elements, out, 1.0, "pingpong request");
    bench_stamp(l->buf, l->elements, back);
    BENCH_MPI(MPI_Send(l->buf, (int)l->elements, MPI_DOUBLE, peer, kTag, MPI_COMM_WORLD));
  }
}

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

static void run_size(int rank, long bytes) {
  if (bytes == 8) {
    bench_run("pingpong", 8, round_trip, &rank, 1000, 10000, 5);
    return;
  }
  struct large l = {rank, bytes / (long)sizeof(double), bench_alloc((size_t)bytes)};
  memset(l.buf, 0, (size_t)bytes);
  long reps = bytes <= (64L << 10) ? 1000 : 100;
  bench_run("pingpong", bytes, large_round_trip, &l, reps / 10, reps, 5);
  free(l.buf);
}

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  if (bench_size() < 2) bench_fail("pingpong needs at least 2 ranks");
  int rank = bench_rank();
  enum { kMaxSizes = 32 };
  long sizes[kMaxSizes] = {8};
  int nsizes = argc > 1 ? bench_parse_sizes(argv[1], sizes, kMaxSizes) : 1;
  for (int p = 0; p < nsizes; ++p) run_size(rank, sizes[p]);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
