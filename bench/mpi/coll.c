/*
 * coll -- MPI_Barrier, MPI_Bcast (root 0), MPI_Allreduce (MPI_DOUBLE, MPI_SUM),
 * MPI_Alltoall, MPI_Gather (root 0) and MPI_Allgather (MPI_DOUBLE) of 8 B,
 * 1 MiB and 64 MiB, or the sizes given, over all ranks.  As in the OSU
 * micro-benchmarks, an alltoall's size is what each rank sends to each
 * rank (its buffers hold ranks x size), a gather's and an allgather's what
 * each rank contributes.
 *
 * Usage: coll [OPS] [SIZE,...]   OPS: barrier, bcast, allreduce, alltoall,
 *                                gather, allgather, or a comma-separated list of
 *                                them; all (the default) is bcast,allreduce
 * Output: BENCH <op> <bytes> <seconds per call> (a barrier's bytes are 0)
 */
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

struct coll {
  int rank, size;
  long elements; /* per rank for alltoall */
  double *send, *recv;
};

static void barrier(void *ctx, long iter) {
  (void)ctx;
  (void)iter;
  BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

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

/* The block rank s sends rank d in call iter starts at a base of its own,
 * so a block from the wrong sender, for the wrong receiver or of another
 * call fails the check. */
static double alltoall_base(long iter, int size, int from, int to) {
  return (double)((iter * size + from) * size + to + 1) * BENCH_SEQ;
}

static void alltoall(void *ctx, long iter) {
  struct coll *c = ctx;
  for (int to = 0; to < c->size; ++to) {
    bench_stamp(c->send + to * c->elements, c->elements,
                alltoall_base(iter, c->size, c->rank, to));
    bench_poison(c->recv + to * c->elements, c->elements);
  }
  BENCH_MPI(MPI_Alltoall(c->send, (int)c->elements, MPI_DOUBLE, c->recv,
                         (int)c->elements, MPI_DOUBLE, MPI_COMM_WORLD));
  for (int from = 0; from < c->size; ++from)
    bench_check(c->recv + from * c->elements, c->elements,
                alltoall_base(iter, c->size, from, c->rank), 1.0, "alltoall");
}

/* Rank r's contribution in call iter: a base of its own, so a block from
 * the wrong rank or call fails the check. */
static void gather_common(struct coll *c, long iter, int all) {
  bench_stamp(c->send, c->elements, alltoall_base(iter, c->size, c->rank, 0));
  int root = c->rank == 0;
  if (all || root)
    for (int from = 0; from < c->size; ++from) bench_poison(c->recv + from * c->elements, c->elements);
  if (all) {
    BENCH_MPI(MPI_Allgather(c->send, (int)c->elements, MPI_DOUBLE, c->recv, (int)c->elements,
                            MPI_DOUBLE, MPI_COMM_WORLD));
  } else {
    BENCH_MPI(MPI_Gather(c->send, (int)c->elements, MPI_DOUBLE, c->recv, (int)c->elements,
                         MPI_DOUBLE, 0, MPI_COMM_WORLD));
  }
  if (all || root)
    for (int from = 0; from < c->size; ++from)
      bench_check(c->recv + from * c->elements, c->elements,
                  alltoall_base(iter, c->size, from, 0), 1.0, all ? "allgather" : "gather");
}

static void gather(void *ctx, long iter) { gather_common(ctx, iter, 0); }
static void allgather(void *ctx, long iter) { gather_common(ctx, iter, 1); }

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

/* Runs `op` for every size; `blocks` is how many messages of the size each
 * rank's buffers hold (1, or the ranks for alltoall), and what the
 * repetitions are planned by; `recv_blocks` the same for the receive
 * buffer (the ranks for gather and allgather). */
static void run_op(const char *name, bench_op_fn op, int rank, int size,
                   int blocks, int recv_blocks) {
  for (int p = 0; p < nsizes; ++p) {
    struct size_plan plan = plan_for(sizes[p] * recv_blocks);
    size_t buffer = (size_t)sizes[p] * (size_t)blocks;
    size_t recv_buffer = (size_t)sizes[p] * (size_t)recv_blocks;
    struct coll c = {rank, size, sizes[p] / (long)sizeof(double), NULL, NULL};
    c.send = bench_alloc(buffer);
    c.recv = bench_alloc(recv_buffer);
    /* Zero, so the unsampled elements of every contribution sum to 0; this
     * also touches the pages before timing. */
    memset(c.send, 0, buffer);
    memset(c.recv, 0, recv_buffer);
    bench_run(name, sizes[p], op, &c, plan.warmup, plan.reps, plan.trials);
    free(c.send);
    free(c.recv);
  }
}

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  char ops[64] = "bcast,allreduce";
  if (argc > 1 && strcmp(argv[1], "all") != 0) snprintf(ops, sizeof ops, "%s", argv[1]);
  int want_barrier = 0, want_bcast = 0, want_allreduce = 0, want_alltoall = 0, want_gather = 0, want_allgather = 0;
  for (char *op = strtok(ops, ","); op; op = strtok(NULL, ",")) {
    if (strcmp(op, "barrier") == 0) want_barrier = 1;
    else if (strcmp(op, "bcast") == 0) want_bcast = 1;
    else if (strcmp(op, "allreduce") == 0) want_allreduce = 1;
    else if (strcmp(op, "alltoall") == 0) want_alltoall = 1;
    else if (strcmp(op, "gather") == 0) want_gather = 1;
    else if (strcmp(op, "allgather") == 0) want_allgather = 1;
    else bench_fail("usage: %s [barrier|bcast|allreduce|alltoall|gather|allgather|all][,...] [SIZE,...]",
                    argv[0]);
  }
  if (argc > 2) nsizes = bench_parse_sizes(argv[2], sizes, MAX_SIZES);
  int rank = bench_rank(), size = bench_size();
  if (want_barrier) {
    struct size_plan plan = plan_for(0);
    bench_run("barrier", 0, barrier, NULL, plan.warmup, plan.reps, plan.trials);
  }
  if (want_bcast) run_op("bcast", bcast, rank, size, 1, 1);
  if (want_allreduce) run_op("allreduce", allreduce, rank, size, 1, 1);
  if (want_alltoall) run_op("alltoall", alltoall, rank, size, size, size);
  if (want_gather) run_op("gather", gather, rank, size, 1, size);
  if (want_allgather) run_op("allgather", allgather, rank, size, 1, size);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
