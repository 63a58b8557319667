/*
 * spawn_fail.c -- a spawned rank that exits with an error (status 3,
 * without MPI_Finalize) ends the job; the runtime must name it. The
 * parents wait in a receive from it that never comes.
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1) {
    MPI_Comm parent;
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    if (world_rank() == 1) exit(3);
    MPI_Finalize();
    return 0;
  }
  char *args[] = {"child", NULL};
  MPI_Comm inter;
  CHECK_MPI(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                           MPI_ERRCODES_IGNORE));
  int value = 0;
  MPI_Recv(&value, 1, MPI_INT, 1, 0, inter, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
