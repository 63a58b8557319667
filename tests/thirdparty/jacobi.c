/*
 * jacobi.c -- a plain MPI program of the kind found in the wild, written
 * against the MPI standard only (no BDMPI header, no BDMPI-specific code):
 * 1-D Jacobi relaxation of the heat equation with halo exchange by
 * MPI_Sendrecv, a residual by MPI_Allreduce, and the final field gathered
 * on rank 0 with MPI_Gatherv, which checks it against a serial run of the
 * same iteration. Prints "jacobi: OK" and exits 0 when they agree.
 *
 *   jacobi [points] [iterations]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void step(const double *in, double *out, int n) {
  for (int i = 1; i <= n; ++i) out[i] = 0.5 * (in[i - 1] + in[i + 1]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int total = argc > 1 ? atoi(argv[1]) : 10007;
  const int iterations = argc > 2 ? atoi(argv[2]) : 200;

  /* Block distribution with the remainder spread over the first ranks. */
  int *counts = malloc(size * sizeof *counts), *displs = malloc(size * sizeof *displs);
  for (int r = 0, offset = 0; r < size; ++r) {
    counts[r] = total / size + (r < total % size);
    displs[r] = offset;
    offset += counts[r];
  }
  const int n = counts[rank];
  double *u = calloc(n + 2, sizeof *u), *v = calloc(n + 2, sizeof *v);
  for (int i = 1; i <= n; ++i) u[i] = sin(0.001 * (displs[rank] + i - 1));
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

  double residual = 0;
  for (int it = 0; it < iterations; ++it) {
    /* Fixed boundaries (0) at both ends of the global domain. */
    u[0] = u[n + 1] = 0;
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    step(u, v, n);
    double local = 0;
    for (int i = 1; i <= n; ++i) local += (v[i] - u[i]) * (v[i] - u[i]);
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double *t = u;
    u = v;
    v = t;
  }

  double *field = rank == 0 ? malloc(total * sizeof *field) : NULL;
  MPI_Gatherv(&u[1], n, MPI_DOUBLE, field, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == 0) {
    double *a = calloc(total + 2, sizeof *a), *b = calloc(total + 2, sizeof *b);
    for (int i = 1; i <= total; ++i) a[i] = sin(0.001 * (i - 1));
    for (int it = 0; it < iterations; ++it) {
      step(a, b, total);
      double *t = a;
      a = b;
      b = t;
    }
    for (int i = 0; i < total; ++i) {
      if (fabs(a[i + 1] - field[i]) > 1e-12) {
        printf("jacobi: point %d is %.17g, serial %.17g\n", i, field[i], a[i + 1]);
        ok = 0;
        break;
      }
    }
    printf("jacobi: %s (%d ranks, %d points, %d iterations, residual %.3e)\n",
           ok ? "OK" : "MISMATCH", size, total, iterations, sqrt(residual));
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
