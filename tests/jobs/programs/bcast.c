/*
 * bcast: MPI_Bcast from every root with 0 elements, 1 int, 4 KiB (as 512
 * doubles) and 1 MiB + 3 bytes (as MPI_BYTE, not a multiple of any chunk
 * size). Every receiver checks the whole buffer against the root's pattern
 * and that nothing was written past its end. Then 20 back-to-back bcasts
 * from alternating roots, to check consecutive collectives are kept apart.
 *
 * Options: --max-bytes N skips larger sizes (size^2 copies of each).
 */
#include "check.h"

enum { kGuard = 64, kGuardByte = 0xee };

static void bcast_case(int root, int rank, int count, MPI_Datatype type,
                       int elem_size, int seq) {
  const size_t bytes = (size_t)count * (size_t)elem_size;
  const uint64_t seed = msg_seed(root, seq, bytes);
  unsigned char *buf = xmalloc(bytes + kGuard);
  memset(buf, kGuardByte, bytes + kGuard);
  if (rank == root) fill_pattern(buf, bytes, seed);
  MPI_Bcast(buf, count, type, root, MPI_COMM_WORLD);
  CHECK_PATTERN(buf, bytes, seed,
                rank == root ? "root's buffer after bcast" : "bcast result");
  for (size_t i = bytes; i < bytes + kGuard; ++i) {
    CHECK(buf[i] == kGuardByte, "bcast from %d wrote past %zu bytes", root,
          bytes);
  }
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const size_t max_bytes = (size_t)arg_ll(argc, argv, "--max-bytes", 2 << 20);

  for (int root = 0; root < size; ++root) {
    bcast_case(root, rank, 0, MPI_INT, sizeof(int), 0);
    bcast_case(root, rank, 1, MPI_INT, sizeof(int), 1);
    if (4096 <= max_bytes) {
      bcast_case(root, rank, 4096 / sizeof(double), MPI_DOUBLE, sizeof(double),
                 2);
    }
    if ((1 << 20) + 3 <= max_bytes) {
      bcast_case(root, rank, (1 << 20) + 3, MPI_BYTE, 1, 3);
    }
  }
  for (int i = 0; i < 20; ++i) {
    bcast_case(i % 2 ? size - 1 : 0, rank, 100 + i, MPI_INT, sizeof(int),
               10 + i);
  }
  MPI_Finalize();
  return 0;
}
