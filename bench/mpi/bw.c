/*
 * bw -- bandwidth as the OSU micro-benchmarks measure it (osu_bw): rank 0
 * starts a window of MPI_Isend to rank 1, which has posted as many
 * MPI_Irecv; both wait for all, then rank 1 acknowledges the window with
 * one 4-byte message.  8 B, 64 KiB, 1 MiB and 4 MiB, or the sizes given.
 *
 * Every message of a window has a buffer of its own on either side and a
 * stamp of its own (osu_bw reuses one buffer), so a lost, duplicated or misplaced message fails the
 * run.  Under BDMPI with -nr 1 the sender runs until it waits for the
 * acknowledgement: the whole window is buffered before the receiver runs.
 *
 * Usage:  bw [SIZE,...] [WINDOW]       (WINDOW default 64, as osu_bw)
 * Output: BENCH bw <bytes> <seconds per message>
 *         (bytes / seconds is the bandwidth in bytes/s)
 */
#include "bench_util.h"

enum { kDataTag = 31, kAckTag = 32, kMaxWindow = 1024 };

struct window {
  int rank, count;
  long elements;   /* doubles per message */
  double *buf;     /* count messages, on both sides */
  MPI_Request requests[kMaxWindow];
};

static double stamp_of(long iter, int count, int k) {
  return (double)(iter * count + k + 1) * BENCH_SEQ;
}

static void one_window(void *ctx, long iter) {
  struct window *w = ctx;
  int ack = 0;
  if (w->rank == 0) {
    /* A buffer per message: the messages of a window are in flight
     * together and each carries its own stamp. */
    for (int k = 0; k < w->count; ++k) {
      double *buf = w->buf + (long)k * w->elements;
      bench_stamp(buf, w->elements, stamp_of(iter, w->count, k));
      BENCH_MPI(MPI_Isend(buf, (int)w->elements, MPI_DOUBLE, 1, kDataTag,
                          MPI_COMM_WORLD, &w->requests[k]));
    }
    BENCH_MPI(MPI_Waitall(w->count, w->requests, MPI_STATUSES_IGNORE));
    BENCH_MPI(MPI_Recv(&ack, 1, MPI_INT, 1, kAckTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    if (ack != (int)iter) bench_fail("bw ack %d, expected %ld", ack, iter);
  } else if (w->rank == 1) {
    for (int k = 0; k < w->count; ++k) {
      double *buf = w->buf + (long)k * w->elements;
      bench_poison(buf, w->elements);
      BENCH_MPI(MPI_Irecv(buf, (int)w->elements, MPI_DOUBLE, 0, kDataTag,
                          MPI_COMM_WORLD, &w->requests[k]));
    }
    BENCH_MPI(MPI_Waitall(w->count, w->requests, MPI_STATUSES_IGNORE));
    for (int k = 0; k < w->count; ++k)
      bench_check(w->buf + (long)k * w->elements, w->elements,
                  stamp_of(iter, w->count, k), 1.0, "bw message");
    ack = (int)iter;
    BENCH_MPI(MPI_Send(&ack, 1, MPI_INT, 0, kAckTag, MPI_COMM_WORLD));
  }
}

static void run_size(int rank, long bytes, int count) {
  struct window w = {rank, count, bytes / (long)sizeof(double), NULL, {0}};
  size_t all = (size_t)bytes * (size_t)count;
  w.buf = bench_alloc(all);
  memset(w.buf, 0, all); /* touch before timing */
  /* Repetitions as osu_bw: more windows for small messages. */
  long reps = bytes <= 8192 ? 100 : 20;
  double lo, hi;
  reps = bench_reps(reps);
  double med = bench_time_op(one_window, &w, reps / 10 + 1, reps, 5, &lo, &hi);
  bench_report("bw", bytes, med / count, lo / count, hi / count, reps * count, 5);
  if (rank == 0)
    printf("# bw %ld: %.1f MB/s (window of %d)\n", bytes,
           (double)bytes * count / med / 1e6, count);
  free(w.buf);
}

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  if (bench_size() < 2) bench_fail("bw needs at least 2 ranks");
  enum { kMaxSizes = 32 };
  long sizes[kMaxSizes] = {8, 64L << 10, 1L << 20, 4L << 20};
  int nsizes = argc > 1 ? bench_parse_sizes(argv[1], sizes, kMaxSizes) : 4;
  int count = argc > 2 ? atoi(argv[2]) : 64;
  if (count < 1 || count > kMaxWindow)
    bench_fail("bad window '%s': 1 to %d messages", argv[2], kMaxWindow);
  int rank = bench_rank();
  for (int p = 0; p < nsizes; ++p) run_size(rank, sizes[p], count);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
