/* kmeans: spherical k-means of sparse vectors, a plain MPI program (only
 * mpi.h) that runs unmodified under mpirun and bdmpiexec. Compiled with
 * -DAPP_OOC it is kmeans_ooc, the paper's "-ooc" variant.
 *
 *   kmeans FILE [--k K] [--iters N] [--seed S] [--reader posix|mpiio]
 *   kmeans_ooc FILE [--k K] [--iters N] [--seed S] [--ooc-dir DIR] [--reader ..]
 *
 * --reader mpiio reads the rank's rows with MPI-IO (apps/common/mpiio_reader.h)
 * instead of pread; the results are the same.
 *
 * Decomposition (paper, section 6): rank r owns the consecutive rows of
 * block r of p blocks balanced by non-zeros (app_documents_split) and reads
 * only those. Rank 0 picks the initial centroids (k rows chosen by the
 * seed, the same for any rank count). Each iteration:
 *   1. MPI_Bcast of the centroids from rank 0;
 *   2. every rank assigns its rows to the nearest centroids and sums them;
 *   3. MPI_Allreduce of the sums (with the objective in their last slot)
 *      and of the counts (with the rows that moved in their last slot);
 *   4. rank 0 normalises the sums into the next centroids.
 * It stops when no row moved or after --iters iterations.
 *
 * kmeans_ooc: the rank's rows (read-only) and assignments (read-write) go
 * to its own file through apps/common/ooc_store before the Allreduce and
 * come back after the next Bcast, so a waiting rank holds only the buffer
 * of the collective it waits in: the centroids (received) in the Bcast, the
 * sums in the Allreduce. Under BDMPI the I/O runs in critical sections. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "documents_format.h"
#include "kmeans_kernels.h"
#include "mpiio_reader.h"

#ifdef APP_OOC
#include "ooc_store.h"
#define PROG "kmeans_ooc"
#define OPTIONS (KM_OPT_OOC_DIR | KM_OPT_READER)
#else
#define PROG "kmeans"
#define OPTIONS KM_OPT_READER
#endif

/* MPI counts are ints: move long arrays in pieces. */
enum { kPiece = 1 << 26 };

static void bcast_doubles(double* data, size_t count) {
  for (size_t off = 0; off < count; off += kPiece) {
    size_t n = count - off < kPiece ? count - off : kPiece;
    MPI_Bcast(data + off, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
}

static void allreduce_sum(void* data, size_t count, MPI_Datatype type,
                          size_t size) {
  for (size_t off = 0; off < count; off += kPiece) {
    size_t n = count - off < kPiece ? count - off : kPiece;
    MPI_Allreduce(MPI_IN_PLACE, (char*)data + off * size, (int)n, type,
                  MPI_SUM, MPI_COMM_WORLD);
  }
}

static void* alloc_or_abort(size_t count, size_t size) {
  void* p = calloc(count ? count : 1, size);
  if (p == NULL) {
    fprintf(stderr, PROG ": out of memory (%zu x %zu bytes)\n", count, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* Options and file header are the same for every rank: rank 0 checks them
 * first and alone reports a problem (and ends the job with MPI_Abort),
 * while the others wait in the Bcast of the verdict; then they follow. */
static int open_input(int argc, char** argv, int rank, km_options* o,
                      app_documents* doc) {
  int verdict = 0; /* 0 run, 1 --help was printed */
  if (rank == 0) {
    verdict = km_parse_options(argc, argv, PROG, OPTIONS, 1, o);
    if (verdict == 2) MPI_Abort(MPI_COMM_WORLD, 2);
    if (verdict == 0 && app_documents_open(o->path, doc) != 0)
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0 && verdict == 0) {
    if (km_parse_options(argc, argv, PROG, OPTIONS, 0, o) != 0 ||
        app_documents_open(o->path, doc) != 0)
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return verdict;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  km_options o;
  app_documents doc;
  if (open_input(argc, argv, rank, &o, &doc) != 0) {
    MPI_Finalize();
    return 0;
  }

  double load_start = app_now();
  uint64_t first = app_documents_split(&doc, (uint64_t)rank, (uint64_t)size);
  uint64_t last = app_documents_split(&doc, (uint64_t)rank + 1, (uint64_t)size);
  app_doc_rows rows;
  app_mpiio mpiio;
  int use_mpiio = strcmp(o.reader, "mpiio") == 0;
  if (use_mpiio && app_mpiio_open(&mpiio, o.path, &doc.blocks) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  if (first == UINT64_MAX || last == UINT64_MAX ||
      app_documents_read_rows(&doc, first, last, &rows) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  if (use_mpiio) app_mpiio_close(&mpiio);
  int32_t* assign = alloc_or_abort(rows.count, sizeof(int32_t));
  for (uint64_t i = 0; i < rows.count; ++i) assign[i] = -1;

  km_model m;
  if (km_model_init(&m, o.k, doc.cols) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  if (rank == 0 && km_initial_centroids(&doc, o.seed, &m) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  const size_t sums_len = km_sums_len(&m), counts_len = km_counts_len(&m);

#ifdef APP_OOC
  app_ooc_store* store = app_ooc_open(o.ooc_dir, rank);
  app_ooc_add(store, (void**)&rows.rowptr, 8 * (rows.count + 1), APP_OOC_READONLY);
  app_ooc_add(store, (void**)&rows.entries, sizeof(app_doc_entry) * rows.nnz,
              APP_OOC_READONLY);
  app_ooc_add(store, (void**)&assign, sizeof(int32_t) * rows.count,
              APP_OOC_READWRITE);
  app_ooc_save(store);
  /* Allocated only while in use (see the top of the file). */
  free(m.sums);
  free(m.counts);
  m.sums = NULL;
  m.counts = NULL;
  if (rank != 0) {
    free(m.centroids);
    m.centroids = NULL;
  }
#endif

  /* Iteration times should not include the input: under BDMPI with -nr 1
   * the ranks read their blocks one after the other. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf(PROG ": %d ranks read %llu rows, %llu non-zeros in %.2f s\n", size,
           (unsigned long long)doc.rows, (unsigned long long)doc.nnz,
           app_now() - load_start);
    fflush(stdout);
  }

  double objective = 0;
  for (int it = 1; it <= o.iters; ++it) {
    double start = app_now();
#ifdef APP_OOC
    if (rank != 0) m.centroids = alloc_or_abort(sums_len, sizeof(double));
#endif
    bcast_doubles(m.centroids, sums_len);
#ifdef APP_OOC
    app_ooc_load(store);
    m.sums = alloc_or_abort(sums_len, sizeof(double));
    m.counts = alloc_or_abort(counts_len, sizeof(uint64_t));
#else
    km_clear(&m);
#endif
    km_assign(&m, &rows, assign);
#ifdef APP_OOC
    app_ooc_save(store);
    if (rank != 0) {
      free(m.centroids);
      m.centroids = NULL;
    }
#endif
    allreduce_sum(m.sums, sums_len, MPI_DOUBLE, sizeof(double));
    allreduce_sum(m.counts, counts_len, MPI_UINT64_T, sizeof(uint64_t));
    objective = km_objective(&m);
    uint64_t moved = km_moved(&m);
    if (rank == 0) {
      km_update(&m);
      km_report_iteration(it, app_now() - start, &m);
    }
#ifdef APP_OOC
    free(m.sums);
    free(m.counts);
    m.sums = NULL;
    m.counts = NULL;
#endif
    if (moved == 0) break;
  }
  if (rank == 0) km_report_result(objective);

#ifdef APP_OOC
  app_ooc_close(store); /* saved arrays are already freed (NULL) */
#endif
  free(assign);
  app_doc_rows_free(&rows);
  km_model_free(&m);
  app_documents_close(&doc);
  MPI_Finalize();
  return 0;
}
