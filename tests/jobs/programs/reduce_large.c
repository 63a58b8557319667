/*
 * reduce_large: reductions of 16 Mi + 3 ints (64 MiB and a bit, not a
 * multiple of any power-of-two chunk): MPI_Allreduce(MPI_SUM), MPI_Reduce
 * (MPI_MAX) to the last rank with MPI_IN_PLACE at the root, and an in-place
 * MPI_Allreduce(MPI_BXOR). Large enough that a runtime must stream or
 * spill the operands instead of holding size copies in memory.
 */
#include "check.h"

enum { kCount = (16 << 20) + 3 };

static int sum_part(int r, int i) { return i % 1000 + r; }
static int max_part(int r, int i) { return (i * 7 + r * 13) % 1001; }
static int xor_part(int r, int i) { return (i ^ (r * 0x9e3779)) & 0x7fffffff; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size(), last = size - 1;
  int *a = xmalloc((size_t)kCount * sizeof(int));
  int *b = xmalloc((size_t)kCount * sizeof(int));

  for (int i = 0; i < kCount; ++i) a[i] = sum_part(rank, i);
  MPI_Allreduce(a, b, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const long long rank_sum = (long long)size * (size - 1) / 2;
  for (int i = 0; i < kCount; ++i) {
    const long long want = (long long)size * (i % 1000) + rank_sum;
    CHECK(b[i] == want, "Allreduce SUM element %d is %d, want %lld", i, b[i],
          want);
  }

  for (int i = 0; i < kCount; ++i) a[i] = max_part(rank, i);
  if (rank == last) {
    MPI_Reduce(MPI_IN_PLACE, a, kCount, MPI_INT, MPI_MAX, last, MPI_COMM_WORLD);
    for (int i = 0; i < kCount; ++i) {
      int want = max_part(0, i);
      for (int r = 1; r < size; ++r) {
        if (max_part(r, i) > want) want = max_part(r, i);
      }
      CHECK(a[i] == want, "Reduce MAX element %d is %d, want %d", i, a[i],
            want);
    }
  } else {
    MPI_Reduce(a, NULL, kCount, MPI_INT, MPI_MAX, last, MPI_COMM_WORLD);
  }

  for (int i = 0; i < kCount; ++i) a[i] = xor_part(rank, i);
  MPI_Allreduce(MPI_IN_PLACE, a, kCount, MPI_INT, MPI_BXOR, MPI_COMM_WORLD);
  for (int i = 0; i < kCount; ++i) {
    int want = 0;
    for (int r = 0; r < size; ++r) want ^= xor_part(r, i);
    CHECK(a[i] == want, "Allreduce BXOR element %d is %d, want %d", i, a[i],
          want);
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
