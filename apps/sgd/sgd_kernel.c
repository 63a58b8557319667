#include "sgd_kernel.h"

#include <math.h>
#include <stdio.h>

#include "app_args.h"
#include "app_util.h"

void sgd_parse_args(int argc, char** argv, const char* program, int extra,
                    sgd_options* o) {
  *o = (sgd_options){NULL, 10, 10, 0.02, 0.02, 1, 1, NULL, 64ull << 20};
  app_arg args[] = {
      APP_ARG("--rank", APP_ARG_INT, &o->rank),
      APP_ARG("--iters", APP_ARG_INT, &o->iters),
      APP_ARG("--lr", APP_ARG_DOUBLE, &o->lr),
      APP_ARG("--lambda", APP_ARG_DOUBLE, &o->lambda),
      APP_ARG("--seed", APP_ARG_U64, &o->seed),
      APP_ARG(extra & SGD_ARG_GRID ? "--grid" : "", APP_ARG_INT, &o->grid),
      APP_ARG(extra & SGD_ARG_OOC_DIR ? "--ooc-dir" : "", APP_ARG_STRING,
              &o->ooc_dir),
      APP_ARG(extra & SGD_ARG_CHUNK ? "--chunk" : "", APP_ARG_SIZE, &o->chunk)};
  char usage[300];
  snprintf(usage, sizeof usage,
           "%s FILE [--rank R] [--iters N] [--lr L] [--lambda L] [--seed S]"
           "%s%s%s",
           program, extra & SGD_ARG_GRID ? " [--grid G]" : "",
           extra & SGD_ARG_OOC_DIR ? " [--ooc-dir DIR]" : "",
           extra & SGD_ARG_CHUNK ? " [--chunk SIZE]" : "");
  app_parse_args(argc, argv, args, 8, &o->file, usage);
  if (o->file == NULL) app_args_fail(usage, "no ratings file given", "");
  if (!(o->lr > 0 && o->lr < 1) || !(o->lambda >= 0) || o->rank > 1000 ||
      o->chunk < 4096)
    app_args_fail(usage,
                  "need 0 < --lr < 1, --lambda >= 0, --rank <= 1000, "
                  "--chunk >= 4k",
                  "");
}

void sgd_init_factors(float* rows, uint64_t first, uint64_t count, int rank,
                      uint64_t seed, int items) {
  for (uint64_t r = 0; r < count; ++r) {
    app_rng rng = app_rng_seed(seed, (items ? 1ull << 40 : 0) + first + r);
    /* Small and of both signs: the model must grow into the data. */
    for (int k = 0; k < rank; ++k)
      rows[r * (uint64_t)rank + (uint64_t)k] =
          (float)(0.2 * (2 * app_rng_uniform(&rng) - 1));
  }
}

void sgd_update(const rating* ratings, uint64_t count, float* U, uint64_t u0,
                float* V, uint64_t i0, int rank, float lr, float lambda,
                double* sse) {
  double sum = *sse;
  for (uint64_t n = 0; n < count; ++n) {
    float* u = U + (ratings[n].user - u0) * (uint64_t)rank;
    float* v = V + (ratings[n].item - i0) * (uint64_t)rank;
    float predicted = 0;
    for (int k = 0; k < rank; ++k) predicted += u[k] * v[k];
    float e = ratings[n].value - predicted;
    sum += (double)e * (double)e;
    if (lr == 0) continue;
    for (int k = 0; k < rank; ++k) {
      float uk = u[k], vk = v[k];
      u[k] = uk + lr * (e * vk - lambda * uk);
      v[k] = vk + lr * (e * uk - lambda * vk);
    }
  }
  *sse = sum;
}

void sgd_report_iteration(int i, double seconds, double rmse) {
  app_print_iteration("sgd", i, seconds);
  printf("RMSE %d %.17g\n", i, rmse);
  fflush(stdout);
}
