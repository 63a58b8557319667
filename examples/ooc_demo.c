/*
 * ooc_demo.c -- an out-of-core MPI job, small enough to read in one go.
 *
 * Every rank owns a large array (64 MiB by default), so 32 ranks hold 2 GiB
 * between them. Under BDMPI
 *
 *     bdmpiexec -ns 32 -nr 1 ./ooc_demo
 *
 * starts the 32 ranks but lets only one of them (-nr 1) run at a time: a rank
 * runs until it blocks in MPI (in the ring exchange or the allreduce below),
 * then the next one gets the machine. Only about one array has to be in
 * memory at a time; the others wait on disk or in swap. The program itself is
 * plain MPI: it also builds with mpicc and runs under mpirun.
 *
 * Element g of the global array (g = rank * n + i) starts as g. Each
 * iteration
 *   1. adds 1 to every element (this touches, and so pages in, the array),
 *   2. sums the rank's array,
 *   3. sends the first part of the array to the next rank in a ring and
 *      checks what arrived from the previous rank,
 *   4. adds up the sums and error counts of all ranks (MPI_Allreduce),
 * and every rank checks the total against the closed form
 *   sum over g of (g + t) = N (N - 1) / 2 + t N      (mod 2^64, N elements).
 *
 * Options: -m MIB    array size per rank in MiB (default 64)
 *          -i ITERS  number of iterations (default 4)
 *          -x KIB    size of the ring message in KiB (default 1024)
 */
#include <mpi.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024 * 1024)

struct options {
  long mib_per_rank;
  long iterations;
  long ring_kib;
};

/* Reads a positive integer no larger than max; returns 0 on bad input. */
static long parse_count(const char *text, long max) {
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > max) return 0;
  return value;
}

/* Returns 1 if the options are valid. */
static int parse_options(int argc, char **argv, struct options *opts) {
  opts->mib_per_rank = 64;
  opts->iterations = 4;
  opts->ring_kib = 1024;
  for (int a = 1; a < argc; ++a) {
    long *target = NULL;
    long max = 0;
    if (strcmp(argv[a], "-m") == 0) {
      target = &opts->mib_per_rank;
      max = 1L << 20;
    } else if (strcmp(argv[a], "-i") == 0) {
      target = &opts->iterations;
      max = 1000000;
    } else if (strcmp(argv[a], "-x") == 0) {
      target = &opts->ring_kib;
      max = 1L << 20;
    }
    if (target == NULL || a + 1 == argc) return 0;
    *target = parse_count(argv[++a], max);
    if (*target == 0) return 0;
  }
  return 1;
}

/* N (N - 1) / 2 + t N in 64-bit arithmetic, which wraps like the sums. */
static uint64_t expected_sum(uint64_t total_elements, uint64_t t) {
  uint64_t n = total_elements;
  uint64_t triangle = (n % 2 == 0) ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
  return triangle + t * n;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct options opts;
  if (!parse_options(argc, argv, &opts)) {
    if (rank == 0) {
      fprintf(stderr,
              "usage: %s [-m MIB_PER_RANK] [-i ITERATIONS] [-x RING_KIB]\n",
              argv[0]);
    }
    MPI_Finalize();
    return 2;
  }

  /* This rank's part of the global array: elements first .. first + n - 1. */
  const size_t n = (size_t)opts.mib_per_rank * MIB / sizeof(uint64_t);
  const uint64_t total_elements = (uint64_t)n * (uint64_t)size;
  const uint64_t first = (uint64_t)rank * n;
  size_t ring_count = (size_t)opts.ring_kib * 1024 / sizeof(uint64_t);
  if (ring_count > n) ring_count = n;

  uint64_t *data = malloc(n * sizeof(uint64_t));
  uint64_t *from_left = malloc(ring_count * sizeof(uint64_t));
  if (data == NULL || from_left == NULL) {
    fprintf(stderr, "rank %d: cannot allocate %ld MiB\n", rank,
            opts.mib_per_rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  const double total_mib = (double)opts.mib_per_rank * size;
  if (rank == 0) {
#ifdef BDMPI
    const char *library = "BDMPI";
#else
    const char *library = "another MPI library";
#endif
    printf("ooc_demo: %d ranks x %ld MiB = %.0f MiB, %ld iterations (%s)\n",
           size, opts.mib_per_rank, total_mib, opts.iterations, library);
    fflush(stdout);
  }

  const double start = MPI_Wtime();
  for (size_t i = 0; i < n; ++i) data[i] = first + i;

  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  const uint64_t left_first = (uint64_t)left * n;
  int all_matched = 1;

  for (long t = 1; t <= opts.iterations; ++t) {
    const double iteration_start = MPI_Wtime();

    /* 1 + 2: touch every element, then reduce locally. */
    for (size_t i = 0; i < n; ++i) data[i] += 1;
    uint64_t local_sum = 0;
    for (size_t i = 0; i < n; ++i) local_sum += data[i];

    /* 3: ring exchange; the left neighbour's first elements are
     * left_first + j + t by now. */
    MPI_Sendrecv(data, (int)ring_count, MPI_UINT64_T, right, (int)t,
                 from_left, (int)ring_count, MPI_UINT64_T, left, (int)t,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    uint64_t ring_errors = 0;
    for (size_t j = 0; j < ring_count; ++j) {
      if (from_left[j] != left_first + j + (uint64_t)t) ++ring_errors;
    }

    /* 4: global sum and error count in one allreduce. */
    uint64_t local[2] = {local_sum, ring_errors};
    uint64_t global[2] = {0, 0};
    MPI_Allreduce(local, global, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

    const uint64_t expected = expected_sum(total_elements, (uint64_t)t);
    const int matched = global[0] == expected && global[1] == 0;
    all_matched = all_matched && matched;
    if (rank == 0) {
      printf("iteration %ld/%ld  %7.2f s  checksum %" PRIu64
             "  expected %" PRIu64 "  ring errors %" PRIu64 "  %s\n",
             t, opts.iterations, MPI_Wtime() - iteration_start, global[0],
             expected, global[1], matched ? "ok" : "MISMATCH");
      fflush(stdout);
    }
  }
  const double elapsed = MPI_Wtime() - start;

  if (rank == 0) {
    printf("\nooc_demo summary\n");
    printf("  ranks             %d\n", size);
    printf("  memory per rank   %ld MiB\n", opts.mib_per_rank);
    printf("  total memory      %.0f MiB (%.2f GiB)\n", total_mib,
           total_mib / 1024.0);
    printf("  iterations        %ld\n", opts.iterations);
    printf("  ring message      %zu KiB\n",
           ring_count * sizeof(uint64_t) / 1024);
    printf("  time              %.2f s\n", elapsed);
    printf("  result            %s\n",
           all_matched ? "PASSED: every checksum matched the closed form"
                       : "FAILED: a checksum did not match");
    fflush(stdout);
  }

  free(from_left);
  free(data);
  MPI_Finalize();
  return all_matched ? 0 : 1;
}
