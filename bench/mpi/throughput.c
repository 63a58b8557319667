/*
 * throughput -- rank 0 sends a batch of messages of 1 MiB and of 64 MiB to
 * rank 1, which acknowledges the whole batch with one 8-byte message.
 *
 * Under BDMPI with -nr 1 the sender runs until it blocks on the
 * acknowledgement, so every message of the batch is buffered (on disk when
 * large) before the receiver runs: this measures the buffered path.
 *
 * Output: BENCH throughput <bytes> <seconds per message>
 *         (bytes / seconds is the throughput in bytes/s)
 */
#include "bench_util.h"

enum { kDataTag = 21, kAckTag = 22 };

struct batch {
  int rank;
  long count;    /* messages per batch */
  long elements; /* doubles per message */
  double *buf;
};

static void send_batch(void *ctx, long iter) {
  struct batch *b = ctx;
  long long acked, expect = iter;
  for (long k = 0; k < b->count; ++k) {
    double base = (double)(iter * b->count + k + 1) * BENCH_SEQ;
    if (b->rank == 0) {
      bench_stamp(b->buf, b->elements, base);
      BENCH_MPI(MPI_Send(b->buf, (int)b->elements, MPI_DOUBLE, 1, kDataTag,
                         MPI_COMM_WORLD));
    } else if (b->rank == 1) {
      bench_poison(b->buf, b->elements);
      BENCH_MPI(MPI_Recv(b->buf, (int)b->elements, MPI_DOUBLE, 0, kDataTag,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      bench_check(b->buf, b->elements, base, 1.0, "throughput message");
    }
  }
  if (b->rank == 0) {
    BENCH_MPI(MPI_Recv(&acked, 1, MPI_LONG_LONG, 1, kAckTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    if (acked != expect)
      bench_fail("throughput ack %lld, expected %lld", acked, expect);
  } else if (b->rank == 1) {
    BENCH_MPI(MPI_Send(&expect, 1, MPI_LONG_LONG, 0, kAckTag,
                       MPI_COMM_WORLD));
  }
}

static void run_size(int rank, long bytes, long count, long reps,
                     int trials) {
  struct batch b = {rank, count, bytes / (long)sizeof(double), NULL};
  b.buf = bench_alloc((size_t)bytes);
  bench_stamp(b.buf, b.elements, 0.0); /* touch before timing */
  double lo, hi;
  reps = bench_reps(reps);
  double med = bench_time_op(send_batch, &b, 1, reps, trials, &lo, &hi);
  bench_report("throughput", bytes, med / (double)count, lo / (double)count,
               hi / (double)count, reps * count, trials);
  if (rank == 0)
    printf("# throughput %ld: %.1f MB/s\n", bytes,
           (double)bytes * (double)count / med / 1e6);
  free(b.buf);
}

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  if (bench_size() < 2) bench_fail("throughput needs at least 2 ranks");
  int rank = bench_rank();
  run_size(rank, 1L << 20, 128, 2, 5);
  run_size(rank, 64L << 20, 4, 1, 3);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
