/*
 * storage_demo.c -- BDMPI's explicit storage-backed memory calls (bdmpi.h).
 *
 * Unmodified programs need none of this: under bdmpiexec every large malloc
 * is storage-backed and the runtime pages it around blocking MPI calls.
 * These calls are for programs that know more than the runtime:
 *
 *   bdmpiexec -ns 8 -nr 1 --node-memory 256m ./storage_demo
 *
 * Every rank keeps a large table it only reads (its "model") and a scratch
 * array that is dead between iterations:
 *   - the table comes from BDMPI_Alloc_storage and is prefetched with
 *     BDMPI_Prefetch right after the blocking call, before the loop that
 *     reads it;
 *   - the scratch array is dropped with BDMPI_Discard before the blocking
 *     call: its contents are dead, so they need not be written back (they
 *     read as zero afterwards);
 *   - after the last use of the table, BDMPI_Release writes back what
 *     changed and frees the memory at once, without waiting for the
 *     runtime's next switch-out.
 * Under Open MPI (mpicc) the calls are left out with #ifdef BDMPI.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef BDMPI
#include <bdmpi.h>
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = (32u << 20) / sizeof(double); /* 32 MiB per array */

#ifdef BDMPI
  double *table = BDMPI_Alloc_storage(n * sizeof(double));
#else
  double *table = malloc(n * sizeof(double));
#endif
  double *scratch = malloc(n * sizeof(double));
  if (table == NULL || scratch == NULL) {
    fprintf(stderr, "rank %d: out of memory or scratch disk\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < n; ++i) table[i] = (double)(i % 1000) + rank;

  double total = 0;
  for (int iter = 0; iter < 3; ++iter) {
#ifdef BDMPI
    BDMPI_Prefetch(table, n * sizeof(double)); /* large reads now */
#endif
    double local = 0;
    for (size_t i = 0; i < n; ++i) {
      scratch[i] = table[i] * 2;
      local += scratch[i];
    }
#ifdef BDMPI
    BDMPI_Discard(scratch, n * sizeof(double)); /* dead: never written back */
#endif
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
#ifdef BDMPI
  BDMPI_Release(table, n * sizeof(double));
#endif
  /* sum over ranks r and i of 2 * (i % 1000 + r) */
  double per_rank = 0;
  for (size_t i = 0; i < n; ++i) per_rank += 2.0 * (double)(i % 1000);
  double want = size * per_rank + 2.0 * (double)n * size * (size - 1) / 2;
  int ok = total == want;
  if (rank == 0) printf("storage_demo: total %.0f, %s\n", total, ok ? "correct" : "WRONG");
#ifdef BDMPI
  BDMPI_Free_storage(table);
#else
  free(table);
#endif
  free(scratch);
  MPI_Finalize();
  return ok ? 0 : 1;
}
