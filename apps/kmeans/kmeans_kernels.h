/* What the four k-means programs share: their options, the model (centroids
 * and the sums that become the next ones), the seeding, the assignment
 * kernel, the centroid update, the output lines and the serial driver.
 *
 * Spherical k-means (Dhillon & Modha): every row x is used as x / |x|; a
 * row joins the centroid of highest cosine similarity (the lowest index on
 * a tie); a new centroid is the normalised sum of its rows; the objective is
 * the sum over rows of the similarity to their centroid. A row without
 * non-zeros has similarity 0 to everything and joins centroid 0.
 *
 * Centroids are stored term-major, c[col * k + j], so that the k values a
 * non-zero multiplies are adjacent in memory. */
#ifndef BDMPI_APPS_KMEANS_KERNELS_H
#define BDMPI_APPS_KMEANS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "documents_format.h"

/* Which of the optional flags a program takes. */
enum { KM_OPT_OOC_DIR = 1, KM_OPT_CHUNK = 2, KM_OPT_READER = 4 };

typedef struct km_options {
  const char* path;
  int k;
  int iters;
  uint64_t seed;
  const char* ooc_dir; /* kmeans_ooc: where each rank keeps its file */
  uint64_t chunk;      /* kmeans_serial_ooc: bytes of entries per piece */
  const char* reader;  /* MPI programs: "posix" or "mpiio" (--reader) */
} km_options;

/* Parses `prog FILE [--k K] [--iters N] [--seed S]` and the flags in
 * `allowed`. On a bad command line returns 2 after printing why (only if
 * `verbose`, so that one MPI rank speaks for all); 1 after --help; else 0. */
int km_parse_options(int argc, char** argv, const char* prog, unsigned allowed,
                     int verbose, km_options* o);

typedef struct km_model {
  int k;
  uint64_t cols;
  double* centroids; /* cols * k, term-major, each centroid of norm 1 */
  double* sums;      /* cols * k + 1: the next centroids' sums, then the objective */
  uint64_t* counts;  /* k + 1: rows per centroid, then the rows that moved */
} km_model;

/* Allocates the arrays (zeroed). -1 with a message when out of memory. */
int km_model_init(km_model* m, int k, uint64_t cols);
void km_model_free(km_model* m);
size_t km_sums_len(const km_model* m);   /* cols * k + 1 */
size_t km_counts_len(const km_model* m); /* k + 1 */

/* Chooses k distinct rows of `rows` from the seed: the same rows for every
 * program and rank count. -1 with a message if k > rows. */
int km_seed_rows(uint64_t seed, uint64_t rows, int k, uint64_t* out);

/* The initial centroids: the seed rows of the file, normalised. */
int km_initial_centroids(const app_documents* doc, uint64_t seed, km_model* m);

/* Zeroes sums and counts for a new iteration. */
void km_clear(km_model* m);

/* Assigns `rows` (assign[i] is row i's current centroid, -1 for none) to
 * the nearest centroids and adds them to sums and counts, the similarity to
 * the objective slot and the rows that changed to the moved slot. */
void km_assign(km_model* m, const app_doc_rows* rows, int32_t* assign);

/* Sets each centroid to its normalised sum; a centroid without rows (or
 * whose sum is zero) stays where it was. */
void km_update(km_model* m);

double km_objective(const km_model* m);
uint64_t km_moved(const km_model* m);

/* All four programs report as the one application "kmeans", so that their
 * lines compare directly. After an iteration: "ITER kmeans <i> <seconds>"
 * and "kmeans: iteration <i> moved <rows> objective <value>" (the moved
 * counts must match exactly between programs; tests compare these lines). */
void km_report_iteration(int i, double seconds, const km_model* m);
/* "RESULT kmeans <objective>", full precision. */
void km_report_result(double objective);

/* The serial driver: each iteration asks `next` for the pieces of the
 * matrix in row order (first = 1 on the first call of a pass; returns 1 with
 * a piece, 0 after the last, -1 on error). Returns the exit status. */
typedef int (*km_next_piece)(void* ctx, int first, const app_doc_rows** piece);
int km_run_serial(const char* prog, const km_options* o, const app_documents* doc,
                  km_next_piece next, void* ctx);

#endif
