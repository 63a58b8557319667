/* Small helpers shared by the applications, generators and baselines:
 * a seeded random stream (so generated data is identical on every machine),
 * size arguments with k/m/g suffixes, wall-clock time, and the one format of
 * the lines benchmarks parse. Header-only: every function is static inline. */
#ifndef BDMPI_APPS_APP_UTIL_H
#define BDMPI_APPS_APP_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* splitmix64: tiny, fast, and good enough for synthetic data. Each stream is
 * its state; seed it with app_rng_seed(seed, stream) so that independent
 * streams (e.g. one per generated row block) do not overlap. */
typedef struct app_rng {
  uint64_t state;
} app_rng;

static inline uint64_t app_rng_next(app_rng* rng) {
  uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline app_rng app_rng_seed(uint64_t seed, uint64_t stream) {
  app_rng rng = {seed * 0xd1b54a32d192ed03ull + stream};
  app_rng_next(&rng);
  return rng;
}

/* Uniform in [0, 1). */
static inline double app_rng_uniform(app_rng* rng) {
  return (double)(app_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t app_rng_below(app_rng* rng, uint64_t n) {
  return app_rng_next(rng) % n;
}

/* "123", "64k", "2m", "8g" (powers of 1024) -> bytes; exits on garbage. */
static inline uint64_t app_parse_size(const char* text, const char* what) {
  char* end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  uint64_t scale = 1;
  if (end != NULL && *end != '\0') {
    switch (*end | 0x20) {
      case 'k': scale = 1ull << 10; break;
      case 'm': scale = 1ull << 20; break;
      case 'g': scale = 1ull << 30; break;
      default: scale = 0;
    }
    if (scale != 0 && end[1] != '\0') scale = 0;
  }
  if (end == text || scale == 0) {
    fprintf(stderr, "%s: not a size: '%s' (use a number with k, m or g)\n",
            what, text);
    exit(2);
  }
  return (uint64_t)value * scale;
}

static inline double app_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The lines bench/ooc parses (printed by rank 0 / the serial program):
 *   ITER <app> <i> <seconds>          once per iteration
 *   RESULT <app> <value>              once, at the end */
static inline void app_print_iteration(const char* app, int i, double seconds) {
  printf("ITER %s %d %.6f\n", app, i, seconds);
  fflush(stdout);
}

#endif
