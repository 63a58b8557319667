/* gen_documents: writes a synthetic sparse document-term matrix in the
 * documents format (apps/common/documents_format.h) for the k-means programs.
 *
 *   gen_documents --out FILE (--bytes SIZE | --rows N) [--cols M]
 *                 [--avg-nnz K] [--seed S]
 *
 * The data:
 *   - row lengths follow a power law, P(length >= x) ~ (x_min / x)^2 with
 *     x_min = K / 2 (a Pareto tail of exponent 2, like document lengths),
 *     at least 1 and at most what the vocabulary allows;
 *   - each document has one of 16 hidden topics; half of its terms come
 *     from its topic's band of the first half of the columns, half from
 *     the shared second half, so k-means has clusters to find and
 *     converges in a handful of iterations;
 *   - values are term counts, 1..8 for topic terms and 1..2 for shared ones.
 *
 * Determinism: row block b (1024 rows) draws from app_rng stream b of the
 * seed and nothing else, and only integer arithmetic, division and sqrt
 * (both exactly rounded in IEEE 754) shape the data, so a seed gives the
 * same bytes on every run and machine, whatever the buffering.
 *
 * Streaming: the row pointers and the entries are written through two
 * buffered streams at their two fixed regions of the file (the entry region
 * starts at a known offset once the row count is known), one row at a time;
 * the header, which records the total of non-zeros, is written last. Memory
 * stays at the two stream buffers and one row. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "documents_format.h"
#include "file_header.h"

enum { kBlockRows = 1024, kTopics = 16 };

typedef struct options {
  const char* out;
  uint64_t bytes, rows, cols, avg_nnz, seed;
} options;

static void usage(FILE* f) {
  fprintf(f,
          "usage: gen_documents --out FILE (--bytes SIZE | --rows N) "
          "[--cols M] [--avg-nnz K] [--seed S]\n"
          "  --bytes SIZE  size of the file, approximately (k, m, g suffixes)\n"
          "  --rows N      number of documents instead\n"
          "  --cols M      vocabulary size (default 50000, at least %d)\n"
          "  --avg-nnz K   mean terms per document (default 64)\n"
          "  --seed S      random seed (default 1)\n",
          2 * kTopics);
}

static uint64_t parse_count(const char* text, const char* what) {
  char* end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') {
    fprintf(stderr, "gen_documents: %s takes a number, not '%s'\n", what, text);
    exit(2);
  }
  return v;
}

static options parse(int argc, char** argv) {
  options o = {NULL, 0, 0, 50000, 64, 1};
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      exit(0);
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "gen_documents: '%s' needs a value or is unknown\n", a);
      usage(stderr);
      exit(2);
    }
    const char* v = argv[++i];
    if (strcmp(a, "--out") == 0) o.out = v;
    else if (strcmp(a, "--bytes") == 0) o.bytes = app_parse_size(v, "--bytes");
    else if (strcmp(a, "--rows") == 0) o.rows = parse_count(v, a);
    else if (strcmp(a, "--cols") == 0) o.cols = parse_count(v, a);
    else if (strcmp(a, "--avg-nnz") == 0) o.avg_nnz = parse_count(v, a);
    else if (strcmp(a, "--seed") == 0) o.seed = parse_count(v, a);
    else {
      fprintf(stderr, "gen_documents: unknown option '%s'\n", a);
      usage(stderr);
      exit(2);
    }
  }
  const char* err = NULL;
  if (o.out == NULL) err = "--out FILE is required";
  else if ((o.bytes == 0) == (o.rows == 0)) err = "give one of --bytes or --rows (non-zero)";
  else if (o.cols < 2 * kTopics || o.cols > UINT32_MAX) err = "--cols is out of range";
  else if (o.avg_nnz == 0) err = "--avg-nnz must be at least 1";
  if (err != NULL) {
    fprintf(stderr, "gen_documents: %s\n", err);
    usage(stderr);
    exit(2);
  }
  return o;
}

/* The shape of the data, from the options. */
typedef struct shape {
  uint64_t band;    /* columns per topic band, in [0, kTopics * band) */
  uint64_t shared;  /* first shared column; shared ones run to cols */
  uint64_t max_len; /* longest row: both halves must fit their regions */
  double x_min;
} shape;

static shape make_shape(const options* o) {
  shape s;
  s.shared = o->cols / 2;
  s.band = s.shared / kTopics;
  /* ceil(len/2) topic terms fit a band, floor(len/2) the shared region. */
  s.max_len = 2 * s.band;
  s.x_min = (double)o->avg_nnz / 2.0;
  return s;
}

/* Mean row length of the distribution below:
 * sum over x >= 1 of P(len >= x), with P(len >= x) = min(1, (x_min/x)^2)
 * for 2 <= x <= max_len (len >= 1 always); the far tail in closed form. */
static double mean_length(const shape* s) {
  double mean = 1.0;
  uint64_t stop = s->max_len < 1000000 ? s->max_len : 1000000;
  for (uint64_t x = 2; x <= stop; ++x) {
    double p = s->x_min / (double)x;
    mean += p >= 1.0 ? 1.0 : p * p;
  }
  if (stop < s->max_len)
    mean += s->x_min * s->x_min * (1.0 / (double)stop - 1.0 / (double)s->max_len);
  return mean;
}

/* Picks `count` distinct ascending columns of [base, base + width), one
 * from each of `count` consecutive integer stripes (count <= width). */
static app_doc_entry* pick_columns(app_rng* rng, uint64_t base, uint64_t width,
                                   uint64_t count, uint32_t max_value,
                                   app_doc_entry* out) {
  for (uint64_t j = 0; j < count; ++j) {
    uint64_t lo = j * width / count, hi = (j + 1) * width / count;
    out->col = (uint32_t)(base + lo + app_rng_below(rng, hi - lo));
    out->value = (float)(1 + app_rng_below(rng, max_value));
    ++out;
  }
  return out;
}

/* One document: its length, topic and terms, all from `rng`. Returns the
 * number of entries written to `row` (room for max_len). */
static uint64_t make_row(app_rng* rng, const shape* s, uint64_t cols,
                         app_doc_entry* row) {
  /* (0, 1]: never zero, so the division is finite. */
  double u = (double)((app_rng_next(rng) >> 11) + 1) * (1.0 / 9007199254740992.0);
  double x = floor(s->x_min / sqrt(u));
  uint64_t len = x < 1.0 ? 1 : x > (double)s->max_len ? s->max_len : (uint64_t)x;
  uint64_t topic = app_rng_below(rng, kTopics);
  uint64_t own = (len + 1) / 2, common = len / 2;
  app_doc_entry* end = pick_columns(rng, topic * s->band, s->band, own, 8, row);
  end = pick_columns(rng, s->shared, cols - s->shared, common, 2, end);
  return (uint64_t)(end - row);
}

static void fail_io(const char* path, const char* what) {
  fprintf(stderr, "gen_documents: %s: %s failed: %s\n", path, what,
          strerror(errno));
  remove(path);
  exit(1);
}

int main(int argc, char** argv) {
  options o = parse(argc, argv);
  shape s = make_shape(&o);
  double start = app_now();
  uint64_t rows = o.rows;
  if (rows == 0) {
    /* 64 + 8 (rows + 1) + 8 nnz bytes, nnz ~ rows * mean length. */
    double per_row = 8.0 + 8.0 * mean_length(&s);
    double fit = ((double)o.bytes - APP_HEADER_BYTES - 8.0) / per_row;
    rows = fit < 1.0 ? 1 : (uint64_t)fit;
  }

  FILE* pointers = fopen(o.out, "wb");
  if (pointers == NULL) fail_io(o.out, "creating the file");
  FILE* entries = fopen(o.out, "r+b");
  if (entries == NULL) fail_io(o.out, "opening the file again");
  static char pointer_buf[1 << 20], entry_buf[1 << 22];
  setvbuf(pointers, pointer_buf, _IOFBF, sizeof pointer_buf);
  setvbuf(entries, entry_buf, _IOFBF, sizeof entry_buf);
  /* Header space now (written at the end), then rowptr[0] = 0. */
  unsigned char zeros[APP_HEADER_BYTES] = {0};
  uint64_t nnz = 0;
  if (fwrite(zeros, 1, sizeof zeros, pointers) != sizeof zeros ||
      fwrite(&nnz, 8, 1, pointers) != 1)
    fail_io(o.out, "write");
  if (fseeko(entries, (off_t)app_documents_entry_offset(rows, 0), SEEK_SET) != 0)
    fail_io(o.out, "seek");

  app_doc_entry* row = malloc(sizeof(app_doc_entry) * (s.max_len ? s.max_len : 1));
  if (row == NULL) {
    fprintf(stderr, "gen_documents: no memory for one row\n");
    return 1;
  }
  app_rng rng = app_rng_seed(o.seed, 0);
  for (uint64_t i = 0; i < rows; ++i) {
    if (i % kBlockRows == 0) rng = app_rng_seed(o.seed, i / kBlockRows);
    uint64_t len = make_row(&rng, &s, o.cols, row);
    nnz += len;
    if (fwrite(row, sizeof(app_doc_entry), len, entries) != len ||
        fwrite(&nnz, 8, 1, pointers) != 1)
      fail_io(o.out, "write");
  }
  free(row);

  app_header header = {APP_FORMAT_VERSION, APP_KIND_DOCUMENTS,
                       {rows, o.cols, nnz, 0, 0}, o.seed};
  if (fclose(entries) != 0) fail_io(o.out, "write");
  if (app_header_write(pointers, &header) != 0) fail_io(o.out, "write");
  if (fclose(pointers) != 0) fail_io(o.out, "write");
  printf("gen_documents: wrote %s: %llu rows, %llu columns, %llu non-zeros "
         "(%.1f per row), %llu bytes, seed %llu, %.2f s\n",
         o.out, (unsigned long long)rows, (unsigned long long)o.cols,
         (unsigned long long)nnz, (double)nnz / (double)rows,
         (unsigned long long)app_documents_bytes(&header),
         (unsigned long long)o.seed, app_now() - start);
  return 0;
}
