/*
 * sweep_serial -- the result `sweep` must print, computed without MPI.
 *
 *   sweep_serial --ranks P --bytes-per-rank SIZE [--iters N]
 *
 * Prints `RESULT sweep <value>` for P ranks of SIZE bytes and N iterations.
 * It holds no array: it takes each word of the global array through all N
 * iterations in turn and adds its value after iteration i to checksum i
 * (word-major, where sweep.c is iteration-major and sums per rank before an
 * allreduce), so a mistake in either program's bookkeeping shows up as a
 * different result. Time is linear in P * SIZE * N; meant for test sizes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "sweep_kernel.h"

static void usage(const char* message, const char* arg) {
  fprintf(stderr, "sweep_serial: %s%s%s\n", message, arg ? " " : "",
          arg ? arg : "");
  fprintf(stderr,
          "usage: sweep_serial --ranks P --bytes-per-rank SIZE [--iters N]\n");
  exit(2);
}

static long parse_count(const char* text, const char* name, long max) {
  char* end = NULL;
  errno = 0;
  long n = strtol(text, &end, 10);
  if (errno || end == text || *end || n < 1 || n > max) usage(name, text);
  return n;
}

int main(int argc, char** argv) {
  long ranks = 0, iters = 5;
  uint64_t bytes_per_rank = 0;
  for (int a = 1; a < argc; a += 2) {
    if (a + 1 == argc) usage("missing value after", argv[a]);
    if (strcmp(argv[a], "--ranks") == 0) {
      ranks = parse_count(argv[a + 1], "bad --ranks", 1L << 24);
    } else if (strcmp(argv[a], "--iters") == 0) {
      iters = parse_count(argv[a + 1], "bad --iters", 1000000);
    } else if (strcmp(argv[a], "--bytes-per-rank") == 0) {
      bytes_per_rank = app_parse_size(argv[a + 1], "sweep_serial --bytes-per-rank");
    } else {
      usage("unknown option", argv[a]);
    }
  }
  if (ranks == 0) usage("--ranks P is required", NULL);
  if (bytes_per_rank < 8) usage("--bytes-per-rank SIZE (at least 8) is required", NULL);

  uint64_t* checksums = calloc((size_t)iters, sizeof *checksums);
  if (checksums == NULL) usage("out of memory for", "the checksums");
  uint64_t total = (uint64_t)ranks * (bytes_per_rank / 8);
  for (uint64_t g = 0; g < total; ++g) {
    uint64_t w = sweep_initial(g);
    for (long i = 0; i < iters; ++i) {
      w = sweep_step(w, (uint64_t)i);
      checksums[i] += w;
    }
  }
  uint64_t result = SWEEP_FOLD_SEED;
  for (long i = 0; i < iters; ++i) result = sweep_fold(result, checksums[i]);
  printf("RESULT sweep %" PRIu64 "\n", result);
  free(checksums);
  return 0;
}
