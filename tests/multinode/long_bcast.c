/* long_bcast SECONDS: broadcasts 4 MiB from rank 0 again and again for about
 * SECONDS (rank 0 decides, and tells the others with each broadcast), checking
 * every copy. Used to fail a master in the middle of a transfer. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS (1 << 19) /* 4 MiB of doubles */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  double* data = malloc(sizeof(double) * (WORDS + 1));
  double start = MPI_Wtime();
  long rounds = 0;
  for (int more = 1; more; ++rounds) {
    if (rank == 0) {
      for (long i = 0; i < WORDS; ++i) data[i] = (double)(rounds * WORDS + i);
      data[WORDS] = MPI_Wtime() - start < seconds;
    }
    MPI_Bcast(data, WORDS + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (long i = 0; i < WORDS; ++i) {
      if (data[i] != (double)(rounds * WORDS + i)) {
        fprintf(stderr, "rank %d: round %ld: word %ld is wrong\n", rank, rounds, i);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    more = data[WORDS] != 0;
  }
  if (rank == 0) printf("long_bcast: %ld rounds\n", rounds);
  free(data);
  MPI_Finalize();
  return 0;
}
