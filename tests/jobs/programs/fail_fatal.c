/*
 * fail_fatal: under the default error handler (MPI_ERRORS_ARE_FATAL) one
 * rank (--rank R, default the last) sends to rank "size", which does not
 * exist, while the others block in MPI_Recv from it. Expected: the job
 * fails, with a message naming the rank.
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (is_failing_rank(argc, argv)) {
    int x = 1;
    const int rc = MPI_Send(&x, 1, MPI_INT, world_size(), 0, MPI_COMM_WORLD);
    fprintf(stderr, "fail_fatal: MPI_Send to a bad rank returned %d\n", rc);
    survived_failure("fail_fatal", "MPI_ERRORS_ARE_FATAL");
  }
  MPI_Finalize();
  return 0;
}
