/* long_bcast SECONDS [STOP_FILE]: broadcasts 4 MiB from rank 0 again and
 * again for about SECONDS, and then until STOP_FILE exists when one is named
 * (rank 0 decides, and tells the others with each broadcast), checking every
 * copy. Used to fail a master in the middle of a transfer, and to keep a job
 * running for as long as a test needs it however slowly the machine goes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define WORDS (1 << 19) /* 4 MiB of doubles */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  const char* stop_file = argc > 2 ? argv[2] : NULL;
  double* data = malloc(sizeof(double) * (WORDS + 1));
  double start = MPI_Wtime();
  long rounds = 0;
  for (int more = 1; more; ++rounds) {
    if (rank == 0) {
      for (long i = 0; i < WORDS; ++i) data[i] = (double)(rounds * WORDS + i);
      data[WORDS] = MPI_Wtime() - start < seconds ||
                    (stop_file != NULL && access(stop_file, F_OK) != 0);
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
