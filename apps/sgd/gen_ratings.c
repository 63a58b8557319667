/* gen_ratings: writes a sparse user-item rating matrix in the format of
 * apps/common/ratings_format.h.
 *
 *   gen_ratings --out FILE (--bytes SIZE | --users N) [--items M]
 *               [--avg-ratings R] [--seed S]
 *
 * The ratings come from planted low-rank factors plus noise,
 *   rating(u, i) = P_u . Q_i + N(0, 0.25^2),   P_u, Q_i in R^5,
 * with P and Q uniform in [-s, s] (s chosen so P_u . Q_i has variance 1), so
 * a factorisation of rank >= 5 can fit them to the noise level and SGD's
 * training RMSE visibly falls from about 1 to about 0.25. Ratings are centred
 * on zero (no global mean or biases to learn).
 *
 * How many ratings a user has follows a Pareto law (shape 2, mean R, capped
 * at 20 R and at M / 2); which items, a skewed popularity (item rank = M x^3
 * for uniform x, then scattered over the ids by app_perm.h), without
 * repeats. M defaults to max(N / 10, 10 R).
 * Everything about user u comes from its own random stream and everything
 * about item i from another, so the data does not depend on how the work is
 * split. The file is written one user bucket at a time: that bucket's
 * ratings (about nnz / B of them) are sorted into item buckets in memory and
 * appended; the group index is written at the end. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_alloc.h"
#include "app_args.h"
#include "app_perm.h"
#include "app_util.h"
#include "ratings_format.h"

enum { kTrueRank = 5 };
static const double kNoise = 0.25;
/* Var(P.Q) = K (s^2/3)^2 = 1  =>  s = (9/K)^(1/4). */
#define FACTOR_SCALE 1.1583

typedef struct model {
  uint64_t users, items, seed;
  double avg_ratings;
  uint64_t cap; /* ratings per user at most */
  app_perm item_perm;
} model;

static void item_factors(const model* m, uint64_t item, double q[kTrueRank]) {
  app_rng rng = app_rng_seed(m->seed, (1ull << 40) + item);
  for (int k = 0; k < kTrueRank; ++k)
    q[k] = FACTOR_SCALE * (2 * app_rng_uniform(&rng) - 1);
}

static double gaussian(app_rng* rng) {
  double u1 = app_rng_uniform(rng), u2 = app_rng_uniform(rng);
  return sqrt(-2 * log(1 - u1)) * cos(6.283185307179586 * u2);
}

/* Shellsort (Ciura's gaps): users have tens to a few thousand items, where
 * this beats qsort's calls through a comparison pointer, which took 40% of
 * the generator's time. */
static void sort_u32(uint32_t* a, uint64_t n) {
  static const uint64_t kGaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
  for (size_t g = 0; g < sizeof kGaps / sizeof kGaps[0]; ++g) {
    uint64_t gap = kGaps[g];
    for (uint64_t i = gap; i < n; ++i) {
      uint32_t x = a[i];
      uint64_t j = i;
      for (; j >= gap && a[j - gap] > x; j -= gap) a[j] = a[j - gap];
      a[j] = x;
    }
  }
}

/* Appends user u's ratings (sorted by item) to out[*count ...]. `items` is
 * scratch for m->cap ids. */
static void user_ratings(const model* m, uint64_t u, uint32_t* items,
                         rating* out, uint64_t* count) {
  app_rng rng = app_rng_seed(m->seed, u);
  double p[kTrueRank], q[kTrueRank];
  for (int k = 0; k < kTrueRank; ++k)
    p[k] = FACTOR_SCALE * (2 * app_rng_uniform(&rng) - 1);
  double want = ceil(m->avg_ratings / 2 / sqrt(1 - app_rng_uniform(&rng)));
  uint64_t d = (uint64_t)fmin(want, (double)m->cap), have = 0;
  /* Distinct items: draw the missing ones, sort, drop repeats; a few rounds
   * suffice since d <= items / 2. */
  for (int round = 0; round < 32 && have < d; ++round) {
    for (uint64_t k = have; k < d; ++k) {
      double x = app_rng_uniform(&rng);
      uint64_t popular = (uint64_t)((double)m->items * x * x * x);
      items[k] = (uint32_t)app_perm_apply(&m->item_perm, popular);
    }
    sort_u32(items, d);
    have = 0;
    for (uint64_t k = 0; k < d; ++k)
      if (have == 0 || items[k] != items[have - 1]) items[have++] = items[k];
  }
  for (uint64_t k = 0; k < have; ++k) {
    item_factors(m, items[k], q);
    double value = kNoise * gaussian(&rng);
    for (int f = 0; f < kTrueRank; ++f) value += p[f] * q[f];
    out[*count] = (rating){(uint32_t)u, items[k], (float)value};
    ++*count;
  }
}

/* Ratings per user on average: the mean of a Pareto law with shape 2 and
 * minimum avg/2, capped at `cap`, rounded up. */
static double mean_per_user(double avg, double cap) {
  double low = avg / 2;
  return cap <= low ? cap : low * (2 - low / cap) + 0.5;
}

/* The per-user cap: 20 times the mean, at most half the items. */
static uint64_t user_cap(double avg, uint64_t items) {
  double cap = fmin(20 * avg, (double)(items / 2));
  return cap < 1 ? 1 : (uint64_t)cap;
}

/* About Netflix's shape (many more users than items), but with room for
 * the heaviest users. */
static uint64_t default_items(uint64_t users, double avg) {
  return (uint64_t)fmax((double)users / 10, 10 * avg);
}

static void write_at(FILE* f, const char* path, const void* data, size_t bytes,
                     uint64_t offset) {
  if (fseeko(f, (off_t)offset, SEEK_SET) != 0 ||
      fwrite(data, 1, bytes, f) != bytes) {
    fprintf(stderr, "gen_ratings: writing %s: %s\n", path, strerror(errno));
    exit(1);
  }
}

int main(int argc, char** argv) {
  const char* out = NULL;
  uint64_t bytes = 0, users = 0, items = 0, seed = 1;
  double avg = 50;
  app_arg args[] = {APP_ARG("--out", APP_ARG_STRING, &out),
                    APP_ARG("--bytes", APP_ARG_SIZE, &bytes),
                    APP_ARG("--users", APP_ARG_SIZE, &users),
                    APP_ARG("--items", APP_ARG_SIZE, &items),
                    APP_ARG("--avg-ratings", APP_ARG_DOUBLE, &avg),
                    APP_ARG("--seed", APP_ARG_U64, &seed)};
  const char* usage =
      "gen_ratings --out FILE (--bytes SIZE | --users N) [--items M] "
      "[--avg-ratings R] [--seed S]";
  app_parse_args(argc, argv, args, 6, NULL, usage);
  if (out == NULL || args[1].seen == args[2].seen)
    app_args_fail(usage, "give --out and one of --bytes, --users", "");
  if (!(avg >= 1 && avg <= 1e5)) {
    fprintf(stderr, "gen_ratings: --avg-ratings must be in [1, 1e5]\n");
    return 2;
  }
  if (users == 0) {
    /* Solve bytes = header + full index + 12 nnz for the users (the items,
     * and so the cap, depend on them: two rounds settle it). */
    double payload =
        (double)bytes - ratings_record_offset(RATINGS_MAX_BUCKETS, 0);
    for (int round = 0; round < 2; ++round) {
      uint64_t m = items ? items : default_items(users, avg);
      users = (uint64_t)fmax(
          1, payload / (12 * mean_per_user(avg, user_cap(avg, m))));
    }
  }
  if (items == 0) items = default_items(users, avg);
  if (users < 1 || users >= (1ull << 32) || items < 1 ||
      items >= (1ull << 32)) {
    fprintf(stderr, "gen_ratings: need 1 <= users, items < 2^32\n");
    return 2;
  }

  model m = {users,
             items,
             seed,
             avg,
             user_cap(avg, items),
             app_perm_make(items, seed, UINT64_MAX)};
  uint64_t buckets = RATINGS_MAX_BUCKETS;
  if (buckets > users) buckets = users;
  if (buckets > items) buckets = items;
  uint64_t groups = buckets * buckets;
  uint64_t* index = app_alloc(8 * (groups + 1), 1, "gen_ratings");
  uint64_t cap = m.cap;
  uint32_t* scratch_items = app_alloc(cap * sizeof(uint32_t), 0, "gen_ratings");
  FILE* f = fopen(out, "wb");
  if (f == NULL) {
    fprintf(stderr, "gen_ratings: cannot create %s: %s\n", out,
            strerror(errno));
    return 1;
  }
  /* A zero header first: an interrupted run leaves a file every reader
   * rejects. The real header and the index are written last. */
  app_header header = {0};
  if (app_header_write(f, &header) != 0) {
    fprintf(stderr, "gen_ratings: writing %s: %s\n", out, strerror(errno));
    return 1;
  }

  uint64_t nnz = 0;
  for (uint64_t ub = 0; ub < buckets; ++ub) {
    uint64_t u0 = ratings_bucket_start(users, buckets, ub);
    uint64_t u1 = ratings_bucket_start(users, buckets, ub + 1);
    /* Room for the bucket's ratings, grown as needed: sized by the actual
     * count, not the per-user cap (20 times more). */
    uint64_t count = 0, room = 2 * (uint64_t)avg * (u1 - u0) + cap;
    rating* made = app_alloc(room * sizeof(rating), 0, "gen_ratings");
    for (uint64_t u = u0; u < u1; ++u) {
      if (room - count < cap) {
        room *= 2;
        made = realloc(made, room * sizeof(rating));
        if (made == NULL) {
          fprintf(stderr, "gen_ratings: out of memory\n");
          return 1;
        }
      }
      user_ratings(&m, u, scratch_items, made, &count);
    }
    rating* sorted = app_alloc(count * sizeof(rating), 0, "gen_ratings");
    /* Stable counting sort by item bucket keeps user, then item order. */
    uint64_t next[RATINGS_MAX_BUCKETS] = {0};
    for (uint64_t k = 0; k < count; ++k)
      ++next[ratings_bucket_of(items, buckets, made[k].item)];
    for (uint64_t ib = 0, at = 0; ib < buckets; ++ib) {
      index[ub * buckets + ib] = nnz + at; /* absolute group start */
      uint64_t size = next[ib];
      next[ib] = at;
      at += size;
    }
    for (uint64_t k = 0; k < count; ++k)
      sorted[next[ratings_bucket_of(items, buckets, made[k].item)]++] = made[k];
    write_at(f, out, sorted, count * sizeof(rating),
             ratings_record_offset(buckets, nnz));
    nnz += count;
    free(made);
    free(sorted);
  }
  index[groups] = nnz;
  write_at(f, out, index, 8 * (groups + 1), ratings_index_offset());

  header.version = APP_FORMAT_VERSION;
  header.kind = APP_KIND_RATINGS;
  header.dims[0] = users;
  header.dims[1] = items;
  header.dims[2] = nnz;
  header.dims[3] = buckets;
  header.seed = seed;
  if (app_header_write(f, &header) != 0 || fclose(f) != 0) {
    fprintf(stderr, "gen_ratings: writing %s: %s\n", out, strerror(errno));
    return 1;
  }
  printf("gen_ratings: %s: %llu users, %llu items, %llu ratings, %llu bytes\n",
         out, (unsigned long long)users, (unsigned long long)items,
         (unsigned long long)nnz,
         (unsigned long long)ratings_record_offset(buckets, nnz));
  free(index);
  free(scratch_items);
  return 0;
}
