/*
 * bcast_huge: one 64 MiB MPI_Bcast (16 Mi ints) from rank 0 and one from the
 * last rank, verified byte by byte on every rank. Large enough to need the
 * chunked / spilled path of any runtime.
 */
#include "check.h"

enum { kInts = 16 << 20 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const size_t bytes = (size_t)kInts * sizeof(int);
  int *buf = xmalloc(bytes);
  const int roots[2] = {0, size - 1};
  for (int r = 0; r < 2; ++r) {
    const int root = roots[r];
    const uint64_t seed = msg_seed(root, r, bytes);
    if (rank == root) {
      fill_pattern(buf, bytes, seed);
    } else {
      memset(buf, 0, bytes);
    }
    MPI_Bcast(buf, kInts, MPI_INT, root, MPI_COMM_WORLD);
    CHECK_PATTERN(buf, bytes, seed, "64 MiB bcast");
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
