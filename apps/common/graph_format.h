/* The directed-graph data file (kind APP_KIND_GRAPH), read by PageRank.
 *
 * Header dims (see file_header.h):
 *   dims[0] = n, the number of vertices (0 < n < 2^32)
 *   dims[1] = m, the number of edges
 *   dims[2..4] = 0
 * Payload, right after the 64-byte header (little endian):
 *   rowptr   u64[n + 1]  CSR row pointers by source vertex: the out-edges of
 *                        vertex v are targets[rowptr[v] .. rowptr[v+1]);
 *                        rowptr[0] = 0, non-decreasing, rowptr[n] = m
 *   targets  u32[m]      target vertex of each edge, < n
 * so the file is exactly 64 + 8 (n + 1) + 4 m bytes. Duplicate edges and
 * self-loops are allowed (the generator makes a few, as R-MAT does).
 *
 * A reader never needs the whole file: graph_split() finds a part's first
 * vertex by binary search over rowptr on disk, and graph_read_rows() reads
 * one block of rows. Both check what they read, so a corrupt file ends in
 * a clear message instead of a wrong answer or a crash. */
#ifndef BDMPI_APPS_GRAPH_FORMAT_H
#define BDMPI_APPS_GRAPH_FORMAT_H

#include <stdint.h>
#include <stdio.h>

#include "app_io.h"
#include "file_header.h"

typedef struct graph_file {
  const char* path;
  int fd;
  uint64_t n; /* vertices */
  uint64_t m; /* edges */
  uint64_t seed;
  app_block_reader blocks; /* graph_read_rows' reads (none: pread) */
} graph_file;

/* Byte offsets of the two arrays. */
static inline uint64_t graph_rowptr_offset(uint64_t v) {
  return APP_HEADER_BYTES + 8 * v;
}
static inline uint64_t graph_target_offset(uint64_t n, uint64_t e) {
  return APP_HEADER_BYTES + 8 * (n + 1) + 4 * e;
}

/* The exact file size the header describes (for app_header_read). */
uint64_t graph_file_bytes(const app_header* header);

/* Opens and checks `path`. Returns 0, or -1 after printing why. */
int graph_open(const char* path, graph_file* g);
void graph_close(graph_file* g);

/* rowptr[v] read from disk; exits with a message on I/O error. */
uint64_t graph_row_offset(graph_file* g, uint64_t v);

/* First vertex of part k of `parts` (k = parts gives n): parts hold
 * consecutive vertices and are balanced by edges + vertices, i.e. by the
 * work and memory a part costs. */
uint64_t graph_split(graph_file* g, uint64_t parts, uint64_t k);

/* The number of edges of rows [lo, hi) (rowptr[hi] - rowptr[lo]), checked
 * to be possible before anyone allocates room for them. Returns 0, or -1
 * after printing why. */
int graph_block_edges(graph_file* g, uint64_t lo, uint64_t hi, uint64_t* edges);

/* Reads rows [lo, hi): rowptr[0 .. hi-lo] (absolute edge offsets, as in the
 * file) and their targets (rowptr[hi-lo] - rowptr[0] of them). Checks that
 * the row pointers are non-decreasing and in range and that every target is
 * < n; on any failure prints why and returns -1. */
int graph_read_rows(graph_file* g, uint64_t lo, uint64_t hi, uint64_t* rowptr,
                    uint32_t* targets);

#endif
