/* kmeans_serial: the in-memory serial reference of spherical k-means, which
 * the tests compare every other variant with. Reads the whole matrix once.
 *
 *   kmeans_serial FILE [--k K] [--iters N] [--seed S] */
#include <stdlib.h>

#include "documents_format.h"
#include "kmeans_kernels.h"

/* The whole matrix is the one piece of every pass. */
static int whole_matrix(void* ctx, int first, const app_doc_rows** piece) {
  *piece = ctx;
  return first;
}

int main(int argc, char** argv) {
  km_options o;
  int parsed = km_parse_options(argc, argv, "kmeans_serial", 0, 1, &o);
  if (parsed != 0) return parsed == 1 ? 0 : 2;
  app_documents doc;
  if (app_documents_open(o.path, &doc) != 0) return 1;
  app_doc_rows rows;
  if (app_documents_read_rows(&doc, 0, doc.rows, &rows) != 0) return 1;
  int status = km_run_serial("kmeans_serial", &o, &doc, whole_matrix, &rows);
  app_doc_rows_free(&rows);
  app_documents_close(&doc);
  return status;
}
