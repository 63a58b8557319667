#include "graph_format.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_io.h"

uint64_t graph_file_bytes(const app_header* header) {
  uint64_t n = header->dims[0], m = header->dims[1];
  /* Absurd dimensions (a corrupt header) must not overflow into a size that
   * happens to match: cap them well below 2^64 / 8. */
  if (n == 0 || n >= (1ull << 32) || m >= (1ull << 58)) return 0;
  return graph_target_offset(n, m);
}

int graph_open(const char* path, graph_file* g) {
  app_header header;
  memset(g, 0, sizeof *g);
  g->fd = app_data_open(path, APP_KIND_GRAPH, graph_file_bytes, &header);
  if (g->fd < 0) return -1;
  g->path = path;
  g->n = header.dims[0];
  g->m = header.dims[1];
  g->seed = header.seed;
  /* The two ends of rowptr pin the array to the file size checked above. */
  if (graph_row_offset(g, 0) != 0 || graph_row_offset(g, g->n) != g->m) {
    fprintf(stderr, "%s: corrupt graph: row pointers do not span 0..%llu\n",
            path, (unsigned long long)g->m);
    graph_close(g);
    return -1;
  }
  return 0;
}

void graph_close(graph_file* g) {
  if (g->fd >= 0) close(g->fd);
  g->fd = -1;
}

uint64_t graph_row_offset(graph_file* g, uint64_t v) {
  uint64_t value;
  if (app_pread_all(g->fd, g->path, &value, 8, graph_rowptr_offset(v)) != 0)
    exit(1);
  return value;
}

uint64_t graph_split(graph_file* g, uint64_t parts, uint64_t k) {
  if (k >= parts) return g->n;
  /* Smallest v with rowptr[v] + v >= k (m + n) / parts; rowptr[v] + v is
   * strictly increasing, so the parts are consecutive and cover all rows.
   * 128-bit product: (m + n) * k may exceed 2^64. */
  uint64_t goal = (uint64_t)((unsigned __int128)(g->m + g->n) * k / parts);
  uint64_t lo = 0, hi = g->n;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (graph_row_offset(g, mid) + mid >= goal)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

int graph_block_edges(graph_file* g, uint64_t lo, uint64_t hi,
                      uint64_t* edges) {
  uint64_t first = graph_row_offset(g, lo), end = graph_row_offset(g, hi);
  if (first > end || end > g->m) {
    fprintf(stderr,
            "%s: corrupt graph: row pointers of vertices %llu and %llu\n",
            g->path, (unsigned long long)lo, (unsigned long long)hi);
    return -1;
  }
  *edges = end - first;
  return 0;
}

int graph_read_rows(graph_file* g, uint64_t lo, uint64_t hi, uint64_t* rowptr,
                    uint32_t* targets) {
  if (app_read_block(&g->blocks, g->fd, g->path, rowptr, 8 * (hi - lo + 1),
                     graph_rowptr_offset(lo)) != 0)
    return -1;
  for (uint64_t i = 0; i < hi - lo; ++i) {
    if (rowptr[i + 1] < rowptr[i] || rowptr[i + 1] > g->m) {
      fprintf(stderr, "%s: corrupt graph: row pointer of vertex %llu\n",
              g->path, (unsigned long long)(lo + i + 1));
      return -1;
    }
  }
  uint64_t edges = rowptr[hi - lo] - rowptr[0];
  if (app_read_block(&g->blocks, g->fd, g->path, targets, 4 * edges,
                     graph_target_offset(g->n, rowptr[0])) != 0)
    return -1;
  for (uint64_t e = 0; e < edges; ++e) {
    if (targets[e] >= g->n) {
      fprintf(stderr,
              "%s: corrupt graph: edge %llu points to vertex %u of %llu\n",
              g->path, (unsigned long long)(rowptr[0] + e), targets[e],
              (unsigned long long)g->n);
      return -1;
    }
  }
  return 0;
}
