/* The arithmetic of the memory-sweeping benchmark, shared by the MPI program
 * (sweep.c, which sweeps whole arrays iteration by iteration) and its serial
 * reference (sweep_serial.c, which follows one word through all iterations),
 * so the two compute the same numbers in different orders.
 *
 * Word g of the global array (g = rank * words_per_rank + j) starts as
 * sweep_initial(g); iteration i (0-based) replaces every word w by
 * sweep_step(w, i); the checksum of iteration i is the sum of all words after
 * that step (mod 2^64); RESULT folds the per-iteration checksums with
 * sweep_fold. All arithmetic is on uint64_t, so it wraps identically on every
 * machine and the result is exact. */
#ifndef BDMPI_APPS_SWEEP_KERNEL_H
#define BDMPI_APPS_SWEEP_KERNEL_H

#include <stdint.h>

/* A cheap bijective mix of the index: distinct pages differ, so neither the
 * kernel (zero pages, KSM) nor a compressor can shortcut the data. */
static inline uint64_t sweep_initial(uint64_t g) {
  uint64_t x = (g + 1) * 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  return x * 0xbf58476d1ce4e5b9ull;
}

/* One read-modify-write: an affine map with an odd multiplier (a bijection
 * mod 2^64, so no information is lost between iterations). */
static inline uint64_t sweep_step(uint64_t w, uint64_t iteration) {
  return w * 6364136223846793005ull + (2 * iteration + 1442695040888963407ull);
}

static inline uint64_t sweep_fold(uint64_t acc, uint64_t checksum) {
  return (acc ^ checksum) * 0x100000001b3ull;
}

/* Start value of the fold. */
#define SWEEP_FOLD_SEED 0xcbf29ce484222325ull

#endif
