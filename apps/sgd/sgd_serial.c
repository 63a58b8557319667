/* sgd_serial / sgd_serial_ooc: the SGD factorisation without MPI, with the
 * same schedule and arithmetic as sgd (sgd_kernel.h).
 *
 *   sgd_serial FILE [--rank R] [--iters N] [--lr L] [--lambda L] [--seed S]
 *              [--grid G]
 *   sgd_serial_ooc FILE ... [--grid G] [--chunk SIZE]
 *
 * Both follow the diagonal schedule of a G x G grid (default G = 1, plain
 * SGD in file order); with --grid G they reproduce sgd on G^2 ranks exactly.
 * sgd_serial loads all ratings once: the in-memory reference of the tests.
 * sgd_serial_ooc (SGD_STREAM) is the serial out-of-core baseline: the
 * factors U and V (the small state) stay in memory, and every epoch
 * streams each block's ratings from disk, --chunk bytes (default 64m) at a
 * time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_alloc.h"
#include "app_util.h"
#include "ratings_format.h"
#include "sgd_kernel.h"

#ifdef SGD_STREAM
#define PROGRAM "sgd_serial_ooc"
#define STREAMING 1
#else
#define PROGRAM "sgd_serial"
#define STREAMING 0
#endif

/* What a block's updates need besides the ratings (ratings_stream_block
 * hands them over a chunk at a time). */
typedef struct block_pass {
  float *U, *V;
  uint64_t u0, i0;
  int rank;
  float lr, lambda;
  double sse;
} block_pass;

static void update_chunk(void* ctx, const rating* ratings, uint64_t count) {
  block_pass* b = ctx;
  sgd_update(ratings, count, b->U, b->u0, b->V, b->i0, b->rank, b->lr,
             b->lambda, &b->sse);
}

int main(int argc, char** argv) {
  sgd_options o;
  sgd_parse_args(argc, argv, PROGRAM,
                 SGD_ARG_GRID | (STREAMING ? SGD_ARG_CHUNK : 0), &o);
  ratings_file r;
  if (ratings_open(o.file, &r) != 0) return 1;
  if (ratings_check_grid(&r, (uint64_t)o.grid) != 0) return 1;
  int grid = o.grid, R = o.rank;
  float* U = app_alloc(4 * r.users * (uint64_t)R, 0, PROGRAM);
  float* V = app_alloc(4 * r.items * (uint64_t)R, 0, PROGRAM);
  sgd_init_factors(U, 0, r.users, R, o.seed, 0);
  sgd_init_factors(V, 0, r.items, R, o.seed, 1);

  /* In memory: every block's ratings, loaded once. Streaming: one buffer. */
  uint64_t blocks = (uint64_t)grid * (uint64_t)grid;
  rating** block = app_alloc(sizeof(rating*) * blocks, 0, PROGRAM);
  uint64_t* count = app_alloc(8 * blocks, 0, PROGRAM);
  for (uint64_t b = 0; b < blocks; ++b) {
    count[b] = ratings_block_count(&r, (uint64_t)grid, b / grid, b % grid);
    block[b] = NULL;
    if (!STREAMING) {
      block[b] = app_alloc(sizeof(rating) * count[b], 0, PROGRAM);
      if (ratings_read_block(&r, (uint64_t)grid, b / grid, b % grid,
                             block[b]) != 0)
        return 1;
    }
  }
  uint64_t chunk = o.chunk / sizeof(rating);
  rating* buffer =
      STREAMING ? app_alloc(sizeof(rating) * chunk, 0, PROGRAM) : NULL;
  double* block_sse = app_alloc(8 * blocks, 0, PROGRAM);

  /* Epochs 1..iters train; epoch iters+1 only measures (lr = 0). */
  for (int epoch = 1; epoch <= o.iters + 1; ++epoch) {
    double start = app_now();
    float lr = epoch <= o.iters ? (float)o.lr : 0.0f;
    for (int s = 0; s < grid; ++s) {
      for (int i = 0; i < grid; ++i) {
        int j = sgd_item_block(grid, i, s);
        uint64_t b = (uint64_t)i * grid + j, u1, i1;
        block_pass pass = {NULL, NULL, 0, 0, R, lr, (float)o.lambda, 0};
        ratings_block_users(&r, (uint64_t)grid, i, &pass.u0, &u1);
        ratings_block_items(&r, (uint64_t)grid, j, &pass.i0, &i1);
        pass.U = U + pass.u0 * R;
        pass.V = V + pass.i0 * R;
        if (!STREAMING)
          update_chunk(&pass, block[b], count[b]);
        else if (ratings_stream_block(&r, (uint64_t)grid, i, j, buffer, chunk,
                                      update_chunk, &pass) != 0)
          return 1;
        block_sse[b] = pass.sse;
      }
    }
    double sse = 0;
    for (uint64_t b = 0; b < blocks; ++b) sse += block_sse[b];
    double rmse = sqrt(sse / (double)(r.nnz ? r.nnz : 1));
    if (epoch <= o.iters)
      sgd_report_iteration(epoch, app_now() - start, rmse);
    else
      printf("RESULT sgd %.17g\n", rmse);
  }
  for (uint64_t b = 0; b < blocks; ++b) free(block[b]);
  free(block);
  free(count);
  free(buffer);
  free(block_sse);
  free(U);
  free(V);
  ratings_close(&r);
  return 0;
}
