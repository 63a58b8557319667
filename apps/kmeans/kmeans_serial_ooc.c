/* kmeans_serial_ooc: the serial out-of-core baseline of the paper (section
 * 6): the centroids (current and next) stay in memory, and every iteration
 * streams the matrix from disk in pieces of --chunk bytes. The assignment
 * of each row (4 bytes a row, against 8 per non-zero for the matrix) also
 * stays in memory; the paper's version streamed it too.
 *
 *   kmeans_serial_ooc FILE [--k K] [--iters N] [--seed S] [--chunk SIZE] */
#include "documents_format.h"
#include "kmeans_kernels.h"

static int next_chunk(void* ctx, int first, const app_doc_rows** piece) {
  app_documents_stream* s = ctx;
  if (first) app_documents_stream_rewind(s);
  return app_documents_stream_next(s, piece);
}

int main(int argc, char** argv) {
  km_options o;
  int parsed =
      km_parse_options(argc, argv, "kmeans_serial_ooc", KM_OPT_CHUNK, 1, &o);
  if (parsed != 0) return parsed == 1 ? 0 : 2;
  app_documents doc;
  if (app_documents_open(o.path, &doc) != 0) return 1;
  app_documents_stream stream;
  app_documents_stream_init(&stream, &doc, (size_t)o.chunk);
  int status = km_run_serial("kmeans_serial_ooc", &o, &doc, next_chunk, &stream);
  app_documents_stream_free(&stream);
  app_documents_close(&doc);
  return status;
}
