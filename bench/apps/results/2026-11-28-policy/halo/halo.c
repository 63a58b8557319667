#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* CoMD-like: 8 ranks, face exchanges x, y, z with partner rank ^ (1 << d), each
   way a Sendrecv; touches its data between exchanges; an allreduce per step. */
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = (size_t)atol(argv[1]) << 20;
  int steps = atoi(argv[2]);
  char* data = malloc(n);
  memset(data, rank, n);
  double sum = 0;
  for (int s = 0; s < steps; ++s) {
    for (int d = 0; (1 << d) < size; ++d) {
      int partner = rank ^ (1 << d);
      for (int way = 0; way < 2; ++way) {
        int out = rank * 100 + s, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, partner, 0, &in, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in != partner * 100 + s) { fprintf(stderr, "bad\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
        for (size_t i = 0; i < n; i += 4096) data[i] += 1;
      }
    }
    double local = data[0], total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum += total;
  }
  if (rank == 0) printf("sum %g\n", sum);
  free(data);
  MPI_Finalize();
  return 0;
}
