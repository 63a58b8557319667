/* spill_wait GOFILE: rank 0 sends 1 MiB (through a spill file) to rank 1,
 * which receives it only once GOFILE exists and checks every word. The
 * security tests replace the spill file or directory in between: the job
 * must end with a message, and never report "WRONG DATA". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define WORDS (1 << 17)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long* data = malloc(sizeof(long) * WORDS);
  if (rank == 0) {
    for (long i = 0; i < WORDS; ++i) data[i] = i * 7 + 1;
    MPI_Send(data, WORDS, MPI_LONG, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    while (argc > 1 && access(argv[1], F_OK) != 0) usleep(20000);
    MPI_Recv(data, WORDS, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long wrong = 0;
    for (long i = 0; i < WORDS; ++i) wrong += data[i] != i * 7 + 1;
    if (wrong != 0) {
      printf("spill_wait: WRONG DATA: %ld words\n", wrong);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    printf("spill_wait: data correct\n");
  }
  free(data);
  MPI_Finalize();
  return 0;
}
