/*
 * sweep -- the simplest out-of-core MPI program: every rank owns one large
 * array and sweeps all of it between two collectives.
 *
 *   sweep --bytes-per-rank SIZE [--iters N] [--expect CHECKSUM]
 *
 * Each rank mallocs SIZE bytes (k/m/g suffixes), fills them (see
 * sweep_kernel.h), and in each of N iterations (default 5) reads, modifies
 * and writes back every 8-byte word, then adds up the ranks' sums with
 * MPI_Allreduce. The allreduce is where BDMPI switches to another rank, so
 * with -nr 1 each rank's whole array must come back into memory once per
 * iteration: the time of an iteration is the time to page every array in
 * and out once, which bench/ooc compares with dd moving the same bytes.
 *
 * Rank 0 prints `ITER sweep <i> <seconds>` per iteration (the time between
 * two barriers, so it covers every rank's sweep) and `RESULT sweep <value>`
 * at the end, a fold of the per-iteration sums. The value is exact and
 * depends only on the rank count, SIZE and N, not on the launcher;
 * sweep_serial computes it without MPI. With --expect the program exits 1
 * (after MPI_Finalize, on every rank) when its result differs.
 *
 * Built with -DSWEEP_OOC=1 it is sweep_ooc, the paper's explicit "-ooc"
 * discipline (apps/common/ooc_store.h): the array is written to the rank's
 * own file and freed before every blocking call and read back after, so no
 * rank ever blocks holding its array. Option --ooc-dir DIR (default $TMPDIR
 * or /tmp) says where that file goes. Same ITER/RESULT lines and values.
 *
 * A plain MPI program: only <mpi.h> (and the apps' own helpers).
 */
#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "sweep_kernel.h"
#ifdef SWEEP_OOC
#include "ooc_store.h"
#define SWEEP_NAME "sweep_ooc"
#define SWEEP_OOC_USAGE " [--ooc-dir DIR]"
#else
#define SWEEP_NAME "sweep"
#define SWEEP_OOC_USAGE ""
#endif

struct options {
  uint64_t bytes_per_rank;
  int iters;
  int have_expect;
  uint64_t expect;
  const char* ooc_dir;
};

static void usage_error(int rank, const char* message, const char* arg) {
  if (rank == 0) {
    fprintf(stderr, SWEEP_NAME ": %s%s%s\n", message, arg ? " " : "",
            arg ? arg : "");
    fprintf(stderr,
            "usage: " SWEEP_NAME " --bytes-per-rank SIZE [--iters N] "
            "[--expect CHECKSUM]" SWEEP_OOC_USAGE "\n");
  }
}

/* Returns 0 on success; on error prints (rank 0 only) and returns -1. */
static int parse_options(int argc, char** argv, int rank, struct options* o) {
  memset(o, 0, sizeof *o);
  o->iters = 5;
  for (int a = 1; a < argc; ++a) {
    const char* name = argv[a];
    if (a + 1 == argc) {
      usage_error(rank, "missing value after", name);
      return -1;
    }
    const char* value = argv[++a];
    char* end = NULL;
    if (strcmp(name, "--bytes-per-rank") == 0) {
      /* app_parse_size exits on garbage; fine, every rank sees the same. */
      o->bytes_per_rank = app_parse_size(value, "sweep --bytes-per-rank");
    } else if (strcmp(name, "--iters") == 0) {
      errno = 0;
      long n = strtol(value, &end, 10);
      if (errno || end == value || *end || n < 1 || n > 1000000) {
        usage_error(rank, "--iters takes a count from 1 to 1000000, not", value);
        return -1;
      }
      o->iters = (int)n;
    } else if (strcmp(name, "--expect") == 0) {
      errno = 0;
      o->expect = strtoull(value, &end, 10);
      if (errno || end == value || *end) {
        usage_error(rank, "--expect takes an unsigned integer, not", value);
        return -1;
      }
      o->have_expect = 1;
#ifdef SWEEP_OOC
    } else if (strcmp(name, "--ooc-dir") == 0) {
      o->ooc_dir = value;
#endif
    } else {
      usage_error(rank, "unknown option", name);
      return -1;
    }
  }
  if (o->bytes_per_rank < 8) {
    usage_error(rank, "--bytes-per-rank SIZE (at least 8) is required", NULL);
    return -1;
  }
  return 0;
}

/* One iteration's read-modify-write of the whole array; returns the sum of
 * the new values. Plain sequential loop: the compiler vectorises it and it
 * runs at memory speed, so the time measured is paging, not arithmetic. */
static uint64_t sweep_array(uint64_t* words, uint64_t n, uint64_t iteration) {
  uint64_t sum = 0;
  for (uint64_t j = 0; j < n; ++j) {
    uint64_t w = sweep_step(words[j], iteration);
    words[j] = w;
    sum += w;
  }
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct options opt;
  if (parse_options(argc, argv, rank, &opt) != 0) {
    MPI_Finalize();
    return 2;
  }

  uint64_t n = opt.bytes_per_rank / 8;
  uint64_t* words = malloc(n * sizeof *words);
  if (words == NULL) {
    fprintf(stderr, SWEEP_NAME ": rank %d: cannot allocate %" PRIu64 " bytes\n", rank,
            n * 8);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  uint64_t first = (uint64_t)rank * n;
  for (uint64_t j = 0; j < n; ++j) words[j] = sweep_initial(first + j);
#ifdef SWEEP_OOC
  /* Saved before every blocking call (the barriers too), loaded after. */
  app_ooc_store* store = app_ooc_open(opt.ooc_dir, rank);
  app_ooc_add(store, (void**)&words, n * sizeof *words, APP_OOC_READWRITE);
  app_ooc_save(store);
#endif

  uint64_t result = SWEEP_FOLD_SEED;
  for (int i = 0; i < opt.iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = app_now();
#ifdef SWEEP_OOC
    app_ooc_load(store);
#endif
    uint64_t local = sweep_array(words, n, (uint64_t)i);
#ifdef SWEEP_OOC
    app_ooc_save(store);
#endif
    uint64_t global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) app_print_iteration("sweep", i, app_now() - start);
    result = sweep_fold(result, global);
  }
#ifdef SWEEP_OOC
  app_ooc_close(store);  /* words is saved, i.e. NULL: nothing to free */
#endif
  free(words);

  int status = 0;
  if (rank == 0) {
    printf("RESULT sweep %" PRIu64 "\n", result);
    if (opt.have_expect && result != opt.expect) {
      fprintf(stderr, SWEEP_NAME ": RESULT %" PRIu64 " differs from --expect %" PRIu64
              "\n", result, opt.expect);
      status = 1;
    }
    fflush(stdout);
  }
  /* Every rank exits with the verdict, so any launcher reports it. */
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
