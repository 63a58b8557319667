/* A seeded bijection of [0, n): v = (a u + c) mod n with a coprime to n.
 * The generators use it to scatter the ids their models make popular
 * (R-MAT's hubs sit at ids with few one-bits, popular items at small ids),
 * as the paper renumbered its inputs at random. Not a random permutation,
 * but enough to spread hubs over the id range, and O(1) both ways.
 * Header-only. */
#ifndef BDMPI_APPS_APP_PERM_H
#define BDMPI_APPS_APP_PERM_H

#include <stdint.h>

#include "app_util.h"

typedef struct app_perm {
  uint64_t n, a, c, a_inv;
} app_perm;

static inline uint64_t app_perm_gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* a^-1 mod n (a coprime to n, n < 2^62), by the extended Euclid algorithm. */
static inline uint64_t app_perm_inverse(uint64_t a, uint64_t n) {
  int64_t t = 0, new_t = 1;
  int64_t r = (int64_t)n, new_r = (int64_t)(a % n);
  while (new_r != 0) {
    int64_t q = r / new_r, tmp = t - q * new_t;
    t = new_t;
    new_t = tmp;
    tmp = r - q * new_r;
    r = new_r;
    new_r = tmp;
  }
  return (uint64_t)(t < 0 ? t + (int64_t)n : t);
}

/* n < 2^32, so that a u fits in 64 bits. */
static inline app_perm app_perm_make(uint64_t n, uint64_t seed,
                                     uint64_t stream) {
  app_rng rng = app_rng_seed(seed, stream);
  app_perm p = {n, 1, 0, 1};
  if (n > 1) {
    p.a = 1 + app_rng_below(&rng, n - 1);
    while (app_perm_gcd(p.a, n) != 1) p.a = p.a % (n - 1) + 1;
    p.c = app_rng_below(&rng, n);
    p.a_inv = app_perm_inverse(p.a, n);
  }
  return p;
}

static inline uint64_t app_perm_apply(const app_perm* p, uint64_t u) {
  return (p->a * u + p->c) % p->n;
}

static inline uint64_t app_perm_invert(const app_perm* p, uint64_t v) {
  return p->a_inv * ((v + p->n - p->c) % p->n) % p->n;
}

#endif
