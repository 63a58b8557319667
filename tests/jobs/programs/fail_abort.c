/*
 * fail_abort: one rank (--rank R, default the last) calls
 * MPI_Abort(MPI_COMM_WORLD, 7) after a barrier, while the others block in
 * MPI_Recv from it. Expected: the job fails; under bdmpiexec with exit
 * status 7 and a message naming the rank.
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (is_failing_rank(argc, argv)) {
    MPI_Abort(MPI_COMM_WORLD, 7);
    survived_failure("fail_abort", "MPI_Abort");
  }
  MPI_Finalize();
  return 0;
}
