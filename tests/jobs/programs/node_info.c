/* BDMPI_Comm_nsize/nrank/lsize/lrank/rrank agree with each other across
 * the ranks of MPI_COMM_WORLD, a split and MPI_COMM_SELF. Under mpirun
 * (no BDMPI) it only runs the collectives. */
#include "check.h"
#ifdef BDMPI
#include <bdmpi.h>
#endif

static void check_comm(MPI_Comm comm) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  int mine[5] = {0, 0, 1, 0, 0}; /* nsize nrank lsize lrank rrank */
#ifdef BDMPI
  BDMPI_Comm_nsize(comm, &mine[0]);
  BDMPI_Comm_nrank(comm, &mine[1]);
  BDMPI_Comm_lsize(comm, &mine[2]);
  BDMPI_Comm_lrank(comm, &mine[3]);
  BDMPI_Comm_rrank(comm, &mine[4]);
#else
  mine[0] = n;
  mine[1] = me;
  mine[4] = me;
#endif
  int *all = malloc(sizeof(int) * 5 * (size_t)n);
  MPI_Allgather(mine, 5, MPI_INT, all, 5, MPI_INT, comm);
  int nodes_seen = 0, total = 0;
  for (int r = 0; r < n; ++r) {
    int *x = all + 5 * r;
    CHECK(x[0] == mine[0], "nsize %d vs %d", x[0], mine[0]);
    CHECK(x[1] >= 0 && x[1] < x[0], "nrank %d of %d", x[1], x[0]);
    CHECK(x[3] >= 0 && x[3] < x[2], "lrank %d of %d", x[3], x[2]);
    int *first = all + 5 * x[4];
    CHECK(first[1] == x[1] && first[3] == 0, "rrank %d is not the node's first", x[4]);
    if (x[3] == 0) {
      ++nodes_seen;
      total += x[2];
      CHECK(x[4] == r, "first member %d has rrank %d", r, x[4]);
    }
    /* lrank counts the lower ranks on the same node. */
    int lower = 0;
    for (int q = 0; q < r; ++q) lower += all[5 * q + 1] == x[1];
    CHECK(lower == x[3], "rank %d lrank %d, want %d", r, x[3], lower);
  }
  CHECK(nodes_seen == mine[0] && total == n, "nodes %d/%d members %d/%d", nodes_seen, mine[0],
        total, n);
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank();
  MPI_Comm odd;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &odd);
  check_comm(MPI_COMM_WORLD);
  check_comm(odd);
  check_comm(MPI_COMM_SELF);
  MPI_Comm_free(&odd);
  MPI_Finalize();
  return 0;
}
