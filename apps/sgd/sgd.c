/* sgd / sgd_ooc: matrix factorisation by SGD with the sqrt(p) x sqrt(p)
 * diagonal schedule of Recht & Re, as in section 6 of the BDMPI paper; a
 * plain MPI program.
 *
 *   sgd FILE [--rank R] [--iters N] [--lr L] [--lambda L] [--seed S]
 *   sgd_ooc FILE ... [--ooc-dir DIR]
 *
 * p = G^2 ranks (anything else is refused). Rank (i, j) = i G + j holds the
 * ratings of user block i x item block j (ratings_format.h). The factor rows
 * of user block i, U_i, and of item block j, V_j, travel: in global step t
 * (epoch t / G, sub-epoch s = t mod G) user block i works with item block
 * (i + s) mod G (sgd_item_block), on rank (i, (i + t) mod G). So in each
 * step G ranks, one per row and column of the grid, update disjoint U_i and
 * V_j; then each passes U_i along its row to (i, j+1) and V_j up its column
 * to (i-1, j), which work next (MPI_Isend/Irecv + MPI_Waitall). The others
 * wait, as the paper intends: under BDMPI they cost nothing. The diagonal
 * ranks make the initial factors at t = 0. The result is bit-identical to
 * sgd_serial --grid G (sgd_kernel.h).
 *
 * After each epoch the per-rank squared errors are gathered to rank 0
 * (MPI_Gather, summed in rank order so the sum is exactly the serial one),
 * which prints ITER and RMSE lines; after the last epoch one more epoch with
 * lr = 0 measures the final factors for RESULT sgd <RMSE>.
 *
 * sgd_ooc (APP_OOC): the rank's ratings block goes to the ooc store
 * (READONLY: written once) before every blocking call, and is read back
 * only when the rank next computes, i.e. once per epoch. The factor blocks
 * exist only on the rank working with them (allocated on receipt, freed once
 * sent) in both variants. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_alloc.h"
#include "app_util.h"
#include "ooc_lazy.h"
#include "ooc_store.h"
#include "ratings_format.h"
#include "sgd_kernel.h"

enum { kTagU = 1, kTagV = 2 };

typedef struct sgd_rank {
  int size, me, grid, bi, bj, R;
  uint64_t u0, u1, i0, i1, count, nnz;
  rating* ratings;  /* this rank's block */
  float *U, *V;     /* U_bi and V_bj while this rank holds them */
  app_ooc_lazy ooc; /* the ratings; store NULL unless sgd_ooc */
} sgd_rank;

static int rank_of(const sgd_rank* s, int i, int j) {
  return ((i + s->grid) % s->grid) * s->grid + (j + s->grid) % s->grid;
}

/* Does this rank compute in global step t? */
static int active(const sgd_rank* s, long t) {
  return ((long)s->bj - s->bi - t) % s->grid == 0;
}

static void alloc_factors(sgd_rank* s) {
  s->U = app_alloc(4 * (s->u1 - s->u0) * (uint64_t)s->R, 0, "sgd");
  s->V = app_alloc(4 * (s->i1 - s->i0) * (uint64_t)s->R, 0, "sgd");
}

static void free_factors(sgd_rank* s) {
  free(s->U);
  free(s->V);
  s->U = s->V = NULL;
}

/* After step t: the ranks of step t hand U and V to those of step t + 1. */
static void pass_factors(sgd_rank* s, long t) {
  MPI_Request req[2];
  int nu = (int)((s->u1 - s->u0) * (uint64_t)s->R);
  int nv = (int)((s->i1 - s->i0) * (uint64_t)s->R);
  if (active(s, t)) {
    MPI_Isend(s->U, nu, MPI_FLOAT, rank_of(s, s->bi, s->bj + 1), kTagU,
              MPI_COMM_WORLD, &req[0]);
    MPI_Isend(s->V, nv, MPI_FLOAT, rank_of(s, s->bi - 1, s->bj), kTagV,
              MPI_COMM_WORLD, &req[1]);
  } else if (active(s, t + 1)) {
    alloc_factors(s);
    MPI_Irecv(s->U, nu, MPI_FLOAT, rank_of(s, s->bi, s->bj - 1), kTagU,
              MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(s->V, nv, MPI_FLOAT, rank_of(s, s->bi + 1, s->bj), kTagV,
              MPI_COMM_WORLD, &req[1]);
  } else {
    return;
  }
  app_ooc_lazy_save(&s->ooc);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  if (active(s, t)) free_factors(s);
}

/* Rank 0 gets the global RMSE of an epoch from each rank's squared error. */
static double gather_rmse(sgd_rank* s, double sse) {
  double* all = s->me == 0 ? app_alloc(8 * (size_t)s->size, 0, "sgd") : NULL;
  app_ooc_lazy_save(&s->ooc);
  MPI_Gather(&sse, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double total = 0;
  if (s->me == 0)
    for (int q = 0; q < s->size; ++q) total += all[q]; /* serial's order */
  free(all);
  return sqrt(total / (double)(s->nnz ? s->nnz : 1));
}

static int setup(sgd_rank* s, const sgd_options* o) {
  int grid = (int)lround(sqrt((double)s->size));
  if (grid * grid != s->size) {
    if (s->me == 0)
      fprintf(stderr,
              "sgd: the number of ranks must be a perfect square "
              "(the sqrt(p) x sqrt(p) schedule), not %d\n",
              s->size);
    return -1;
  }
  ratings_file r;
  if (ratings_open(o->file, &r) != 0) return -1;
  if (ratings_check_grid(&r, (uint64_t)grid) != 0) {
    ratings_close(&r);
    return -1;
  }
  s->grid = grid;
  s->R = o->rank;
  s->bi = s->me / grid;
  s->bj = s->me % grid;
  s->nnz = r.nnz;
  ratings_block_users(&r, (uint64_t)grid, (uint64_t)s->bi, &s->u0, &s->u1);
  ratings_block_items(&r, (uint64_t)grid, (uint64_t)s->bj, &s->i0, &s->i1);
  s->count =
      ratings_block_count(&r, (uint64_t)grid, (uint64_t)s->bi, (uint64_t)s->bj);
  if ((s->u1 - s->u0) * (uint64_t)s->R > INT32_MAX ||
      (s->i1 - s->i0) * (uint64_t)s->R > INT32_MAX) {
    fprintf(stderr, "sgd: factor blocks over 2^31 values; use more ranks\n");
    ratings_close(&r);
    return -1;
  }
  s->ratings = app_alloc(sizeof(rating) * s->count, 0, "sgd");
  int rc = ratings_read_block(&r, (uint64_t)grid, (uint64_t)s->bi,
                              (uint64_t)s->bj, s->ratings);
  ratings_close(&r);
  s->ooc.loaded = 1;
  if (s->ooc.store != NULL)
    app_ooc_add(s->ooc.store, (void**)&s->ratings, sizeof(rating) * s->count,
                APP_OOC_READONLY);
  return rc;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  sgd_rank s = {0};
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.me);
  sgd_options o;
#ifdef APP_OOC
  sgd_parse_args(argc, argv, "sgd_ooc", SGD_ARG_OOC_DIR, &o);
  s.ooc.store = app_ooc_open(o.ooc_dir, s.me);
#else
  sgd_parse_args(argc, argv, "sgd", 0, &o);
#endif
  int ok = setup(&s, &o) == 0;
  int all_ok = 0;
  app_ooc_lazy_save(&s.ooc);
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    MPI_Finalize();
    return 1;
  }

  /* Epochs 1..iters train; epoch iters+1 only measures (lr = 0). */
  long steps = (long)(o.iters + 1) * s.grid;
  double sse = 0, start = app_now();
  for (long t = 0; t < steps; ++t) {
    int epoch = (int)(t / s.grid) + 1;
    if (active(&s, t)) {
      if (t == 0) {
        alloc_factors(&s);
        sgd_init_factors(s.U, s.u0, s.u1 - s.u0, s.R, o.seed, 0);
        sgd_init_factors(s.V, s.i0, s.i1 - s.i0, s.R, o.seed, 1);
      }
      app_ooc_lazy_need(&s.ooc);
      float lr = epoch <= o.iters ? (float)o.lr : 0.0f;
      sgd_update(s.ratings, s.count, s.U, s.u0, s.V, s.i0, s.R, lr,
                 (float)o.lambda, &sse);
    }
    if (s.grid > 1 && t + 1 < steps) pass_factors(&s, t);
    if ((t + 1) % s.grid == 0) {
      double rmse = gather_rmse(&s, sse);
      sse = 0;
      if (s.me == 0 && epoch <= o.iters)
        sgd_report_iteration(epoch, app_now() - start, rmse);
      else if (s.me == 0)
        printf("RESULT sgd %.17g\n", rmse);
      start = app_now();
    }
  }

  free_factors(&s);
  if (s.ooc.store != NULL) app_ooc_close(s.ooc.store);
  free(s.ratings);
  MPI_Finalize();
  return 0;
}
