/* blocksweep: each rank allocates --mib MiB in malloc blocks of --block
 * bytes, fills them, sweeps over them --iters times (read, compute, write
 * back every 8-byte word; a barrier after each sweep, where BDMPI switches
 * ranks), then frees them. The data held in small blocks is what a graph
 * code, a vector of vectors or a hash table keeps.
 *
 * Prints per rank 0: "RESULT <checksum>" (the same for every block size
 * and launcher) and "TIMES alloc <s> sweeps <s> free <s>" (rank 0's, each
 * phase ended by a barrier).
 *
 * Usage: blocksweep [--mib M] [--block B] [--iters K]   (8, 4096, 3) */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t Word(int rank, uint64_t i) {
  uint64_t x = ((uint64_t)rank << 48) ^ i;
  x *= 0x9e3779b97f4a7c15ull;
  return x ^ (x >> 29);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t mib = 8, block = 4096;
  int iters = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--mib") == 0) {
      mib = strtoul(argv[i + 1], NULL, 10);
    } else if (strcmp(argv[i], "--block") == 0) {
      block = strtoul(argv[i + 1], NULL, 10);
    } else if (strcmp(argv[i], "--iters") == 0) {
      iters = atoi(argv[i + 1]);
    } else {
      if (rank == 0) fprintf(stderr, "blocksweep: unknown option '%s'\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (block < 8 || block % 8 != 0) {
    if (rank == 0) fprintf(stderr, "blocksweep: --block must be a multiple of 8\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t words_per_block = block / 8;
  size_t count = (mib << 20) / block;
  uint64_t** blocks = malloc(count * sizeof *blocks);
  if (blocks == NULL) MPI_Abort(MPI_COMM_WORLD, 3);

  double t0 = MPI_Wtime();
  for (size_t b = 0; b < count; ++b) {
    blocks[b] = malloc(block);
    if (blocks[b] == NULL) {
      fprintf(stderr, "rank %d: blocksweep: out of memory at block %zu\n", rank, b);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (size_t w = 0; w < words_per_block; ++w) blocks[b][w] = Word(rank, b * words_per_block + w);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  uint64_t sum = 0;
  for (int it = 0; it < iters; ++it) {
    for (size_t b = 0; b < count; ++b) {
      uint64_t* p = blocks[b];
      for (size_t w = 0; w < words_per_block; ++w) {
        sum += p[w];
        p[w] = p[w] * 3 + (uint64_t)it;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double t2 = MPI_Wtime();
  for (size_t b = 0; b < count; ++b) free(blocks[b]);
  free(blocks);
  MPI_Barrier(MPI_COMM_WORLD);
  double t3 = MPI_Wtime();

  unsigned long long local = (unsigned long long)sum, total = 0;
  MPI_Reduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("RESULT %llu\n", total);
    printf("TIMES alloc %.3f sweeps %.3f free %.3f\n", t1 - t0, t2 - t1, t3 - t2);
  }
  MPI_Finalize();
  return 0;
}
