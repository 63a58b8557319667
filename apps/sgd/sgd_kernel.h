/* The numerical part of the SGD matrix factorisation, shared by the MPI
 * program (sgd, sgd_ooc) and the serial ones (sgd_serial, sgd_serial_ooc).
 *
 * Model: rating(u, i) ~ U_u . V_i with U (users x R) and V (items x R) in
 * single precision; no biases (gen_ratings centres its ratings on zero).
 * For each rating, with e = rating - U_u . V_i:
 *   U_u += lr (e V_i - lambda U_u),   V_i += lr (e U_u - lambda V_i)
 * (both from the old values). Every factor row starts from its own random
 * stream, so the start does not depend on the grid.
 *
 * The schedule (Recht & Re; paper section 6): users and items are cut into
 * G blocks each (G x G blocks of ratings, ratings_format.h). An epoch has G
 * sub-epochs; in sub-epoch s, user block i is paired with item block
 * (i + s) mod G. The G pairs of a sub-epoch touch disjoint rows of U and V,
 * so running them one after the other (serial) or at the same time (MPI)
 * gives bit-identical factors: sgd_serial --grid G reproduces sgd on G^2
 * ranks exactly. Different G visit the ratings in different orders and so
 * give (slightly) different results, as SGD does.
 *
 * Reported RMSE: per epoch, the root mean square of the errors e as the
 * ratings were visited (before each update), summed per block and then over
 * blocks in the order (i, j) = (0,0), (0,1), ... After the last epoch one
 * more pass with lr = 0 measures the final factors exactly: that is the
 * RESULT value. */
#ifndef BDMPI_APPS_SGD_KERNEL_H
#define BDMPI_APPS_SGD_KERNEL_H

#include <stdint.h>

#include "ratings_format.h"

typedef struct sgd_options {
  const char* file;
  int rank;            /* latent factors (--rank, default 10) */
  int iters;           /* epochs (--iters, default 10) */
  double lr, lambda;   /* step size and regularisation */
  uint64_t seed;       /* of the initial factors */
  int grid;            /* serial programs: G of the schedule (default 1) */
  const char* ooc_dir; /* sgd_ooc: where ranks keep their arrays */
  uint64_t chunk;      /* sgd_serial_ooc: bytes of ratings read at a time */
} sgd_options;

enum { SGD_ARG_GRID = 1, SGD_ARG_OOC_DIR = 2, SGD_ARG_CHUNK = 4 };

/* Parses "FILE [--rank R] [--iters N] [--lr L] [--lambda L] [--seed S]" and
 * the options in `extra` (SGD_ARG_*). */
void sgd_parse_args(int argc, char** argv, const char* program, int extra,
                    sgd_options* options);

/* Initial rows [first, first + count) of U (items = 0) or V (items = 1). */
void sgd_init_factors(float* rows, uint64_t first, uint64_t count, int rank,
                      uint64_t seed, int items);

/* The updates for `count` ratings in order; U holds the rows of users
 * u0.., V those of items i0... Adds the squared errors to *sse. With
 * lr = 0 only measures. */
void sgd_update(const rating* ratings, uint64_t count, float* U, uint64_t u0,
                float* V, uint64_t i0, int rank, float lr, float lambda,
                double* sse);

/* The item block paired with user block i in sub-epoch s. */
static inline int sgd_item_block(int grid, int i, int s) {
  return (i + s) % grid;
}

/* ITER and RMSE lines after epoch i (1-based). */
void sgd_report_iteration(int i, double seconds, double rmse);

#endif
