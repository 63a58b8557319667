/*
 * rma -- one-sided latency and bandwidth between two ranks (as OSU's
 * osu_put_latency / osu_get_latency with a lock epoch and a flush per
 * operation): rank 0 puts to or gets from rank 1's MPI_Win_allocate memory
 * while rank 1 waits in a barrier, at 8 B, 64 KiB and 1 MiB; an accumulate
 * of 1 MiB of doubles (MPI_SUM); an empty fence epoch (both ranks) and an
 * empty lock/unlock epoch (rank 0).
 *
 * Each put carries a stamp that rank 0 reads back at the end, and each get
 * checks the target's stamp, so a lost operation fails the run.
 *
 * Output: BENCH rma_put <bytes> <s>, rma_get, rma_acc, rma_fence 0,
 *         rma_lock 0 (seconds per operation or epoch).
 */
#include "bench_util.h"

enum { kMaxBytes = 1 << 20 };

struct ctx {
  int rank;
  MPI_Win win;
  double *local;
  double *mem;
  long elements;
};

static void put_op(void *p, long iter) {
  struct ctx *c = p;
  if (c->rank != 0) return;
  c->local[0] = (double)iter;
  c->local[c->elements - 1] = (double)iter;
  BENCH_MPI(MPI_Put(c->local, (int)c->elements, MPI_DOUBLE, 1, 0, (int)c->elements, MPI_DOUBLE,
                    c->win));
  BENCH_MPI(MPI_Win_flush(1, c->win));
}

static void get_op(void *p, long iter) {
  struct ctx *c = p;
  (void)iter;
  if (c->rank != 0) return;
  c->local[0] = -1;
  BENCH_MPI(MPI_Get(c->local, (int)c->elements, MPI_DOUBLE, 1, 0, (int)c->elements, MPI_DOUBLE,
                    c->win));
  BENCH_MPI(MPI_Win_flush(1, c->win));
  if (c->local[0] != 42.0) bench_fail("get read %g, want 42", c->local[0]);
}

static void acc_op(void *p, long iter) {
  struct ctx *c = p;
  (void)iter;
  if (c->rank != 0) return;
  BENCH_MPI(MPI_Accumulate(c->local, (int)c->elements, MPI_DOUBLE, 1, 0, (int)c->elements,
                           MPI_DOUBLE, MPI_SUM, c->win));
  BENCH_MPI(MPI_Win_flush(1, c->win));
}

static void fence_op(void *p, long iter) {
  struct ctx *c = p;
  (void)iter;
  BENCH_MPI(MPI_Win_fence(0, c->win));
}

static void lock_op(void *p, long iter) {
  struct ctx *c = p;
  (void)iter;
  if (c->rank != 0) return;
  BENCH_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, c->win));
  BENCH_MPI(MPI_Win_unlock(1, c->win));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  (void)argv;
  if (bench_size() != 2) bench_fail("rma runs on 2 ranks");
  struct ctx c = {bench_rank(), MPI_WIN_NULL, NULL, NULL, 0};
  BENCH_MPI(MPI_Win_allocate(kMaxBytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &c.mem,
                             &c.win));
  c.local = bench_alloc(kMaxBytes);
  for (long i = 0; i < kMaxBytes / 8; ++i) c.local[i] = 1.0;
  static const long sizes[] = {8, 65536, kMaxBytes};
  double lo, hi, med;
  for (int s = 0; s < 3; ++s) {
    c.elements = sizes[s] / 8;
    long reps = bench_reps(sizes[s] >= kMaxBytes ? 200 : 2000);
    /* Passive target: the target only waits in the timing's barriers. */
    if (c.rank == 0) BENCH_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c.win));
    med = bench_time_op(put_op, &c, 10, reps, 5, &lo, &hi);
    if (c.rank == 0) BENCH_MPI(MPI_Win_unlock(1, c.win));
    bench_report("rma_put", sizes[s], med, lo, hi, reps, 5);
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (c.rank == 1) {
      if (c.mem[0] != c.mem[c.elements - 1] || c.mem[0] < (double)reps)
        bench_fail("put left stamps %g and %g", c.mem[0], c.mem[c.elements - 1]);
      c.mem[0] = 42.0;
    }
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (c.rank == 0) BENCH_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c.win));
    med = bench_time_op(get_op, &c, 10, reps, 5, &lo, &hi);
    if (c.rank == 0) BENCH_MPI(MPI_Win_unlock(1, c.win));
    bench_report("rma_get", sizes[s], med, lo, hi, reps, 5);
  }
  c.elements = kMaxBytes / 8;
  if (c.rank == 0) BENCH_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c.win));
  long reps = bench_reps(100);
  med = bench_time_op(acc_op, &c, 5, reps, 5, &lo, &hi);
  if (c.rank == 0) BENCH_MPI(MPI_Win_unlock(1, c.win));
  bench_report("rma_acc", kMaxBytes, med, lo, hi, reps, 5);
  reps = bench_reps(2000);
  med = bench_time_op(fence_op, &c, 10, reps, 5, &lo, &hi);
  bench_report("rma_fence", 0, med, lo, hi, reps, 5);
  BENCH_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, c.win));
  med = bench_time_op(lock_op, &c, 10, reps, 5, &lo, &hi);
  bench_report("rma_lock", 0, med, lo, hi, reps, 5);
  BENCH_MPI(MPI_Win_free(&c.win));
  free(c.local);
  MPI_Finalize();
  return 0;
}
