/* The binary format of a sparse document-term matrix (kind
 * APP_KIND_DOCUMENTS, read by the k-means programs), and its readers.
 *
 * Header (apps/common/file_header.h), dims[]:
 *   dims[0]  rows   n, the documents
 *   dims[1]  cols   m, the terms (every column index is < m)
 *   dims[2]  nnz    the non-zeros of the whole matrix
 *   dims[3]  0      (reserved)
 *   dims[4]  0      (reserved)
 *
 * Payload, right after the 64-byte header, compressed sparse rows:
 *   rowptr   (n + 1) x u64     rowptr[0] = 0, non-decreasing, rowptr[n] = nnz;
 *                              row i owns entries rowptr[i] .. rowptr[i+1]-1
 *   entries  nnz x {u32 col, f32 value}   8 bytes each, columns ascending
 *                              and distinct within a row
 * so the file is exactly 64 + 8 (n + 1) + 8 nnz bytes (checked on open).
 *
 * Why this layout: the row pointers come first and have a fixed size, so
 * a reader finds row i's pointer at a known offset and its entries at
 * 64 + 8 (n + 1) + 8 rowptr[i]. One of p ranks binary-searches the row
 * pointers for its row block balanced by non-zeros (a few dozen 8-byte
 * reads) and then reads only its own contiguous pieces; a serial program
 * streams both arrays front to back in chunks. Column and value of an
 * entry sit together so that a row range is one contiguous read. */
#ifndef BDMPI_APPS_DOCUMENTS_FORMAT_H
#define BDMPI_APPS_DOCUMENTS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "app_io.h"
#include "file_header.h"

typedef struct app_doc_entry {
  uint32_t col;
  float value;
} app_doc_entry;

_Static_assert(sizeof(app_doc_entry) == 8, "entries are 8 bytes on disk");

/* An open document file: its dimensions and a descriptor for pread. */
typedef struct app_documents {
  const char* path;
  app_header header;
  uint64_t rows, cols, nnz;
  int fd;
  app_block_reader blocks; /* app_documents_read_rows' reads (none: pread) */
} app_documents;

/* The exact size of a file with this header (for app_header_read). */
uint64_t app_documents_bytes(const app_header* header);

/* Byte offsets of rowptr[row] and of entry number `entry`. */
uint64_t app_documents_rowptr_offset(uint64_t row);
uint64_t app_documents_entry_offset(uint64_t rows, uint64_t entry);

/* Opens and checks `path` (magic, version, kind, dimensions, exact size).
 * On failure prints why, naming the file, and returns -1. */
int app_documents_open(const char* path, app_documents* doc);
void app_documents_close(app_documents* doc);

/* Reads rowptr[first] .. rowptr[first + count] (count + 1 values) into
 * `out` and checks them (non-decreasing, within nnz). -1 with a message on
 * a short read or a corrupt value. */
int app_documents_read_rowptr(const app_documents* doc, uint64_t first,
                              uint64_t count, uint64_t* out);

/* Reads entries first .. first + count - 1 and checks their columns. */
int app_documents_read_entries(const app_documents* doc, uint64_t first,
                               uint64_t count, app_doc_entry* out);

/* The first row of part `part` of `parts` row blocks balanced by non-zeros:
 * the first row whose rowptr is at least part * nnz / parts (0 for part 0,
 * rows for part `parts`). Identical for every reader; reads O(log rows)
 * row pointers. -1 (as uint64_t) with a message on a read error. */
uint64_t app_documents_split(const app_documents* doc, uint64_t part,
                             uint64_t parts);

/* Rows [first, last) in memory: rowptr rebased to start at 0. */
typedef struct app_doc_rows {
  uint64_t first, count, nnz;
  uint64_t* rowptr;       /* count + 1 values, rowptr[0] == 0 */
  app_doc_entry* entries; /* nnz */
} app_doc_rows;

/* Reads rows [first, last) into freshly allocated arrays. -1 on failure
 * (message printed, nothing allocated). */
int app_documents_read_rows(const app_documents* doc, uint64_t first,
                            uint64_t last, app_doc_rows* rows);
void app_doc_rows_free(app_doc_rows* rows);

/* Streams the matrix front to back in pieces of about `chunk_bytes` of
 * entries (a single longer row makes a longer piece), reusing buffers. */
typedef struct app_documents_stream {
  const app_documents* doc;
  uint64_t next_row;
  size_t chunk_bytes;
  uint64_t window_rows;     /* row pointers read ahead per piece */
  size_t entry_capacity;
  app_doc_rows piece;       /* the current piece; arrays owned by the stream */
} app_documents_stream;

void app_documents_stream_init(app_documents_stream* s,
                               const app_documents* doc, size_t chunk_bytes);
/* Rewinds to row 0 (for the next pass). */
void app_documents_stream_rewind(app_documents_stream* s);
/* Next piece: 1 and `*piece` set, 0 at the end, -1 on a read error. */
int app_documents_stream_next(app_documents_stream* s,
                              const app_doc_rows** piece);
void app_documents_stream_free(app_documents_stream* s);

#endif
