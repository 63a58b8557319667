/*
 * memsweep: every rank sweeps (reads and rewrites) its own large array
 * between collectives: the access pattern of an out-of-core iteration with
 * no disk I/O in the program itself. The array comes from malloc: under
 * bdmpiexec it is storage-backed unless --storage-alloc off.
 *
 * Usage: memsweep --bytes-per-rank SIZE [--iters N] [--read-only] [--random]
 *   SIZE takes k/m/g suffixes. --read-only sums the array instead of
 *   rewriting it (the pattern of k-means' points); --random visits the
 *   elements in a scattered order (a fixed odd stride modulo the size,
 *   so every page is hit once per ~512 visits) instead of in order.
 * Prints per iteration, from rank 0: "ITER memsweep <i> <seconds>", where
 * an iteration is every rank's sweep (a barrier ends it), and at the end
 * "RESULT memsweep <checksum>" (the same whatever the runtime).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t parse_size(const char *text) {
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (*end == 'k' || *end == 'K') value <<= 10;
  else if (*end == 'm' || *end == 'M') value <<= 20;
  else if (*end == 'g' || *end == 'G') value <<= 30;
  return (size_t)value;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t bytes = 0;
  int iters = 3, read_only = 0, random = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--bytes-per-rank") == 0 && i + 1 < argc) bytes = parse_size(argv[++i]);
    else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) iters = atoi(argv[++i]);
    else if (strcmp(argv[i], "--read-only") == 0) read_only = 1;
    else if (strcmp(argv[i], "--random") == 0) random = 1;
  }
  if (bytes < 8) {
    if (rank == 0) fprintf(stderr, "usage: memsweep --bytes-per-rank SIZE [--iters N] [--read-only]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t n = bytes / 8;
  uint64_t *a = malloc(n * 8);
  if (a == NULL) {
    fprintf(stderr, "rank %d: memsweep: cannot allocate %zu bytes\n", rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < n; ++i) a[i] = i ^ (uint64_t)rank << 40;
  MPI_Barrier(MPI_COMM_WORLD);
  uint64_t sum = 0;
  for (int it = 0; it < iters; ++it) {
    double start = MPI_Wtime();
    /* The scattered order: j = i * stride mod n with n a power of two and
     * an odd stride visits every element once. */
    size_t stride = random ? 1000003 : 1, mask = n - 1, j = 0;
    if (random && (n & mask) != 0) {
      if (rank == 0) fprintf(stderr, "memsweep: --random needs a power-of-two size\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (read_only) {
      for (size_t i = 0; i < n; ++i, j = (j + stride) & mask) sum += a[random ? j : i];
    } else {
      for (size_t i = 0; i < n; ++i, j = (j + stride) & mask) {
        size_t k = random ? j : i;
        a[k] = a[k] * 3 + 1;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("ITER memsweep %d %.3f\n", it, MPI_Wtime() - start);
    fflush(stdout);
  }
  for (size_t i = 0; i < n; i += 4096 / 8) sum += a[i];
  uint64_t total = 0;
  MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("RESULT memsweep %llu\n", (unsigned long long)total);
  free(a);
  MPI_Finalize();
  return 0;
}
