/*
 * bench_util.h -- timing, reporting and checking shared by the MPI benchmark
 * programs in bench/mpi.
 *
 * The same sources are built against libbdmpi (<name>) and against Open MPI
 * (<name>.ompi), so this header uses standard <mpi.h> only.  Time is taken
 * with clock_gettime(CLOCK_MONOTONIC) rather than MPI_Wtime: it is the same
 * clock in every process of a node (the barrier check relies on that) and it
 * does not depend on the runtime under test.
 *
 * Every program prints one line per measurement on rank 0:
 *     BENCH <name> <param> <seconds_per_op>
 * and human-readable extras on lines starting with '#'.
 *
 * BENCH_REPS_SCALE (environment, default 1) multiplies every repetition
 * count, e.g. 0.1 for a quick smoke run.
 */
#ifndef BDMPI_BENCH_UTIL_H
#define BDMPI_BENCH_UTIL_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reports a failed check (or MPI error) and ends the whole job non-zero, so a
 * broken runtime can never produce a BENCH line. */
static inline void bench_fail(const char *fmt, ...) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "bench: rank %d: ", rank);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3); /* MPI_Abort must not return; be sure. */
}

/* Wraps an MPI call: any return other than MPI_SUCCESS is a failure. */
#define BENCH_MPI(call)                                                \
  do {                                                                 \
    int bench_rc_ = (call);                                            \
    if (bench_rc_ != MPI_SUCCESS)                                      \
      bench_fail("%s:%d: %s returned %d", __FILE__, __LINE__, #call,   \
                 bench_rc_);                                           \
  } while (0)

static inline int bench_rank(void) {
  int rank;
  BENCH_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  return rank;
}

static inline int bench_size(void) {
  int size;
  BENCH_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  return size;
}

/* n scaled by BENCH_REPS_SCALE, never below 1. */
static inline long bench_reps(long n) {
  const char *s = getenv("BENCH_REPS_SCALE");
  double scale = s ? atof(s) : 1.0;
  long r = (long)((double)n * (scale > 0 ? scale : 1.0));
  return r < 1 ? 1 : r;
}

static inline void *bench_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) bench_fail("cannot allocate %zu bytes", bytes);
  return p;
}

/* One timed operation; iter counts from 0 over warm-up and timed calls, so
 * an operation can put iteration-dependent values in its buffers and detect
 * stale results. */
typedef void (*bench_op_fn)(void *ctx, long iter);

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/*
 * Runs op `warmup` times, then `trials` trials of `reps` calls each, on every
 * rank of MPI_COMM_WORLD (collective).  A trial runs from a barrier to a
 * barrier after the last call, so it ends only when every rank has finished
 * (operations like bcast return early on the root); its time is the largest
 * elapsed time of any rank, divided by reps.  The one extra barrier per trial
 * is noise once reps is large.  Returns the median over trials, and their
 * min and max through *lo and *hi when not NULL.
 */
static inline double bench_time_op(bench_op_fn op, void *ctx, long warmup,
                                   long reps, int trials, double *lo,
                                   double *hi) {
  enum { kMaxTrials = 64 };
  double per_op[kMaxTrials];
  if (trials < 1) trials = 1;
  if (trials > kMaxTrials) trials = kMaxTrials;
  long iter = 0;
  for (long i = 0; i < warmup; ++i) op(ctx, iter++);
  for (int t = 0; t < trials; ++t) {
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = bench_now();
    for (long i = 0; i < reps; ++i) op(ctx, iter++);
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double mine = bench_now() - t0, slowest;
    BENCH_MPI(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX,
                            MPI_COMM_WORLD));
    per_op[t] = slowest / (double)reps;
  }
  qsort(per_op, (size_t)trials, sizeof per_op[0], bench_cmp_double);
  if (lo) *lo = per_op[0];
  if (hi) *hi = per_op[trials - 1];
  return per_op[trials / 2];
}

/* Prints the BENCH line for seconds per op `med` (plus a '#' line with the
 * spread of the trials) on rank 0. */
static inline void bench_report(const char *name, long long param, double med,
                                double lo, double hi, long reps, int trials) {
  if (bench_rank() != 0) return;
  printf("BENCH %s %lld %.9g\n", name, param, med);
  printf("# %s %lld: %d ranks, %ld reps x %d trials, median %.3f us, "
         "min %.3f us, max %.3f us\n",
         name, param, bench_size(), reps, trials, med * 1e6, lo * 1e6,
         hi * 1e6);
  fflush(stdout);
}

/* bench_time_op with reps scaled by BENCH_REPS_SCALE, then bench_report.
 * Returns the median seconds per op. */
static inline double bench_run(const char *name, long long param,
                               bench_op_fn op, void *ctx, long warmup,
                               long reps, int trials) {
  double lo, hi;
  reps = bench_reps(reps);
  double med = bench_time_op(op, ctx, warmup, reps, trials, &lo, &hi);
  bench_report(name, param, med, lo, hi, reps, trials);
  return med;
}

/* Parses a comma-separated list of sizes in bytes (k, m, g suffixes: KiB,
 * MiB, GiB), each a positive multiple of 8, into sizes[0..max-1]; returns
 * how many.  A bad item ends the job naming it. */
static inline int bench_parse_sizes(char *list, long *sizes, int max) {
  int n = 0;
  for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
    char *end;
    long bytes = strtol(item, &end, 10);
    if (*end == 'k' || *end == 'K') bytes <<= 10, ++end;
    else if (*end == 'm' || *end == 'M') bytes <<= 20, ++end;
    else if (*end == 'g' || *end == 'G') bytes <<= 30, ++end;
    if (*end != '\0' || bytes <= 0 || bytes % 8 != 0 || n == max)
      bench_fail("bad size '%s': a positive multiple of 8 bytes (k, m, g), "
                 "at most %d sizes", item, max);
    sizes[n++] = bytes;
  }
  return n;
}

/*
 * Sparse check pattern for large buffers of doubles: only every
 * kBenchStride-th element (and the last) is stamped and checked, so that
 * checking a 64 MiB buffer costs microseconds, while a runtime that moves
 * nothing, moves the wrong part or returns last iteration's data still fails.
 */
enum { kBenchStride = 512 }; /* one double per 4 KiB page */

/* The checked element after index i of an n-element buffer; the samples are
 * 0, stride, 2*stride, ..., n-1, and n ends the walk:
 *     for (long i = 0; i < n; i = bench_next_sample(i, n)) ... */
static inline long bench_next_sample(long i, long n) {
  if (i >= n - 1) return n;
  return i + kBenchStride < n ? i + kBenchStride : n - 1;
}

/* Stamps base + i into the sampled elements of buf.  Keep base a multiple of
 * BENCH_SEQ so that stamps of different messages never coincide; sums of a
 * few stamps stay exact in double precision. */
#define BENCH_SEQ 16777216.0 /* 2^24 > elements of a 64 MiB buffer */

static inline void bench_stamp(double *buf, long n, double base) {
  for (long i = 0; i < n; i = bench_next_sample(i, n)) buf[i] = base + i;
}

/* Marks the sampled elements of a receive buffer as "not received". */
static inline void bench_poison(double *buf, long n) {
  for (long i = 0; i < n; i = bench_next_sample(i, n)) buf[i] = -1.0;
}

/* Checks that every sampled element is base + mult * i. */
static inline void bench_check(const double *buf, long n, double base,
                               double mult, const char *what) {
  for (long i = 0; i < n; i = bench_next_sample(i, n))
    if (buf[i] != base + mult * i)
      bench_fail("%s: element %ld of %ld is %.17g, expected %.17g", what, i,
                 n, buf[i], base + mult * i);
}

#endif /* BDMPI_BENCH_UTIL_H */
