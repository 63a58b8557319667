/* pagerank_serial / pagerank_serial_ooc: PageRank without MPI, the same
 * arithmetic as pagerank (pagerank_kernel.h).
 *
 *   pagerank_serial FILE [--iters N] [--tol T]
 *   pagerank_serial_ooc FILE [--iters N] [--tol T] [--chunk SIZE]
 *
 * pagerank_serial loads the whole graph once: the in-memory reference the
 * tests compare the MPI runs with. pagerank_serial_ooc (PR_STREAM) is the
 * paper's serial out-of-core baseline: the two rank vectors (current and
 * incoming, 16 bytes per vertex) stay in memory, and every iteration reads
 * the graph from disk again in parts of about --chunk bytes (default 64m;
 * a part never splits a row, so a hub row may make one larger). */
#include <stdio.h>
#include <stdlib.h>

#include "app_alloc.h"
#include "app_util.h"
#include "graph_format.h"
#include "pagerank_kernel.h"

#ifdef PR_STREAM
#define PROGRAM "pagerank_serial_ooc"
#define STREAMING 1
#else
#define PROGRAM "pagerank_serial"
#define STREAMING 0
#endif

int main(int argc, char** argv) {
  pr_options o;
  pr_parse_args(argc, argv, PROGRAM, 0, STREAMING, 0, &o);
  graph_file g;
  if (graph_open(o.file, &g) != 0) return 1;
  uint64_t n = g.n;

  /* Parts of the graph, cut like the MPI ranks' blocks. */
  uint64_t parts = 1;
  if (STREAMING) {
    uint64_t bytes = graph_target_offset(n, g.m) - APP_HEADER_BYTES;
    parts = (bytes + o.chunk - 1) / o.chunk;
    if (parts > n) parts = n;
  }
  uint64_t* bounds = app_alloc(8 * (parts + 1), 0, PROGRAM);
  uint64_t max_rows = 0, max_edges = 0;
  for (uint64_t k = 0; k <= parts; ++k) {
    bounds[k] = graph_split(&g, parts, k);
    if (k == 0) continue;
    uint64_t rows = bounds[k] - bounds[k - 1];
    uint64_t edges;
    if (graph_block_edges(&g, bounds[k - 1], bounds[k], &edges) != 0) return 1;
    if (rows > max_rows) max_rows = rows;
    if (edges > max_edges) max_edges = edges;
  }
  uint64_t* rowptr = app_alloc(8 * (max_rows + 1), 0, PROGRAM);
  uint32_t* targets = app_alloc(4 * max_edges, 0, PROGRAM);
  double* rank = app_alloc(8 * n, 0, PROGRAM);
  double* incoming = app_alloc(8 * n, 1, PROGRAM);
  for (uint64_t v = 0; v < n; ++v) rank[v] = 1.0 / (double)n;
  if (!STREAMING && graph_read_rows(&g, 0, n, rowptr, targets) != 0) return 1;

  for (int it = 1; it <= o.iters; ++it) {
    double start = app_now();
    double dangling = 0;
    for (uint64_t k = 0; k < parts; ++k) {
      uint64_t lo = bounds[k], rows = bounds[k + 1] - lo;
      if (STREAMING && graph_read_rows(&g, lo, lo + rows, rowptr, targets) != 0)
        return 1;
      dangling += pr_dangling(rowptr, rows, rank + lo);
      pr_push(rowptr, rows, targets, rank + lo, incoming);
    }
    double l1 = pr_update(rank, incoming, n, n, dangling);
    pr_report_iteration(it, app_now() - start, l1);
    if (o.tol > 0 && l1 < o.tol) break;
  }
  printf("RESULT pagerank %.17g\n", pr_checksum(rank, 0, n));
  graph_close(&g);
  free(bounds);
  free(rowptr);
  free(targets);
  free(rank);
  free(incoming);
  return 0;
}
