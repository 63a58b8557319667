/*
 * alltoall_huge.c -- MPI_Alltoall and MPI_Allgather of 256 MiB in total
 * (4 ranks, 16 MiB per pair), each block filled with a pattern of
 * (source, destination) and checked word by word. Standard MPI only; run by
 * master_memory.sh, which also checks that the masters never held the data.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t word(int src, int dst, size_t i) {
  return (uint32_t)(src * 7919u + dst * 104729u + i * 2654435761u);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t words = (16u << 20) / sizeof(uint32_t);  /* per pair */
  uint32_t *out = malloc(words * size * sizeof *out);
  uint32_t *in = malloc(words * size * sizeof *in);
  if (!out || !in) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int dst = 0; dst < size; ++dst)
    for (size_t i = 0; i < words; ++i) out[dst * words + i] = word(rank, dst, i);
  MPI_Alltoall(out, (int)words, MPI_UINT32_T, in, (int)words, MPI_UINT32_T, MPI_COMM_WORLD);
  for (int src = 0; src < size; ++src)
    for (size_t i = 0; i < words; ++i)
      if (in[src * words + i] != word(src, rank, i)) {
        printf("rank %d: alltoall word %zu from %d is wrong\n", rank, i, src);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
  /* Allgather: every rank contributes its block for rank 0. */
  MPI_Allgather(out, (int)words, MPI_UINT32_T, in, (int)words, MPI_UINT32_T, MPI_COMM_WORLD);
  for (int src = 0; src < size; ++src)
    for (size_t i = 0; i < words; ++i)
      if (in[src * words + i] != word(src, 0, i)) {
        printf("rank %d: allgather word %zu from %d is wrong\n", rank, i, src);
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
  if (rank == 0) printf("alltoall_huge: OK (%d ranks, %zu MiB per pair)\n", size, words * 4 >> 20);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
