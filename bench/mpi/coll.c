/*
 * coll -- MPI_Bcast (root 0) and MPI_Allreduce (MPI_DOUBLE, MPI_SUM) of
 * 8 B, 1 MiB and 64 MiB over all ranks.
 *
 * Usage: coll [bcast|allreduce|all]        (default all)
 * Output: BENCH bcast <bytes> <seconds per call>
 *         BENCH allreduce <bytes> <seconds per call>
 */
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

struct coll {
  int rank, size;
  long elements;
  double *send, *recv;
};

static void bcast(void *ctx, long iter) {
  struct coll *c = ctx;
  double base = (double)(iter + 1) * BENCH_SEQ;
  if (c->rank == 0)
    bench_stamp(c->recv, c->elements, base);
  else
    bench_poison(c->recv, c->elements);
  BENCH_MPI(MPI_Bcast(c->recv, (int)c->elements, MPI_DOUBLE, 0,
                      MPI_COMM_WORLD));
  bench_check(c->recv, c->elements, base, 1.0, "bcast");
}

/* Rank r contributes base_r + i with base_r = (iter * size + r + 1) * 2^24,
 * so the sum is sum(base_r) + size * i: exact, and different every call. */
static void allreduce(void *ctx, long iter) {
  struct coll *c = ctx;
  double first = (double)(iter * c->size + 1);
  double sum_of_bases =
      (first * c->size + (double)c->size * (c->size - 1) / 2) * BENCH_SEQ;
  bench_stamp(c->send, c->elements, (first + c->rank) * BENCH_SEQ);
  bench_poison(c->recv, c->elements);
  BENCH_MPI(MPI_Allreduce(c->send, c->recv, (int)c->elements, MPI_DOUBLE,
                          MPI_SUM, MPI_COMM_WORLD));
  bench_check(c->recv, c->elements, sum_of_bases, (double)c->size,
              "allreduce");
}

struct size_plan {
  long bytes, warmup, reps;
  int trials;
};

/* Repetitions by size: enough calls for small sizes to rise above the
 * timer and the noise, a few calls only for large ones (each moves ranks x
 * bytes; 256 MiB over a 250 Mbit/s link takes seconds). */
static struct size_plan plan_for(long bytes) {
  struct size_plan plan = {bytes, 1, 1, 3};
  if (bytes <= (64L << 10)) {
    plan.warmup = 100;
    plan.reps = 1000;
    plan.trials = 5;
  } else if (bytes <= (1L << 20)) {
    plan.warmup = 5;
    plan.reps = 20;
    plan.trials = 5;
  } else if (bytes <= (16L << 20)) {
    plan.reps = 3;
  } else if (bytes <= (64L << 20)) {
    plan.trials = 5;
  }
  return plan;
}

#define MAX_SIZES 32
static long sizes[MAX_SIZES] = {8, 1L << 20, 64L << 20};
static int nsizes = 3;

static void parse_sizes(char *list) {
  nsizes = 0;
  for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
    char *end;
    long bytes = strtol(item, &end, 10);
    if (*end == 'k' || *end == 'K') bytes <<= 10, ++end;
    else if (*end == 'm' || *end == 'M') bytes <<= 20, ++end;
    else if (*end == 'g' || *end == 'G') bytes <<= 30, ++end;
    if (*end != '\0' || bytes <= 0 || bytes % 8 != 0 || nsizes == MAX_SIZES)
      bench_fail("bad size '%s': a positive multiple of 8 bytes (k, m, g), "
                 "at most %d sizes", item, MAX_SIZES);
    sizes[nsizes++] = bytes;
  }
}

static void run_op(const char *name, bench_op_fn op, int rank, int size) {
  for (int p = 0; p < nsizes; ++p) {
    struct size_plan plan_storage = plan_for(sizes[p]);
    const struct size_plan *plan = &plan_storage;
    struct coll c = {rank, size, plan->bytes / (long)sizeof(double), NULL,
                     NULL};
    c.send = bench_alloc((size_t)plan->bytes);
    c.recv = bench_alloc((size_t)plan->bytes);
    /* Zero, so the unsampled elements of every contribution sum to 0; this
     * also touches the pages before timing. */
    memset(c.send, 0, (size_t)plan->bytes);
    memset(c.recv, 0, (size_t)plan->bytes);
    bench_run(name, plan->bytes, op, &c, plan->warmup, plan->reps,
              plan->trials);
    free(c.send);
    free(c.recv);
  }
}

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  const char *which = argc > 1 ? argv[1] : "all";
  int all = strcmp(which, "all") == 0;
  if (!all && strcmp(which, "bcast") != 0 && strcmp(which, "allreduce") != 0)
    bench_fail("usage: %s [bcast|allreduce|all] [SIZE,...]", argv[0]);
  if (argc > 2) parse_sizes(argv[2]);
  int rank = bench_rank(), size = bench_size();
  if (all || strcmp(which, "bcast") == 0) run_op("bcast", bcast, rank, size);
  if (all || strcmp(which, "allreduce") == 0)
    run_op("allreduce", allreduce, rank, size);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
