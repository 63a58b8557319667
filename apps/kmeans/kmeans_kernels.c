#include "kmeans_kernels.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"

static void usage(FILE* f, const char* prog, unsigned allowed) {
  fprintf(f, "usage: %s FILE [--k K] [--iters N] [--seed S]%s%s%s\n", prog,
          allowed & KM_OPT_OOC_DIR ? " [--ooc-dir DIR]" : "",
          allowed & KM_OPT_CHUNK ? " [--chunk SIZE]" : "",
          allowed & KM_OPT_READER ? " [--reader posix|mpiio]" : "");
  fprintf(f,
          "  FILE          a documents file (gen_documents)\n"
          "  --k K         clusters (default 16)\n"
          "  --iters N     at most N iterations; stops earlier when no row "
          "moves (default 10)\n"
          "  --seed S      chooses the initial centroids (default 1)\n");
  if (allowed & KM_OPT_OOC_DIR)
    fprintf(f, "  --ooc-dir DIR where each rank keeps its arrays between "
               "MPI calls (default $TMPDIR or /tmp)\n");
  if (allowed & KM_OPT_CHUNK)
    fprintf(f, "  --chunk SIZE  bytes of the matrix read at a time "
               "(default 64m)\n");
  if (allowed & KM_OPT_READER)
    fprintf(f, "  --reader R    posix (pread, default) or mpiio (MPI_File_read_at_all)\n");
}

static int parse_number(const char* prog, const char* flag, const char* text,
                        uint64_t max, uint64_t* out, int verbose) {
  char* end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || v > max) {
    if (verbose)
      fprintf(stderr, "%s: %s takes a number up to %llu, not '%s'\n", prog,
              flag, (unsigned long long)max, text);
    return -1;
  }
  *out = v;
  return 0;
}

int km_parse_options(int argc, char** argv, const char* prog, unsigned allowed,
                     int verbose, km_options* o) {
  const char* tmp = getenv("TMPDIR");
  *o = (km_options){NULL, 16, 10, 1, tmp && *tmp ? tmp : "/tmp", 64ull << 20, "posix"};
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      if (verbose) usage(stdout, prog, allowed);
      return 1;
    }
    if (a[0] != '-') {
      if (o->path != NULL) {
        if (verbose) fprintf(stderr, "%s: more than one FILE ('%s')\n", prog, a);
        return 2;
      }
      o->path = a;
      continue;
    }
    int known = strcmp(a, "--k") == 0 || strcmp(a, "--iters") == 0 ||
                strcmp(a, "--seed") == 0 ||
                (allowed & KM_OPT_OOC_DIR && strcmp(a, "--ooc-dir") == 0) ||
                (allowed & KM_OPT_CHUNK && strcmp(a, "--chunk") == 0) ||
                (allowed & KM_OPT_READER && strcmp(a, "--reader") == 0);
    if (!known || i + 1 >= argc) {
      if (verbose) {
        fprintf(stderr, "%s: %s option '%s'\n", prog,
                known ? "no value for" : "unknown", a);
        usage(stderr, prog, allowed);
      }
      return 2;
    }
    const char* v = argv[++i];
    uint64_t n = 0;
    if (strcmp(a, "--ooc-dir") == 0) {
      o->ooc_dir = v;
    } else if (strcmp(a, "--reader") == 0) {
      if (strcmp(v, "posix") != 0 && strcmp(v, "mpiio") != 0) {
        if (verbose) fprintf(stderr, "%s: --reader %s: want posix or mpiio\n", prog, v);
        return 2;
      }
      o->reader = v;
    } else if (strcmp(a, "--chunk") == 0) {
      o->chunk = app_parse_size(v, "--chunk");
    } else if (strcmp(a, "--seed") == 0) {
      if (parse_number(prog, a, v, UINT64_MAX, &o->seed, verbose)) return 2;
    } else {
      /* k centroids of a file's width must stay addressable by an int
       * count in pieces; 1 << 20 is far beyond any useful k. */
      if (parse_number(prog, a, v, 1u << 20, &n, verbose) || n == 0) {
        if (verbose && n == 0) fprintf(stderr, "%s: %s must be positive\n", prog, a);
        return 2;
      }
      if (strcmp(a, "--k") == 0) o->k = (int)n;
      else o->iters = (int)n;
    }
  }
  if (o->path == NULL) {
    if (verbose) {
      fprintf(stderr, "%s: no input FILE\n", prog);
      usage(stderr, prog, allowed);
    }
    return 2;
  }
  return 0;
}

size_t km_sums_len(const km_model* m) { return (size_t)m->cols * (size_t)m->k + 1; }
size_t km_counts_len(const km_model* m) { return (size_t)m->k + 1; }

int km_model_init(km_model* m, int k, uint64_t cols) {
  m->k = k;
  m->cols = cols;
  size_t n = km_sums_len(m);
  m->centroids = calloc(n, sizeof(double));
  m->sums = calloc(n, sizeof(double));
  m->counts = calloc(km_counts_len(m), sizeof(uint64_t));
  if (m->centroids == NULL || m->sums == NULL || m->counts == NULL) {
    fprintf(stderr, "k-means: no memory for %d centroids of %llu terms\n", k,
            (unsigned long long)cols);
    km_model_free(m);
    return -1;
  }
  return 0;
}

void km_model_free(km_model* m) {
  free(m->centroids);
  free(m->sums);
  free(m->counts);
  m->centroids = m->sums = NULL;
  m->counts = NULL;
}

int km_seed_rows(uint64_t seed, uint64_t rows, int k, uint64_t* out) {
  if ((uint64_t)k > rows) {
    fprintf(stderr, "k-means: %d clusters but only %llu rows\n", k,
            (unsigned long long)rows);
    return -1;
  }
  /* Its own stream, apart from any the generator used with this seed. */
  app_rng rng = app_rng_seed(seed, 0x6b6d65616e73ull /* "kmeans" */);
  for (int j = 0; j < k; ++j) {
    int fresh;
    do {
      out[j] = app_rng_below(&rng, rows);
      fresh = 1;
      for (int i = 0; i < j; ++i) fresh &= out[i] != out[j];
    } while (!fresh);
  }
  return 0;
}

int km_initial_centroids(const app_documents* doc, uint64_t seed, km_model* m) {
  uint64_t* rows = malloc(sizeof(uint64_t) * (size_t)m->k);
  if (rows == NULL || km_seed_rows(seed, doc->rows, m->k, rows) != 0) {
    free(rows);
    return -1;
  }
  memset(m->centroids, 0, sizeof(double) * km_sums_len(m));
  for (int j = 0; j < m->k; ++j) {
    app_doc_rows r;
    if (app_documents_read_rows(doc, rows[j], rows[j] + 1, &r) != 0) {
      free(rows);
      return -1;
    }
    double norm2 = 0;
    for (uint64_t e = 0; e < r.nnz; ++e)
      norm2 += (double)r.entries[e].value * (double)r.entries[e].value;
    double inv = norm2 > 0 ? 1.0 / sqrt(norm2) : 0.0;
    for (uint64_t e = 0; e < r.nnz; ++e)
      m->centroids[(size_t)r.entries[e].col * m->k + j] =
          (double)r.entries[e].value * inv;
    app_doc_rows_free(&r);
  }
  free(rows);
  return 0;
}

void km_clear(km_model* m) {
  memset(m->sums, 0, sizeof(double) * km_sums_len(m));
  memset(m->counts, 0, sizeof(uint64_t) * km_counts_len(m));
}

void km_assign(km_model* m, const app_doc_rows* rows, int32_t* assign) {
  const int k = m->k;
  const double* restrict c = m->centroids;
  double* restrict dots = malloc(sizeof(double) * (size_t)k);
  if (dots == NULL) {
    fprintf(stderr, "k-means: no memory for %d similarities\n", k);
    exit(1);
  }
  /* Continue the running sum (not a partial one added at the end), so that
   * a pass in pieces adds in exactly the order of a pass in one go. */
  double objective = m->sums[km_sums_len(m) - 1];
  uint64_t moved = 0;
  for (uint64_t i = 0; i < rows->count; ++i) {
    const app_doc_entry* e = rows->entries + rows->rowptr[i];
    const app_doc_entry* end = rows->entries + rows->rowptr[i + 1];
    /* Dot products with the raw values, scaled by 1/|x| once at the end:
     * the same operations in the same order in every program. */
    double norm2 = 0;
    for (int j = 0; j < k; ++j) dots[j] = 0;
    for (const app_doc_entry* p = e; p != end; ++p) {
      double v = p->value;
      const double* cj = c + (size_t)p->col * k;
      norm2 += v * v;
      for (int j = 0; j < k; ++j) dots[j] += v * cj[j];
    }
    double inv = norm2 > 0 ? 1.0 / sqrt(norm2) : 0.0;
    int best = 0;
    for (int j = 1; j < k; ++j)
      if (dots[j] > dots[best]) best = j;
    objective += dots[best] * inv;
    moved += assign[i] != best;
    assign[i] = best;
    m->counts[best] += 1;
    for (const app_doc_entry* p = e; p != end; ++p)
      m->sums[(size_t)p->col * k + best] += (double)p->value * inv;
  }
  free(dots);
  m->sums[km_sums_len(m) - 1] = objective;
  m->counts[k] += moved;
}

void km_update(km_model* m) {
  const int k = m->k;
  for (int j = 0; j < k; ++j) {
    if (m->counts[j] == 0) continue;
    double norm2 = 0;
    for (uint64_t col = 0; col < m->cols; ++col) {
      double s = m->sums[col * k + j];
      norm2 += s * s;
    }
    if (norm2 == 0) continue;
    double inv = 1.0 / sqrt(norm2);
    for (uint64_t col = 0; col < m->cols; ++col)
      m->centroids[col * k + j] = m->sums[col * k + j] * inv;
  }
}

double km_objective(const km_model* m) { return m->sums[km_sums_len(m) - 1]; }
uint64_t km_moved(const km_model* m) { return m->counts[m->k]; }

void km_report_iteration(int i, double seconds, const km_model* m) {
  app_print_iteration("kmeans", i, seconds);
  printf("kmeans: iteration %d moved %llu objective %.17g\n", i,
         (unsigned long long)km_moved(m), km_objective(m));
  fflush(stdout);
}

void km_report_result(double objective) {
  printf("RESULT kmeans %.17g\n", objective);
  fflush(stdout);
}

int km_run_serial(const char* prog, const km_options* o, const app_documents* doc,
                  km_next_piece next, void* ctx) {
  km_model m;
  if (km_model_init(&m, o->k, doc->cols) != 0) return 1;
  int32_t* assign = malloc(sizeof(int32_t) * (doc->rows ? doc->rows : 1));
  if (assign == NULL) {
    fprintf(stderr, "%s: no memory for %llu assignments\n", prog,
            (unsigned long long)doc->rows);
    km_model_free(&m);
    return 1;
  }
  for (uint64_t i = 0; i < doc->rows; ++i) assign[i] = -1;
  int status = km_initial_centroids(doc, o->seed, &m) != 0;
  for (int it = 1; status == 0 && it <= o->iters; ++it) {
    double start = app_now();
    km_clear(&m);
    const app_doc_rows* piece;
    int got;
    for (int first = 1; (got = next(ctx, first, &piece)) == 1; first = 0)
      km_assign(&m, piece, assign + piece->first);
    if (got < 0) {
      status = 1;
      break;
    }
    km_update(&m);
    km_report_iteration(it, app_now() - start, &m);
    if (km_moved(&m) == 0) break;
  }
  if (status == 0) km_report_result(km_objective(&m));
  free(assign);
  km_model_free(&m);
  return status;
}
