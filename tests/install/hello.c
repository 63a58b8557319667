/* hello.c -- the smallest useful MPI program, compiled by the install test
 * with the installed bdmpicc, CMake package and pkg-config file. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("hello from rank %d of %d\n", rank, size);
  fflush(stdout);

  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const int ok = sum == size * (size - 1) / 2;
  if (rank == 0) printf("hello: allreduce %s\n", ok ? "ok" : "WRONG");
  MPI_Finalize();
  return ok ? 0 : 1;
}
